package toolsmode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/idle"
)

// A client on 2026-07-28 takes a server's requests for input only inside
// results (multi-round-trip requests, SEP-2322): a tools/call is answered
// "input required" with the requests and a requestState, and the client
// makes the call again with its answers and that state. rounds carries an
// upstream's requests for input to such a client that way: the upstream
// call runs on between the client's rounds, its requests for input wait
// for the client's answers, and the round that finds the call's result
// returns it.
type rounds struct {
	mu    sync.Mutex
	calls map[string]*roundCall // by requestState
	order []*roundCall          // the same, oldest first
	away  time.Duration         // how long a call waits for the client; 0 is roundWait
}

// Bounds: how many calls of the client may run this way at once, how many
// requests for input one call may have waiting, and how long a call waits
// for the client to come back with its answers before it is cancelled.
const (
	maxRoundCalls = 64
	maxRoundAsks  = 16
	roundWait     = 10 * time.Minute
)

// errRoundsFull is why a call is not made in rounds.
var errRoundsFull = errors.New("too many calls are waiting for the client's input")

// roundCall is one upstream call made in rounds.
type roundCall struct {
	server  string
	state   string               // the requestState that names it
	modes   elicitModes          // what the client declared it can be asked
	cancel  context.CancelFunc   // ends the upstream call
	done    chan struct{}        // closed when the upstream call has returned
	res     *mcp.CallToolResult  // its result, once done
	asks    chan *roundAsk       // requests for input not yet carried
	mu      sync.Mutex           // guards below
	callCtx context.Context      // the upstream call's, whose clock a request for input holds
	open    map[string]*roundAsk // carried to the client, by input request id
	next    int
	timer   *time.Timer // runs while the client is away
}

// roundAsk is one upstream request for input.
type roundAsk struct {
	params *mcp.ElicitParams
	answer chan json.RawMessage // the client's answer, an elicitation result
}

// elicitModes are the modes of elicitation a client declared.
type elicitModes struct{ form, url bool }

func (m elicitModes) takes(mode string) bool {
	switch mode {
	case "", "form":
		return m.form
	case "url":
		return m.url
	}
	return false
}

// modesOf reads what a client declared of elicitation, as canElicit does.
func modesOf(caps *mcp.ClientCapabilities) elicitModes {
	if caps == nil || caps.Elicitation == nil {
		return elicitModes{}
	}
	e := caps.Elicitation
	return elicitModes{form: e.Form != nil || e.URL == nil, url: e.URL != nil}
}

// start makes call, the upstream call, under a context of life's, and
// records it. call's ctx ends when the call is cancelled; call passes the
// context it calls under to made, so that requests for input hold its
// clock (--timeout) while the client is away.
func (r *rounds) start(life context.Context, server string, modes elicitModes, call func(ctx context.Context, made func(context.Context)) *mcp.CallToolResult) (*roundCall, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	ctx, cancel := context.WithCancel(life)
	c := &roundCall{server: server, state: "mcp-" + hex.EncodeToString(b), modes: modes, cancel: cancel,
		done: make(chan struct{}), asks: make(chan *roundAsk, maxRoundAsks), open: map[string]*roundAsk{}}
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[string]*roundCall{}
	}
	if len(r.calls) >= maxRoundCalls {
		r.mu.Unlock()
		cancel()
		return nil, errRoundsFull
	}
	r.calls[c.state] = c
	r.order = append(r.order, c)
	r.mu.Unlock()
	go func() {
		c.res = call(ctx, func(callCtx context.Context) {
			c.mu.Lock()
			c.callCtx = callCtx
			c.mu.Unlock()
		})
		close(c.done)
	}()
	return c, nil
}

// resume finds the call a requestState names, for a round of the client
// that calls a tool of server, and stops its clock.
func (r *rounds) resume(state, server string) *roundCall {
	r.mu.Lock()
	c := r.calls[state]
	r.mu.Unlock()
	if c == nil || c.server != server {
		return nil
	}
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	return c
}

// answer hands the client's answers to the requests they answer. An
// answer to no open request is refused.
func (c *roundCall) answer(responses mcp.InputResponseMap) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	answers := make(map[string]json.RawMessage, len(responses))
	for id, resp := range responses {
		if c.open[id] == nil {
			return errors.New("the input responses answer a request that is not open: " + clip.Runes(strconv.Quote(id), 80))
		}
		res, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return errors.New("the input response " + strconv.Quote(id) + " is not an elicitation result")
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return err
		}
		answers[id] = raw
	}
	// All or none: a round with one bad answer changes nothing.
	for id, raw := range answers {
		c.open[id].answer <- raw
		delete(c.open, id)
	}
	return nil
}

// wait waits for the call's result, or for requests for input to carry to
// the client, which end the round. A round the client gives up on ends
// the call.
func (r *rounds) wait(ctx context.Context, c *roundCall) (*mcp.CallToolResult, error) {
	select {
	case <-c.done:
		r.forget(c)
		return c.res, nil
	case a := <-c.asks:
		reqs := mcp.InputRequestMap{}
		c.mu.Lock()
		for {
			c.next++
			id := "input-" + strconv.Itoa(c.next)
			c.open[id] = a
			reqs[id] = a.params
			select {
			case a = <-c.asks:
				continue
			default:
			}
			break
		}
		away := r.away
		if away == 0 {
			away = roundWait
		}
		c.timer = time.AfterFunc(away, func() { r.drop(c) })
		c.mu.Unlock()
		return &mcp.CallToolResult{InputRequests: reqs, RequestState: c.state}, nil
	case <-ctx.Done():
		r.drop(c)
		return nil, ctx.Err()
	}
}

// ask carries a request for input of server's to the client, through the
// oldest call to server in rounds that is running and whose client takes
// the request's mode, and returns the client's answer. ok is false when
// no such call is running, or it has as many requests waiting as it may.
func (r *rounds) ask(ctx context.Context, server string, p *mcp.ElicitParams) (answer json.RawMessage, ok bool, err error) {
	r.mu.Lock()
	var c *roundCall
	for _, rc := range r.order {
		if rc.server == server && rc.modes.takes(p.Mode) && !isDone(rc.done) {
			c = rc
			break
		}
	}
	r.mu.Unlock()
	if c == nil {
		return nil, false, nil
	}
	a := &roundAsk{params: p, answer: make(chan json.RawMessage, 1)}
	select {
	case c.asks <- a:
	default:
		return nil, false, nil
	}
	// The person's time is not the call's silence.
	c.mu.Lock()
	callCtx := c.callCtx
	c.mu.Unlock()
	if callCtx != nil {
		defer idle.Hold(callCtx)()
	}
	select {
	case raw := <-a.answer:
		return raw, true, nil
	case <-c.done:
		return nil, true, errors.New("the call ended before the client answered")
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// drop ends a call the client is no longer in: its upstream call is
// cancelled, which ends its requests for input.
func (r *rounds) drop(c *roundCall) {
	r.forget(c)
	c.cancel()
}

func (r *rounds) forget(c *roundCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls[c.state] != c {
		return
	}
	delete(r.calls, c.state)
	for i, rc := range r.order {
		if rc == c {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
