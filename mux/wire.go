package mux

import (
	"encoding/json"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux/upstream"
)

// wireVersion is the version of the socket protocol between the CLI and a
// multiplexer; a client and a multiplexer that disagree do not talk.
const wireVersion = 4

// MaxRequest bounds one request on the socket: far above the arguments of
// any real call, far below what one client's request could cost the
// multiplexer. A larger request is refused, by the client before it is
// sent and by the multiplexer before it is read whole.
const MaxRequest = 4 << 20

// request is one request on a multiplexer connection: one JSON object,
// then the client only listens. Closing the connection cancels it. There
// is no greeting: every request says its protocol version and, outside a
// session, the client's environment, which the multiplexer must share.
//
// It holds only what a client may choose: which operation, on which
// server and tool, with which arguments. Where indexes and caches live,
// which environment servers get and which files are read are the
// multiplexer's own. readRequest decodes it strictly: unknown fields, a
// field its operation does not take and a request over MaxRequest are
// refused.
type request struct {
	V       int             `json:"v"`
	Env     string          `json:"env,omitempty"`     // StampEnv digest; "" in a session
	Session string          `json:"session,omitempty"` // the session the client belongs to
	Op      string          `json:"op"`
	Server  string          `json:"server,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`    // call
	Input   *wireArgs       `json:"input,omitempty"`   // invoke
	Listing Listing         `json:"listing,omitempty"` // catalog
	Search  *wireSearch     `json:"search,omitempty"`
	// Logs asks for the called server's log messages, as log objects
	// before the response (call, invoke).
	Logs bool `json:"logs,omitempty"`
	// Progress asks for the progress of the request's tool call, as
	// progress objects before the final response.
	Progress bool `json:"progress,omitempty"`
}

// wireArgs are the arguments of an invoke request, as the command line
// gave them (Args).
type wireArgs struct {
	Base         json.RawMessage `json:"base,omitempty"`
	Pairs        []string        `json:"pairs,omitempty"`
	AllowUnknown bool            `json:"allowUnknown,omitempty"`
}

// wireSearch is a search request: the words, how many results, and one
// server or all. Where the index is kept is not the client's to say.
type wireSearch struct {
	Text   string `json:"text"`
	Limit  int    `json:"limit,omitempty"`
	Server string `json:"server,omitempty"`
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
	Surface *wireSurface `json:"surface"`
	Servers []wireServer `json:"servers"`
}

// wireSurface is what a client needs of a surface: its mode, whose words
// its refusals speak in, and its servers' ids. The tools each server
// authorizes, the names it excludes, the agent's name and the deferred
// sets stay in the multiplexer: the tools listed say what is authorized.
type wireSurface struct {
	Mode    catalog.Mode `json:"mode"`
	User    bool         `json:"user,omitempty"`
	Session bool         `json:"session,omitempty"`
	Servers []string     `json:"servers"`
}

func newWireSurface(s *catalog.Surface) *wireSurface {
	w := &wireSurface{Mode: s.Mode, User: s.User, Session: s.Session, Servers: []string{}}
	for _, srv := range s.Servers {
		w.Servers = append(w.Servers, srv.ID)
	}
	return w
}

// surface is the client's view of the surface: its servers by id. It
// authorizes nothing of itself (the multiplexer's gate does, and lists
// what it allows), so a client that asked it would be refused.
func (w *wireSurface) surface() *catalog.Surface {
	s := &catalog.Surface{Mode: w.Mode, User: w.User, Session: w.Session, Servers: []*catalog.ServerSurface{}}
	for _, id := range w.Servers {
		s.Servers = append(s.Servers, &catalog.ServerSurface{ID: id})
	}
	return s
}

type wireServer struct {
	ID    string         `json:"id"`
	Tools []catalog.Tool `json:"tools,omitempty"`
	Count int            `json:"count,omitempty"`
	Error *WireError     `json:"error,omitempty"`
	// Protocol is the server's MCP revision, as ServerTools has it.
	Protocol string `json:"protocol,omitempty"`
}
