package toolsmode

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/mux/upstream"
)

// Relay carries what upstream servers send for a person to the client of
// a Server: their requests for input (elicitation/create) and their log
// messages. The engine's connections are made before the client is there,
// so a Relay is made first, its hooks go into the engine's upstream
// options (Upstream), and the Server attaches its client session while it
// serves (Options.Relay). A Server with a Relay declares logging.
type Relay struct {
	mu     sync.Mutex
	ss     *mcp.ServerSession // nil while no client is served
	served attachment         // the Server's, while ss is served
	logs   chan upstream.LogMessage
	queued atomic.Int64 // bytes of data in logs
	levels *upstream.LogLevel
}

// Bounds on the log messages that wait for a slow client, past which more
// are dropped: how many, and how many bytes of data (a message may be as
// large as a server's message may).
const (
	logQueue      = 256
	logQueueBytes = 8 << 20
)

// NewRelay returns a Relay with no client yet: until a Server serving one
// attaches it, upstream requests are answered by the connections' rule
// and log messages are dropped.
func NewRelay() *Relay {
	return &Relay{logs: make(chan upstream.LogMessage, logQueue), levels: &upstream.LogLevel{}}
}

// Upstream returns o with the relay's hooks set.
func (r *Relay) Upstream(o upstream.Options) upstream.Options {
	o.RelayElicitation = r.elicit
	o.OnLog = r.log
	o.LogLevel = r.levels
	return o
}

// attachment is what the Server serving a client gives its Relay.
type attachment struct {
	// ours is the client's id of a server's task, when the client started
	// it through the task relay.
	ours func(server, upstreamID string) (string, bool)
	// rounds carries requests for input to a client on 2026-07-28.
	rounds *rounds
	// hold stops the time limits of the calls in flight until release.
	hold func() (release func())
}

// attach serves ss until the function returned is called; the log
// messages queued meanwhile go to it on a goroutine that the function
// stops and waits for.
func (r *Relay) attach(ss *mcp.ServerSession, a attachment) (detach func()) {
	r.mu.Lock()
	r.ss, r.served = ss, a
	r.mu.Unlock()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-r.logs:
				r.queued.Add(-int64(len(m.Data)))
				_ = ss.Log(ctx, &mcp.LoggingMessageParams{
					Level: mcp.LoggingLevel(m.Level), Logger: loggerName(m), Data: m.Data})
			}
		}
	}()
	return func() {
		r.mu.Lock()
		r.ss, r.served = nil, attachment{}
		r.mu.Unlock()
		stop()
		<-done
	}
}

// log queues an upstream's log message for the client. It runs on the
// upstream transport's read goroutine, so it never waits: with no client,
// or a client too slow to take them, messages are dropped.
func (r *Relay) log(m upstream.LogMessage) {
	if r.session() == nil {
		return
	}
	n := int64(len(m.Data))
	if r.queued.Add(n) > logQueueBytes {
		r.queued.Add(-n)
		return
	}
	select {
	case r.logs <- m:
	default:
		r.queued.Add(-n)
	}
}

// loggerName is the logger a message reaches the client under: the
// server's id, followed by "/" and the server's own logger when it named
// one.
func loggerName(m upstream.LogMessage) string {
	if m.Logger == "" {
		return m.Server
	}
	return m.Server + "/" + m.Logger
}

// setLevel passes the client's logging/setLevel on to the servers.
func (r *Relay) setLevel(level string) { r.levels.Set(level) }

func (r *Relay) session() *mcp.ServerSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ss
}

// elicit is the upstream.ElicitRelay: a request goes to the client when
// the client declared elicitation in the request's mode (form, or url);
// otherwise the connection's rule answers it. The server's message and
// schema are passed on as data, the schema as the server sent it, and the
// message after the server's id (namedMessage): the client shows it as
// mcp's.
func (r *Relay) elicit(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, bool, error) {
	ss := r.session()
	if ss == nil {
		return nil, false, nil
	}
	var p mcp.ElicitParams
	var raw struct {
		RequestedSchema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(params, &raw) != nil {
		return nil, false, nil
	}
	if len(raw.RequestedSchema) > 0 {
		p.RequestedSchema = raw.RequestedSchema
	}
	p.Message = namedMessage(server, p.Message)
	p.Meta = r.taskMeta(server, p.Meta)
	r.mu.Lock()
	served := r.served
	r.mu.Unlock()
	stateless := ss.InitializeParams() != nil && ss.InitializeParams().ProtocolVersion >= statelessRevision
	if stateless && served.rounds == nil || !stateless && !canElicit(ss, p.Mode) {
		return nil, false, nil
	}
	// A person's time is no call's silence; which call the request is
	// for, nothing says.
	if served.hold != nil {
		defer served.hold()()
	}
	if stateless {
		return served.rounds.ask(ctx, server, &p)
	}
	res, err := ss.Elicit(ctx, &p)
	if err != nil {
		return nil, true, err
	}
	out, err := json.Marshal(res)
	return out, true, err
}

// namedMessage is a server's message for a person as a client of mcp
// serve shows it, under mcp's name: after the id of the server that asks,
// which no message can leave out ("github: Re-enter your password").
func namedMessage(server, message string) string {
	return server + ": " + message
}

// canElicit says whether the client declared elicitation in mode ("" is
// form). A client that declares elicitation without a mode takes forms,
// as the protocol says for clients older than the modes. A client on a
// revision without the handshake takes requests for input only inside
// results (multi-round-trip requests), which are not relayed.
func canElicit(ss *mcp.ServerSession, mode string) bool {
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.ProtocolVersion >= statelessRevision {
		return false
	}
	caps := ip.Capabilities.Elicitation
	switch mode {
	case "", "form":
		return caps.Form != nil || caps.URL == nil
	case "url":
		return caps.URL != nil
	}
	return false
}

// taskMeta is a request's _meta with the task it belongs to named as the
// client knows it: by the client's id when the client started the task
// through the task relay, and not at all when the task is the
// connection's own (a plain call of a tool that runs as a task upstream).
// A client that keeps tasks files its answer to a task's request under
// that task, so an id it does not know would lose the answer.
func (r *Relay) taskMeta(server string, meta mcp.Meta) mcp.Meta {
	related, ok := meta[relatedTaskKey]
	if !ok {
		return meta
	}
	out := maps.Clone(meta)
	delete(out, relatedTaskKey)
	var t struct {
		TaskID string `json:"taskId"`
	}
	b, _ := json.Marshal(related)
	r.mu.Lock()
	ours := r.served.ours
	r.mu.Unlock()
	if json.Unmarshal(b, &t) == nil && t.TaskID != "" && ours != nil {
		if id, ok := ours(server, t.TaskID); ok {
			out[relatedTaskKey] = map[string]string{"taskId": id}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
