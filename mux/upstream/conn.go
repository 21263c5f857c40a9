package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// ErrClosed is the cause of the UnavailableError a request gets after Close.
var ErrClosed = errors.New("connection closed")

const (
	// maxListPages bounds how many tools/list pages one ListTools follows.
	maxListPages = 1000
	// cancelTimeout bounds sending a notifications/cancelled.
	cancelTimeout = 5 * time.Second
	// exitReasonWait is how long a request whose transport closed waits for
	// the reason (exit status, stderr) before giving a generic one.
	exitReasonWait = 2 * time.Second
)

// conn is a live connection to one MCP server; it implements Conn.
type conn struct {
	server string
	kind   manifests.Transport
	log    *slog.Logger
	c      *client.Client
	tr     transport.Interface
	proc   *process // stdio only
	rt     *roundTripper
	secret *redact.Set // what must never appear in an error
	maxMsg int64
	// instructions are the server's, from initialize; set before Connect
	// returns.
	instructions string
	// revision is the protocol revision in use, set before Connect
	// returns; modern is set when it is 2026-07-28 (modern.go), and
	// listChanged when that server says its tool list may change.
	revision    string
	modern      *modern
	listChanged bool
	// serverCaps are what the server declared, at initialize or
	// server/discover.
	serverCaps mcp.ServerCapabilities
	// params, set on streamable HTTP, names the arguments that travel in
	// headers (headers.go).
	params *paramHeaders

	elicit   ElicitationPolicy
	onElicit func(Elicitation)
	relay    ElicitRelay
	calls    callsInFlight // the calls a relayed request for input ends with
	floods   floodGate     // requests for input told once, then counted

	// Logs: the server's messages go to onLogMsg and the calls listening
	// (sinks); levels is the level shared with the engine's connections,
	// sent when the server declares logging.
	onLogMsg  func(LogMessage)
	sinks     logSinks
	levels    *LogLevel
	logging   bool // the server declares logging; set before Connect returns
	levelMu   sync.Mutex
	levelSent string
	onWarn    func(string)
	warned    sync.Map // tools warned about
	// reply sends a JSON-RPC response to the server; set for SSE, whose
	// mcp-go transport leaves requests from the server unanswered.
	reply func(ctx context.Context, msg []byte) error

	waiting sync.Map // string id -> waiter: our requests waiting for a reply (replies.go)

	life   context.Context // lives until Close; the transports' Start context
	cancel context.CancelFunc
	nextID atomic.Int64

	mu        sync.Mutex
	wg        sync.WaitGroup
	closing   chan struct{}
	isClosing bool
	dead      chan struct{} // closed once the connection cannot be used
	deadErr   error
	onChanged []func()
	progress  map[string]*progressSink // by progress token, while its call runs
	hint      CacheHint
	changed   chan struct{}
	tasks     taskWatch // calls following a task
	closeOnce sync.Once
	closeErr  error
}

var _ Conn = (*conn)(nil)

func newConn(ctx context.Context, server string, kind manifests.Transport, opts Options) *conn {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	u := &conn{
		server:   server,
		kind:     kind,
		log:      opts.Logger.With("server", server),
		maxMsg:   opts.MaxMessageBytes,
		elicit:   opts.Elicitation,
		onElicit: opts.OnElicitation,
		relay:    opts.RelayElicitation,
		onLogMsg: opts.OnLog,
		levels:   opts.LogLevel,
		onWarn:   opts.OnWarning,
		life:     life,
		cancel:   cancel,
		closing:  make(chan struct{}),
		dead:     make(chan struct{}),
		changed:  make(chan struct{}, 1),
	}
	u.floods.summary = u.floodSummary
	u.floods.first = map[string]int{floodKindTool: 10, floodKindURL: 10, floodKindInvalid: 10}
	u.goOwned(u.dispatchChanges)
	return u
}

// capabilities are what the connection declares: form elicitation, which
// Elicit answers, and URL elicitation too when requests for input are
// relayed, for a client that can open one.
func (u *conn) capabilities() mcp.ClientCapabilities { return declared(u.relay != nil) }

func declared(relay bool) mcp.ClientCapabilities {
	elicit := &mcp.ElicitationCapability{Form: &struct{}{}}
	if relay {
		elicit.URL = &struct{}{}
	}
	return mcp.ClientCapabilities{Elicitation: elicit}
}

// Declared is what the connections made with o declare to their servers,
// as JSON. A server may list other tools for other declarations
// (server-everything offers trigger-url-elicitation only to a client that
// declares URL elicitation), so a tool list is only as good as the
// declaration it was obtained with.
func (o Options) Declared() string {
	b, _ := json.Marshal(declared(o.RelayElicitation != nil))
	return string(b)
}

// newClient is the mcp-go client of the connection over tr.
func (u *conn) newClient(tr transport.Interface) *client.Client {
	return client.NewClient(tr,
		client.WithProtocolVersion(protocolVersion),
		client.WithClientCapabilities(u.capabilities()),
		client.WithElicitationHandler(u))
}

// Elicit answers a server's request for input: with the relay's answer
// when Options.RelayElicitation relays it, otherwise at once, as
// Options.Elicitation says. It implements client.ElicitationHandler.
func (u *conn) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if u.relay != nil {
		if res, ok, err := u.relayElicitation(ctx, req.Params); ok {
			return res, err
		}
	}
	res, ev := answerElicitation(u.elicit, req.Params)
	ev.Server = u.server
	// What is shown of the request goes without the connection's secrets,
	// taken out before the message is cut.
	ev.Message = printable(u.secret.Text(req.Params.Message), maxElicitText)
	for i, f := range ev.Fields {
		ev.Fields[i] = u.secret.Text(f)
	}
	ev.Reason = u.secret.Text(ev.Reason)
	if !u.floods.admit(ev.Action) {
		return res, nil
	}
	u.log.Info("answered a request for input", "mode", ev.Mode, "action", ev.Action, "fields", ev.Fields, "reason", ev.Reason)
	if u.onElicit != nil {
		u.onElicit(ev)
	}
	return res, nil
}

// Transport says how the connection was made; after the fallback of a url
// without type it is TransportHTTP or TransportSSE.
func (u *conn) Transport() manifests.Transport { return u.kind }

// Done is closed once the connection can no longer be used: the server
// exited, the stream broke, or Close was called. Calls then fail at once
// with *UnavailableError.
func (u *conn) Done() <-chan struct{} { return u.dead }

// PID is the stdio server's process id; 0 for the other transports.
// Instructions implements Conn.
func (u *conn) Instructions() string { return u.instructions }

// ProtocolVersion implements Conn.
func (u *conn) ProtocolVersion() string { return u.revision }

func (u *conn) PID() int {
	if u.proc == nil {
		return 0
	}
	return u.proc.pid
}

// OnToolsChanged registers f to run after the server says its tool list
// changed. Bursts are coalesced, and f runs on a goroutine of its own, so it
// may call ListTools.
func (u *conn) OnToolsChanged(f func()) {
	u.mu.Lock()
	u.onChanged = append(u.onChanged, f)
	u.mu.Unlock()
}

// goOwned runs f on a goroutine that Close waits for. After Close it does nothing.
func (u *conn) goOwned(f func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.isClosing {
		return
	}
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		f()
	}()
}

func (u *conn) dispatchChanges() {
	for {
		select {
		case <-u.life.Done():
			return
		case <-u.changed:
		}
		u.mu.Lock()
		fs := slices.Clone(u.onChanged)
		u.mu.Unlock()
		for _, f := range fs {
			f()
		}
	}
}

// onNotification runs on the transport's read goroutine: it must not block.
func (u *conn) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case mcp.MethodNotificationToolsListChanged:
		u.toolsChanged()
	case mcp.MethodNotificationTasksStatus:
		u.tasks.deliver(n)
	case string(mcp.MethodNotificationProgress):
		u.onProgress(n)
	case "notifications/message":
		u.onLog(n.Params)
	}
}

// toolsChanged has the tools-changed callbacks run; bursts are coalesced.
func (u *conn) toolsChanged() {
	select {
	case u.changed <- struct{}{}:
	default:
	}
}

// warnTool tells Options.OnWarning, once per tool, why a tool is not offered.
func (u *conn) warnTool(name string, err error) {
	if _, seen := u.warned.LoadOrStore(name, true); seen || u.onWarn == nil {
		return
	}
	u.onWarn(fmt.Sprintf("%s.%s is not offered: %s", u.server, printable(u.secret.Text(name), 64), u.secret.Text(err.Error())))
}

// setDead records why the connection became unusable; the first reason wins.
func (u *conn) setDead(err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.deadErr == nil {
		u.deadErr = err
		close(u.dead)
	}
}

func (u *conn) deadReason() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.deadErr
}

func (u *conn) unavailable(err error) *UnavailableError {
	return &UnavailableError{Server: u.server, Err: err}
}

// reqState travels in a request's context to the HTTP round tripper, which
// records a response that broke a limit (ErrMessageTooLarge or
// ErrMessageTooDeep).
// ctx is the caller's: a request the server sends on the stream of this
// request's response belongs to it.
type reqState struct {
	broke atomic.Pointer[error]
	ctx   context.Context
}

type reqStateKey struct{}

// request sends one JSON-RPC request through the transport, bypassing the
// typed client so that the result comes back byte for byte.
func (u *conn) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := u.deadReason(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, u.contextError(ctx, method)
	}
	resp, err := u.send(ctx, method, params)
	var invalid *InvalidReplyError
	if err != nil && u.modern != nil && u.params != nil && reissuable(method) && ctx.Err() == nil && !isLimit(err) && !errors.As(err, &invalid) && u.deadReason() == nil {
		// 2026-07-28 resumes no stream: a request whose stream broke is
		// sent again, with a new id, when that is safe.
		u.log.Debug("the response stream broke; sending the request again", "method", method, "err", err)
		resp, err = u.send(ctx, method, params)
	}
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		// What the server says comes back without this connection's secrets.
		e := &RPCError{Code: resp.Error.Code, Message: u.secret.Text(resp.Error.Message)}
		if resp.Error.Data != nil {
			data, _ := json.Marshal(resp.Error.Data)
			e.Data = json.RawMessage(u.secret.Text(string(data)))
		}
		return nil, e
	}
	if u.modern != nil {
		return u.modern.complete(u.server, method, resp.Result, u.secret.Text)
	}
	return resp.Result, nil
}

// send sends one request under a new id and waits for its response.
func (u *conn) send(ctx context.Context, method string, params any) (*transport.JSONRPCResponse, error) {
	// String ids never clash with the typed client's integer ones.
	key := "mcp-" + strconv.FormatInt(u.nextID.Add(1), 10)
	id := mcp.NewRequestId(key)
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params}
	if u.modern != nil {
		if err := u.modern.addMeta(&req); err != nil {
			return nil, err
		}
	}
	if u.params != nil {
		u.addHeaders(ctx, &req)
	}
	st := &reqState{ctx: ctx}
	resp, err := u.sendWatched(context.WithValue(ctx, reqStateKey{}, st), key, req)
	var invalid *InvalidReplyError
	if errors.As(err, &invalid) {
		return nil, err
	}
	if err != nil {
		if ctx.Err() != nil {
			u.sendCancelled(id, context.Cause(ctx))
			return nil, u.contextError(ctx, method)
		}
		return nil, u.transportError(method, err, st)
	}
	return resp, nil
}

// isLimit says err is a message that broke a size or nesting limit.
func isLimit(err error) bool {
	return errors.Is(err, ErrMessageTooLarge) || errors.Is(err, ErrMessageTooDeep)
}

// contextError: a deadline is the server failing to answer in time; a
// cancellation is the caller's choice and is returned as it is.
func (u *conn) contextError(ctx context.Context, method string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return u.unavailable(fmt.Errorf("%s: no answer before the deadline: %w", method, ctx.Err()))
	}
	return fmt.Errorf("%s: %w", method, ctx.Err())
}

// limitError says which limit a message broke.
func (u *conn) limitError(err error) error {
	if errors.Is(err, ErrMessageTooLarge) {
		return fmt.Errorf("%w (%d bytes)", ErrMessageTooLarge, u.maxMsg)
	}
	return err
}

func (u *conn) transportError(method string, err error, st *reqState) error {
	if broke := st.broke.Load(); broke != nil {
		return u.unavailable(fmt.Errorf("%s: %w", method, u.limitError(*broke)))
	}
	if dead := u.deadReason(); dead != nil {
		return dead
	}
	// Over stdio any failure to send or receive means the pipes broke.
	if u.proc != nil || errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, transport.ErrSessionTerminated) {
		// The server went away; the stdio exit watcher knows why.
		if u.proc != nil && waitChan(u.dead, exitReasonWait) {
			return u.deadReason()
		}
		u.setDead(u.unavailable(u.redact(fmt.Errorf("%s: %w", method, err))))
		return u.deadReason()
	}
	return u.unavailable(u.redact(fmt.Errorf("%s: %w", method, refusedRedirect(err))))
}

// sendCancelled tells the server to stop working on request id. On stdio
// this is the only way; over HTTP the transport also drops the request, and
// the spec asks clients to say so explicitly.
func (u *conn) sendCancelled(id mcp.RequestId, cause error) {
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{
				"requestId": id,
				"reason":    cause.Error(),
			}},
		},
	}
	u.goOwned(func() {
		ctx, cancel := context.WithTimeout(u.life, cancelTimeout)
		defer cancel()
		if err := u.tr.SendNotification(ctx, n); err != nil {
			u.log.Debug("sending notifications/cancelled failed", "err", err)
		}
	})
}

// ListTools returns every tool the server lists, following nextCursor. It
// stops early, with what it has, if the server repeats a cursor.
func (u *conn) ListTools(ctx context.Context) ([]catalog.Tool, error) {
	var tools []catalog.Tool
	seen := map[string]bool{}
	cursors := map[string]bool{}
	params := map[string]any{}
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("tools/list: server %s sent more than %d pages", u.server, maxListPages)
		}
		raw, err := u.request(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
			TTLMs      *int64            `json:"ttlMs"`
			CacheScope string            `json:"cacheScope"`
		}
		if err := decodeResult(u.server, "tools/list", raw, &res); err != nil {
			return nil, err
		}
		if page == 0 {
			u.setHint(res.TTLMs, res.CacheScope)
		}
		for i, r := range res.Tools {
			if u.capped(tools, true) {
				break
			}
			if problem := invalidTool(r); problem != "" {
				u.warnInvalid(page, i, r, problem)
				continue
			}
			t, ok := u.decodeTool(r)
			if !ok {
				continue
			}
			if seen[t.Name] {
				u.log.Warn("skipping a tool listed twice", "tool", t.Name)
				continue
			}
			seen[t.Name] = true
			tools = append(tools, t)
		}
		if res.NextCursor == nil || *res.NextCursor == "" || u.capped(tools, true) {
			return u.listed(tools), nil
		}
		next := *res.NextCursor
		if cursors[next] {
			u.log.Warn("tools/list repeated a cursor; stopping", "cursor", next)
			return u.listed(tools), nil
		}
		cursors[next] = true
		params = map[string]any{"cursor": next}
	}
}

// listed is a complete listing: without the tools whose x-mcp-header
// annotations are invalid, and remembered for the headers of tools/call.
func (u *conn) listed(tools []catalog.Tool) []catalog.Tool {
	tools = u.validHeaderTools(tools)
	if u.params != nil {
		u.params.remember(tools)
	}
	return tools
}

// CallTool calls one tool and returns its result as the server sent it. A
// result with isError is a successful call; a JSON-RPC error is *RPCError.
// A tool that requires a task (WithTaskSupport) is called as one and
// followed to its end; see callTask.
// The call's hooks (HooksOf(ctx)) give its _meta and receive its progress.
func (u *conn) CallTool(ctx context.Context, name string, args json.RawMessage) (*catalog.Result, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(args, &probe); err != nil || probe == nil {
		return nil, fmt.Errorf("arguments for %s must be a JSON object", name)
	}
	defer u.calls.begin()()
	if onLog := HooksOf(ctx).OnLog; onLog != nil {
		u.askForLogs(ctx)
		defer u.sinks.listen(onLog)()
	}
	if u.needsListing(ctx) {
		// Arguments that travel in Mcp-Param-* headers are named by the
		// tool's schema, as this connection has listed it.
		if _, err := u.ListTools(ctx); err != nil {
			return nil, err
		}
	}
	params := map[string]any{"name": name, "arguments": args}
	meta, sink := u.callMeta(HooksOf(ctx))
	defer sink.stop()
	if meta != nil {
		params["_meta"] = meta
	}
	if u.asTask(ctx) {
		return u.callTask(ctx, name, params, sink)
	}
	raw, err := u.requestRounds(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	return u.callResult(name, raw)
}

// Close ends the connection. For stdio it closes the server's stdin, waits
// briefly, then stops its whole process group (SIGTERM, then SIGKILL) and
// reaps it. It is safe to call more than once.
func (u *conn) Close() error {
	u.closeOnce.Do(func() {
		u.mu.Lock()
		u.isClosing = true
		close(u.closing)
		u.mu.Unlock()
		u.setDead(u.unavailable(ErrClosed))
		u.tasks.close()
		if u.levels != nil {
			u.levels.leave(u)
		}
		u.cancel()
		if u.c != nil {
			if err := u.c.Close(); err != nil {
				u.log.Debug("closing the transport", "err", err)
			}
		}
		if u.proc != nil {
			u.closeErr = u.proc.stop()
		}
		if u.rt != nil {
			u.rt.closeIdle()
		}
		u.wg.Wait()
		u.floods.close()
	})
	return u.closeErr
}

// httpStatusText is "HTTP 403 Forbidden".
func httpStatusText(code int) string {
	return fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
}
