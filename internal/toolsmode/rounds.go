package toolsmode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsh/mcp/internal/clip"
)

// A client on 2026-07-28 takes a server's requests for input only inside
// results (multi-round-trip requests, SEP-2322): a tools/call is answered
// "input required" with the requests and a requestState, and the client
// makes the call again with its answers and that state. rounds carries an
// upstream's requests for input to such a client that way: the upstream
// call runs on between the client's rounds, its requests for input wait
// for the client's answers, and the round that finds the call's result
// returns it.
//
// Over stdio nothing says which call a server's request for input belongs
// to, so it is carried by the oldest call to that server that runs in
// rounds. Whichever round carries it, the answer goes to the request that
// asked, which waits until the carrier is gone.
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
	server, tool string
	state        string              // the requestState that names it
	modes        elicitModes         // what the client declared it can be asked
	cancel       context.CancelFunc  // ends the upstream call
	done         chan struct{}       // closed when the upstream call has returned
	res          *mcp.CallToolResult // its result, once done
	gone         chan struct{}       // closed when the call is forgotten
	goneOnce     sync.Once
	asks         chan *roundAsk // requests for input not yet carried

	mu     sync.Mutex           // guards below
	open   map[string]*roundAsk // carried to the client, by input request id
	next   int
	active bool        // a round of the client's is in progress
	timer  *time.Timer // runs while the client is away
}

// roundAsk is one upstream request for input.
type roundAsk struct {
	ctx    context.Context // the upstream's request: ended, nobody waits for the answer
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

// start makes call, the upstream call of server's tool, under a context
// of life's, and records it; its first round is in progress. call's ctx
// ends when the call is cancelled.
func (r *rounds) start(life context.Context, server, tool string, modes elicitModes, call func(ctx context.Context) *mcp.CallToolResult) (*roundCall, error) {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	ctx, cancel := context.WithCancel(life)
	c := &roundCall{server: server, tool: tool, state: "mcp-" + hex.EncodeToString(b), modes: modes, cancel: cancel,
		done: make(chan struct{}), gone: make(chan struct{}), asks: make(chan *roundAsk, maxRoundAsks),
		open: map[string]*roundAsk{}, active: true}
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
		defer close(c.done)
		defer func() {
			// Off the handler's goroutine, the SDK's recovery is not there.
			if p := recover(); p != nil {
				c.res = toolError(fmt.Sprintf("%s: internal error: %s", tool, clip.Line(fmt.Sprint(p))))
			}
		}()
		c.res = call(ctx)
	}()
	return c, nil
}

// resume finds the call a requestState names, for a round of the client
// that calls tool of server, and stops its clock. A call with a round in
// progress is not resumed: one round at a time.
func (r *rounds) resume(state, server, tool string) (*roundCall, error) {
	r.mu.Lock()
	c := r.calls[state]
	r.mu.Unlock()
	if c == nil || c.server != server || c.tool != tool {
		return nil, errors.New("the requestState names no call of this tool waiting for input (it may have waited too long): call again without it")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active {
		return nil, errors.New("a round of the call this requestState names is in progress")
	}
	c.active = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	return c, nil
}

// answer hands the client's answers to the requests they answer, all or
// none: an answer to no open request is refused.
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
	for id, raw := range answers {
		c.open[id].answer <- raw // buffered, and sent once
		delete(c.open, id)
	}
	return nil
}

// wait ends a round: with the call's result, or with the requests for
// input to carry to the client (those it has not answered yet first). A
// round the client gives up on ends the call.
func (r *rounds) wait(ctx context.Context, c *roundCall) (*mcp.CallToolResult, error) {
	if reqs := c.pending(); len(reqs) > 0 {
		return r.carry(c, reqs), nil
	}
	for {
		select {
		case <-c.done:
			r.forget(c)
			return c.res, nil
		case a := <-c.asks:
			if isDone(c.done) {
				r.forget(c)
				return c.res, nil
			}
			if reqs := c.take(a); len(reqs) > 0 {
				return r.carry(c, reqs), nil
			}
		case <-ctx.Done():
			r.drop(c)
			return nil, ctx.Err()
		}
	}
}

// pending is the requests carried to the client that it has not answered,
// whose askers still wait.
func (c *roundCall) pending() mcp.InputRequestMap {
	c.mu.Lock()
	defer c.mu.Unlock()
	reqs := mcp.InputRequestMap{}
	for id, a := range c.open {
		if a.ctx.Err() != nil {
			delete(c.open, id)
			continue
		}
		reqs[id] = a.params
	}
	return reqs
}

// take opens a, and whatever else waits to be carried, under new ids,
// leaving out the requests nobody waits for any more.
func (c *roundCall) take(a *roundAsk) mcp.InputRequestMap {
	c.mu.Lock()
	defer c.mu.Unlock()
	reqs := mcp.InputRequestMap{}
	for a != nil {
		if a.ctx.Err() == nil {
			c.next++
			id := "input-" + strconv.Itoa(c.next)
			c.open[id] = a
			reqs[id] = a.params
		}
		select {
		case a = <-c.asks:
		default:
			a = nil
		}
	}
	return reqs
}

// carry ends the round with reqs, and starts the clock of the client's
// absence.
func (r *rounds) carry(c *roundCall, reqs mcp.InputRequestMap) *mcp.CallToolResult {
	away := r.away
	if away == 0 {
		away = roundWait
	}
	c.mu.Lock()
	c.active = false
	if c.timer != nil {
		c.timer.Stop()
	}
	c.timer = time.AfterFunc(away, func() { r.drop(c) })
	c.mu.Unlock()
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: c.state}
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
	a := &roundAsk{ctx: ctx, params: p, answer: make(chan json.RawMessage, 1)}
	select {
	case c.asks <- a:
	default:
		return nil, false, nil
	}
	select {
	case raw := <-a.answer:
		return raw, true, nil
	case <-c.gone:
		// The answer, if any, came in the carrier's last round.
		select {
		case raw := <-a.answer:
			return raw, true, nil
		default:
		}
		return nil, true, errors.New("the client's call ended before it answered")
	case <-ctx.Done():
		c.close(a)
		return nil, true, ctx.Err()
	}
}

// close takes a request nobody waits for out of those carried.
func (c *roundCall) close(a *roundAsk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, open := range c.open {
		if open == a {
			delete(c.open, id)
		}
	}
}

// drop ends a call the client is no longer in: its upstream call is
// cancelled, which ends its requests for input.
func (r *rounds) drop(c *roundCall) {
	r.forget(c)
	c.cancel()
}

// forget ends the record of a call.
func (r *rounds) forget(c *roundCall) {
	r.mu.Lock()
	if r.calls[c.state] == c {
		delete(r.calls, c.state)
		for i, rc := range r.order {
			if rc == c {
				r.order = append(r.order[:i], r.order[i+1:]...)
				break
			}
		}
	}
	r.mu.Unlock()
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	c.goneOnce.Do(func() { close(c.gone) })
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
