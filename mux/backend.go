package mux

import (
	"context"
	"encoding/json"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/search"
)

// Backend is what the verbs use: an Engine in this process, or a Client of
// a multiplexer that holds one. Every method puts its request through the
// surface's gate, and each is one request to a multiplexer.
type Backend interface {
	Binder
	// Catalog is every server of the surface with its authorized tools.
	Catalog(ctx context.Context, how Listing) (*Catalog, error)
	// Tools lists a server's authorized tools.
	Tools(ctx context.Context, server string) ([]catalog.Tool, error)
	// Tool returns one authorized tool.
	Tool(ctx context.Context, server, tool string) (catalog.Tool, error)
	// Call calls an authorized tool with a JSON object of arguments.
	Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error)
	// Invoke builds a tool's arguments from what the command line gave,
	// checks them against the tool's input schema, and calls it.
	Invoke(ctx context.Context, server, tool string, args Args) (*Invoked, error)
	// Search ranks the surface's tools for a query.
	Search(ctx context.Context, req search.Request) (*search.Answer, error)
	Close() error
}

// Args are a call's arguments as the command line gives them: a JSON
// object (or nothing) and key=value or key:=JSON pairs that override it.
// AllowUnknown sends keys the tool's input schema does not declare, which
// are otherwise refused (catalog.CheckKnown).
type Args struct {
	Base         json.RawMessage `json:"base,omitempty"`
	Pairs        []string        `json:"pairs,omitempty"`
	AllowUnknown bool            `json:"allowUnknown,omitempty"`
}

// Invoked is the result of Invoke, with the tool it called as the surface
// names it.
type Invoked struct {
	Server string
	Tool   string
	Result *catalog.Result
}

// Listing says how Catalog gets each server's tools.
type Listing int

const (
	// Listed is as Tools gives them: live, or from a recent cache entry.
	Listed Listing = iota
	// Known is as Known gives them: any cache entry, else live.
	Known
	// Counted is Listed, but only the number of tools comes back from a
	// multiplexer: what mcp list prints, without the schemas of every tool.
	Counted
	// Seen is as they were last seen: a live connection's list, else any
	// cache entry however old, and none (no error) for a server neither
	// has or that may not be reached; nothing is connected. Tab completion
	// asks for it.
	Seen
)

// Catalog is a surface and each of its servers' authorized tools.
type Catalog struct {
	Surface *catalog.Surface
	Servers []ServerTools // in the surface's order
}

// ServerTools is one server's authorized tools, or why there are none.
type ServerTools struct {
	ID    string
	Tools []catalog.Tool // nil when Counted through a multiplexer
	Count int
	Err   error
	// Protocol is the MCP revision the server was last spoken to with
	// ("" when not known).
	Protocol string
}
