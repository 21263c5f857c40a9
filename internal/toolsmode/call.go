package toolsmode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// methodCallTool is the request the gate stands in front of.
const methodCallTool = "tools/call"

var objectSchema = json.RawMessage(`{"type":"object"}`)

// gate is receiving middleware: a tools/call of any name that is not active
// is answered here, with the same tool error whatever the name was, and
// never reaches the SDK, which would answer an unknown name with a
// protocol error of its own wording.
//
// It also keeps a panic in a tool's handler from ending the process (the
// SDK does not recover): the call gets a tool error instead.
func (s *Server) gate(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		if method == methodSetLevel && s.opts.Relay != nil {
			return s.setLevel(ctx, next, req)
		}
		if !answered(method) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("%s: this server offers tools only", clip.Runes(method, 64))}
		}
		if ir, ok := req.(*mcp.ServerRequest[*mcp.InitializeParams]); ok {
			askLegacy(ir)
		}
		if lr, ok := req.(*mcp.ListToolsRequest); ok {
			res, err := next(ctx, method, req)
			return withoutCacheHints(lr.Session, res), err
		}
		r, ok := req.(*mcp.CallToolRequest)
		if method != methodCallTool || !ok || r.Params == nil {
			return next(ctx, method, req)
		}
		name := r.Params.Name
		if !s.isActive(name) {
			return s.notAvailable(name), nil
		}
		defer func() {
			if p := recover(); p != nil {
				res, err = toolError(fmt.Sprintf("%s: internal error: %s", name, clip.Line(fmt.Sprint(p)))), nil
			}
		}()
		return next(ctx, method, req)
	}
}

// Protocol revisions: the first that has no initialize handshake, and the
// newest that has one.
const (
	statelessRevision = "2026-07-28"
	newestHandshake   = "2025-11-25"
)

// askLegacy makes an initialize request that asks for a revision without
// the handshake ask for the newest one with it, which is what initialize
// negotiates anyway. The SDK decides whether to send tools/list_changed,
// and which fields results carry, by the revision asked for rather than
// the one negotiated (go-sdk issue 1258); corrected here, before it reads
// the request, a client that asks initialize for 2026-07-28 gets
// 2025-11-25 and all it promises.
func askLegacy(ir *mcp.ServerRequest[*mcp.InitializeParams]) {
	if ir.Params != nil && ir.Params.ProtocolVersion >= statelessRevision {
		ir.Params.ProtocolVersion = newestHandshake
	}
}

// withoutCacheHints leaves out of a tools/list result to a client on a
// revision with the handshake the cache hints (ttlMs, cacheScope) that
// only 2026-07-28 defines, and that the SDK puts in every list result.
func withoutCacheHints(ss *mcp.ServerSession, res mcp.Result) mcp.Result {
	lr, ok := res.(*mcp.ListToolsResult)
	if !ok || ss == nil {
		return res
	}
	if ip := ss.InitializeParams(); ip == nil || ip.ProtocolVersion >= statelessRevision {
		return res
	}
	return handshakeList{lr}
}

// handshakeList is a tools/list result without the cache hints.
type handshakeList struct{ *mcp.ListToolsResult }

func (l handshakeList) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(l.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	delete(fields, "ttlMs")
	delete(fields, "cacheScope")
	return json.Marshal(fields)
}

// answered says whether the server answers a method: the protocol's own
// requests, the tools capability it declares, and every notification.
// Requests of capabilities it does not declare (resources, prompts,
// logging, completions) are method not found, rather than an empty answer
// a client would take for the upstream's.
func answered(method string) bool {
	switch method {
	case "initialize", "ping", "tools/list", methodCallTool, "server/discover", "subscriptions/listen":
		return true
	}
	return strings.HasPrefix(method, "notifications/")
}

// toolError is a result with isError and one text item.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// displayName keeps a client's tool name to one short line: a name that is
// not a valid tool name is quoted, and cut at 128 characters.
func displayName(name string) string {
	if manifests.ValidToolName(name) {
		return name
	}
	return strconv.Quote(clip.Runes(name, 129))
}

// toolDef is the definition a tool is exposed with: the upstream's title,
// description, annotations, icons and raw schemas under the exposed name.
func toolDef(name string, ct catalog.Tool) *mcp.Tool {
	t := &mcp.Tool{
		Name:        name,
		Title:       ct.Title,
		Description: ct.Description,
		InputSchema: objectSchema,
	}
	if len(ct.InputSchema) > 0 {
		t.InputSchema = ct.InputSchema
	}
	if len(ct.OutputSchema) > 0 {
		t.OutputSchema = ct.OutputSchema
	}
	var raw struct {
		Title       *string              `json:"title"`
		Annotations *mcp.ToolAnnotations `json:"annotations"`
		Icons       []mcp.Icon           `json:"icons"`
	}
	if json.Unmarshal(ct.Raw, &raw) == nil {
		if raw.Title != nil {
			t.Title = *raw.Title
		} else if len(ct.Raw) > 0 {
			t.Title = "" // the catalog took it from annotations.title
		}
		t.Annotations = raw.Annotations
		t.Icons = raw.Icons
	}
	return t
}

// newChecker returns a server no client ever connects to: checkDef
// registers definitions there to learn whether the SDK accepts them.
func newChecker() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "check", Version: "0"}, nil)
}

// checkDef reports why the SDK would refuse a definition: AddTool panics on
// an input schema whose type is not "object", on a schema that is not JSON
// and on invalid x-mcp-header annotations.
func checkDef(checker *mcp.Server, def *mcp.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			// "AddTool \"name\": reason" -> "reason"
			if _, reason, ok := strings.Cut(msg, strconv.Quote(def.Name)+": "); ok {
				msg = reason
			}
			err = errors.New(clip.Line(msg))
		}
	}()
	checker.AddTool(def, nil)
	return nil
}

// proxy calls the upstream tool with the arguments as the client sent them
// and returns its result as the server sent it.
func (s *Server) proxy(e *entry) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		// The arguments are checked as mcp call and mcp run check them,
		// and refused with a tool error, which the model that made the
		// call reads and can correct (a protocol error it never sees).
		args, err := catalog.PrepareArgs(e.tool.InputSchema, args, nil, false)
		if err != nil {
			return argsError(e.name, e.tool.InputSchema, err), nil
		}
		if res, ok := s.inRounds(ctx, e, req, args); ok {
			return res, nil
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.life, cancel)()
		ctx, release := s.withCallHooks(ctx, req)
		defer release()
		return s.result(ctx, e, args), nil
	}
}

// inRounds makes a call for a client on 2026-07-28 that declared it can
// be asked for input, in rounds (rounds.go), so that the upstream's
// requests for input reach it; ok is false for any other call, which is
// made plainly.
func (s *Server) inRounds(ctx context.Context, e *entry, req *mcp.CallToolRequest, args json.RawMessage) (_ *mcp.CallToolResult, ok bool) {
	if s.opts.Relay == nil || req.Session == nil {
		return nil, false
	}
	if ip := req.Session.InitializeParams(); ip == nil || ip.ProtocolVersion < statelessRevision {
		return nil, false
	}
	var c *roundCall
	if state := req.Params.RequestState; state != "" {
		var err error
		if c, err = s.rounds.resume(state, e.tool.Server, e.tool.Name); err != nil {
			return toolError(e.name + ": " + err.Error()), true
		}
		if err := c.answer(req.Params.InputResponses); err != nil {
			// A tool error ends the call for the client: it ends here too.
			s.rounds.drop(c)
			return toolError(fmt.Sprintf("%s: %s", e.name, clip.Line(err.Error()))), true
		}
	} else {
		modes := modesOf(req.ClientCapabilities())
		if !modes.form && !modes.url {
			return nil, false
		}
		// The client's progress token is the first round's: its reports
		// stop with that round.
		var first atomic.Bool
		first.Store(true)
		defer first.Store(false)
		var err error
		c, err = s.rounds.start(s.life, e.tool.Server, e.tool.Name, modes, func(ctx context.Context) *mcp.CallToolResult {
			ctx, release := s.callHooks(ctx, req, first.Load)
			defer release()
			return s.result(ctx, e, args)
		})
		if err != nil {
			return nil, false // past the bound: the rule answers its requests
		}
	}
	res, err := s.rounds.wait(ctx, c)
	if err != nil {
		return s.callError(e, err), true
	}
	return res, true
}

// result makes an upstream call and returns what the client gets of it.
func (s *Server) result(ctx context.Context, e *entry, args json.RawMessage) *mcp.CallToolResult {
	res, err := s.eng.Call(ctx, e.tool.Server, e.tool.Name, args)
	if err != nil {
		return s.callError(e, err)
	}
	out, err := passthrough(res)
	if err != nil {
		return toolError(fmt.Sprintf("%s: %s", e.name, err))
	}
	return out
}

// callError turns a failed call into a tool error of one line.
func (s *Server) callError(e *entry, err error) *mcp.CallToolResult {
	var na *catalog.NotAvailableError
	var ue *upstream.UnavailableError
	switch {
	case errors.As(err, &na):
		return s.notAvailable(e.name)
	case errors.Is(err, context.DeadlineExceeded):
		te, ok := upstream.Timed(err, s.opts.CallTimeout).(*upstream.TimeoutError)
		if !ok {
			te = &upstream.TimeoutError{Server: e.tool.Server, After: s.opts.CallTimeout}
		}
		return toolError(e.name + " " + te.Error())
	case errors.Is(err, context.Canceled):
		return toolError(e.name + ": the call was cancelled")
	case errors.As(err, &ue):
		return toolError(fmt.Sprintf("%s: %s", e.name, clip.Line(ue.Error())))
	}
	return toolError(fmt.Sprintf("%s: %s", e.name, clip.Line(err.Error())))
}

// rawContent is one content item of an upstream result, re-emitted as the
// server sent it whatever its type, including types the SDK does not know.
// The embedded TextContent only makes it an mcp.Content (whose methods
// include an unexported one); it is never encoded.
type rawContent struct {
	*mcp.TextContent
	raw json.RawMessage
}

func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }

// passthrough rebuilds an upstream result for the SDK to send: content
// items and structuredContent as raw JSON, isError, and _meta key by key
// (each value raw). Other top-level fields of the result are dropped: the
// SDK's CallToolResult has no place for them.
//
// The SDK encodes the result with encoding/json, which compacts raw values
// and escapes <, > and & in their strings as \u003c, \u003e and \u0026 (and
// U+2028, U+2029 likewise): the JSON values are the upstream's, not always
// its bytes.
func passthrough(res *catalog.Result) (*mcp.CallToolResult, error) {
	var raw struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(res.Raw, &raw); err != nil {
		return nil, fmt.Errorf("the server sent an invalid result: %w", err)
	}
	out := &mcp.CallToolResult{IsError: res.IsError, Content: make([]mcp.Content, 0, len(res.Content))}
	for _, c := range res.Content {
		out.Content = append(out.Content, rawContent{TextContent: &mcp.TextContent{}, raw: c})
	}
	if len(res.Structured) > 0 {
		out.StructuredContent = res.Structured
	}
	if len(raw.Meta) > 0 {
		out.Meta = make(mcp.Meta, len(raw.Meta))
		for k, v := range raw.Meta {
			out.Meta[k] = v
		}
	}
	return out, nil
}
