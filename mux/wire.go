package mux

import (
	"encoding/json"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
	"github.com/mcpsh/mcp/search"
)

// wireVersion is the version of the socket protocol between the CLI and a
// multiplexer; a client and a multiplexer that disagree do not talk.
const wireVersion = 3

// request is one request on a multiplexer connection: one JSON object,
// then the client only listens. Closing the connection cancels it. There
// is no greeting: every request says its protocol version and, outside a
// session, the client's environment, which the multiplexer must share.
type request struct {
	V       int             `json:"v"`
	Env     string          `json:"env,omitempty"`     // StampEnv digest; "" in a session
	Session string          `json:"session,omitempty"` // the session the client belongs to
	Op      string          `json:"op"`
	Server  string          `json:"server,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`    // call
	Input   *Args           `json:"input,omitempty"`   // invoke
	Listing Listing         `json:"listing,omitempty"` // catalog
	Search  *search.Request `json:"search,omitempty"`
	// Logs asks for the called server's log messages, as log objects
	// before the response (call, invoke).
	Logs bool `json:"logs,omitempty"`
	// Progress asks for the progress of the request's tool call, as
	// progress objects before the final response.
	Progress bool `json:"progress,omitempty"`
}

// response is the last JSON object the multiplexer writes for a request.
// Before it, it may write progress objects that only carry Connecting,
// Connected or Progress, and log objects that only carry Log.
type response struct {
	Connecting string             `json:"connecting,omitempty"`
	Connected  string             `json:"connected,omitempty"`
	Progress   *upstream.Progress `json:"progress,omitempty"`

	// Log is one log message of the called server (Logs).
	Log *upstream.LogMessage `json:"log,omitempty"`

	// Stale says the multiplexer runs in another environment than the
	// client's, and did not serve the request.
	Stale    bool     `json:"stale,omitempty"`
	Version  int      `json:"version,omitempty"`
	Warnings []string `json:"warnings,omitempty"`

	Error   *WireError      `json:"error,omitempty"`
	Tools   []catalog.Tool  `json:"tools,omitempty"`
	Tool    *catalog.Tool   `json:"tool,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Catalog *wireCatalog    `json:"catalog,omitempty"`
	Skipped []wireServer    `json:"skipped,omitempty"`
	Status  *Status         `json:"status,omitempty"`
}

// wireCatalog is a Catalog as it crosses the socket.
type wireCatalog struct {
	Surface *catalog.Surface `json:"surface"`
	Servers []wireServer     `json:"servers"`
}

type wireServer struct {
	ID    string         `json:"id"`
	Tools []catalog.Tool `json:"tools,omitempty"`
	Count int            `json:"count,omitempty"`
	Error *WireError     `json:"error,omitempty"`
	// Protocol is the server's MCP revision, as ServerTools has it.
	Protocol string `json:"protocol,omitempty"`
}
