// Package mux owns the connections to upstream MCP servers: stdio
// subprocesses, streamable HTTP and SSE, through mark3labs/mcp-go clients.
package mux

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpsh/mcp/catalog"
)

// Upstream is one live connection to one MCP server. It is safe for
// concurrent use.
type Upstream interface {
	// ListTools returns every tool the server offers (all pages), with raw schemas.
	ListTools(ctx context.Context) ([]catalog.Tool, error)
	// CallTool calls one tool. args is a JSON object (nil means {}). Cancelling
	// ctx cancels the upstream request.
	CallTool(ctx context.Context, name string, args json.RawMessage) (*Result, error)
	// Close ends the connection; for stdio it stops the whole process group.
	Close() error
}

// Result is a tools/call result. Raw holds the result object exactly as the
// server sent it, so content types this program does not know survive.
type Result struct {
	Raw     json.RawMessage
	IsError bool
	// Content is Raw's content array, item by item.
	Content []json.RawMessage
	// Structured is Raw's structuredContent, if any, byte for byte.
	Structured json.RawMessage
}

// ParseResult splits a raw tools/call result into its parts; Raw keeps it
// whole.
func ParseResult(raw json.RawMessage) (*Result, error) {
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return &Result{Raw: raw, IsError: res.IsError, Content: res.Content, Structured: nonNull(res.StructuredContent)}, nil
}

// UnavailableError says a server could not be reached: it failed to start,
// to connect, to initialize, or a request timed out or the connection broke.
type UnavailableError struct {
	Server string
	Err    error
	// Stderr holds the last lines a stdio server wrote to stderr, when it
	// failed to start or initialize or exited; empty otherwise.
	Stderr string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("server %s is unavailable: %v", e.Server, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }
