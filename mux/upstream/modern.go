package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
)

// Modern is the protocol revision spoken without the initialize handshake:
// every request carries the client's protocol version, capabilities and
// identity in its _meta, and over HTTP mirrors its method and name into
// headers.
const Modern = mcp.LATEST_PROTOCOL_VERSION

// ErrUnsupportedResult is the cause of the error a request gets when the
// server answers with a resultType mcp does not handle.
var ErrUnsupportedResult = errors.New("mcp does not handle this resultType")

// modern is what a connection on 2026-07-28 adds to each request.
type modern struct {
	revision string
	meta     map[string]json.RawMessage // the keys every request's _meta carries
}

func newModern(revision string, caps mcp.ClientCapabilities, opts Options) *modern {
	return &modern{revision: revision, meta: requestMeta(revision, caps, opts)}
}

// requestMeta is the _meta of 2026-07-28 for a request of revision: its
// protocol version, our capabilities and who we are.
func requestMeta(revision string, caps mcp.ClientCapabilities, opts Options) map[string]json.RawMessage {
	enc := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	return map[string]json.RawMessage{
		mcp.MetaKeyProtocolVersion:    enc(revision),
		mcp.MetaKeyClientCapabilities: enc(caps),
		mcp.MetaKeyClientInfo:         enc(mcp.Implementation{Name: opts.ClientName, Version: opts.ClientVersion}),
	}
}

// addMeta adds the request's _meta: keys the caller set are kept, ours win.
func (m *modern) addMeta(req *transport.JSONRPCRequest) error {
	fields := map[string]json.RawMessage{}
	if req.Params != nil {
		raw, err := json.Marshal(req.Params)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return fmt.Errorf("%s: params are not an object: %w", req.Method, err)
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	for k, v := range m.meta {
		meta[k] = v
	}
	fields["_meta"], _ = json.Marshal(meta)
	req.Params = fields
	return nil
}

// complete checks a result's resultType: missing or "complete" is a
// result, and so is "input_required" of a tools/call, which requestRounds
// answers (mrtr.go); anything else is refused with ErrUnsupportedResult,
// naming the resultType without the secrets text takes out.
func (m *modern) complete(server, method string, result json.RawMessage, text func(string) string) (json.RawMessage, error) {
	var r struct {
		ResultType mcp.ResultType `json:"resultType"`
	}
	if err := decodeResult(server, method, result, &r); err != nil {
		return nil, err
	}
	switch r.ResultType {
	case "", mcp.ResultTypeComplete:
		return result, nil
	case mcp.ResultTypeInputRequired:
		if method == string(mcp.MethodToolsCall) {
			return result, nil
		}
	}
	return nil, fmt.Errorf("%s: server %s answered with resultType %q: %w",
		method, server, printable(text(string(r.ResultType)), 64), ErrUnsupportedResult)
}

// reissuable says whether a request whose response stream broke may be
// sent again: 2026-07-28 does not resume streams, and only requests that
// change nothing are safe to repeat. A tools/call is never repeated: the
// tool may have run.
func reissuable(method string) bool {
	switch method {
	case string(mcp.MethodToolsList), string(mcp.MethodServerDiscover):
		return true
	}
	return false
}

// validHeaderTools drops, with one warning each, the tools whose
// x-mcp-header annotations break the rules of 2026-07-28: such a tool is
// not offered on any connection, so that list, call, search, run and serve
// agree.
func (u *conn) validHeaderTools(tools []catalog.Tool) []catalog.Tool {
	return slices.DeleteFunc(tools, func(t catalog.Tool) bool {
		if !bytes.Contains(t.InputSchema, []byte("x-mcp-header")) {
			return false
		}
		err := mcp.ValidateParamHeaderAnnotations(&mcp.Tool{Name: t.Name, RawInputSchema: t.InputSchema})
		if err != nil {
			u.log.Warn("not offering a tool whose x-mcp-header annotations are invalid", "tool", t.Name, "err", err)
			u.warnTool(t.Name, err)
		}
		return err != nil
	})
}

// discover is the start of a connection on 2026-07-28: server/discover,
// which must name the revision among the server's.
func (u *conn) discover(ctx context.Context) error {
	raw, err := u.request(ctx, string(mcp.MethodServerDiscover), map[string]any{})
	if err != nil {
		return err
	}
	var res struct {
		mcp.DiscoverResult
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := decodeResult(u.server, string(mcp.MethodServerDiscover), raw, &res); err != nil {
		return err
	}
	if !slices.Contains(res.SupportedVersions, u.modern.revision) {
		return fmt.Errorf("server/discover: the server supports %v, not %s", res.SupportedVersions, u.modern.revision)
	}
	// What the server says of itself is kept without the connection's
	// secrets, before anything else sees it.
	u.instructions = u.secret.Text(res.Instructions)
	u.listChanged = res.Capabilities.Tools != nil && res.Capabilities.Tools.ListChanged
	u.serverCaps = res.Capabilities
	u.logging = res.Capabilities.Logging != nil
	u.log.Debug("discovered", "protocol", u.modern.revision, "serverInfo", u.secret.Text(string(res.Meta[mcp.MetaKeyServerInfo])))
	return nil
}

// listenRetry is the pause before a subscriptions/listen stream that ended
// is opened again.
const listenRetry = time.Second

// listen keeps a subscriptions/listen stream open for tools/list_changed,
// which on 2026-07-28 arrives only on one. A stream that ends is opened
// again, and the tools listed again since a change may have been missed; a
// server that refuses the request is not asked again.
func (u *conn) listen() {
	params := map[string]any{"notifications": mcp.SubscriptionFilter{ToolsListChanged: true}}
	for again := false; ; again = true {
		if again {
			u.toolsChanged()
		}
		_, err := u.request(u.life, string(mcp.MethodSubscriptionsListen), params)
		var rpc *RPCError
		if u.life.Err() != nil || errors.As(err, &rpc) {
			if err != nil && u.life.Err() == nil {
				u.log.Debug("subscriptions/listen refused", "err", err)
			}
			return
		}
		select {
		case <-u.life.Done():
			return
		case <-u.dead:
			return
		case <-time.After(listenRetry):
		}
	}
}

// CacheHint is what a 2026-07-28 server says of how long a list may be
// reused: TTL nil when it does not say (ttlMs), Scope its cacheScope.
type CacheHint struct {
	TTL   *time.Duration
	Scope string
}

// maxHintTTL bounds a server's ttlMs: a list is looked at again at least
// daily whatever the server says.
const maxHintTTL = 24 * time.Hour

func (u *conn) setHint(ttlMs *int64, scope string) {
	h := CacheHint{Scope: printable(u.secret.Text(scope), 32)}
	if ttlMs != nil {
		d := time.Duration(max(0, min(*ttlMs, int64(maxHintTTL/time.Millisecond)))) * time.Millisecond
		h.TTL = &d
	}
	u.mu.Lock()
	u.hint = h
	u.mu.Unlock()
}

// CacheHint implements Conn.
func (u *conn) CacheHint() CacheHint {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.hint
}
