package toolsmode

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var forms = elicitModes{form: true}

// untilCancelled is an upstream call that runs until it is cancelled, and
// then closes cancelled.
func untilCancelled(cancelled chan struct{}) func(ctx context.Context) *mcp.CallToolResult {
	return func(ctx context.Context) *mcp.CallToolResult {
		<-ctx.Done()
		close(cancelled)
		return toolError("cancelled")
	}
}

// askAsync asks r for input of server s in the background; the channel
// gets the outcome.
func askAsync(ctx context.Context, r *rounds, message string) <-chan error {
	out := make(chan error, 1)
	go func() {
		_, ok, err := r.ask(ctx, "s", &mcp.ElicitParams{Message: message})
		if !ok {
			err = errors.New("not asked")
		}
		out <- err
	}()
	return out
}

func onlyID(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.InputRequests) != 1 {
		t.Fatalf("%d requests for input, want 1", len(res.InputRequests))
	}
	for id := range res.InputRequests {
		return id
	}
	return ""
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal(what)
	}
}

// A call whose client does not come back with its answers is cancelled
// after the wait, and its request for input ends with an error.
func TestRounds_clientAway(t *testing.T) {
	r := &rounds{away: 100 * time.Millisecond}
	cancelled := make(chan struct{})
	c, err := r.start(context.Background(), "s", "t", forms, untilCancelled(cancelled))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.ask(context.Background(), "other", &mcp.ElicitParams{}); ok {
		t.Error("a request of another server went to the call")
	}
	if _, ok, _ := r.ask(context.Background(), "s", &mcp.ElicitParams{Mode: "url"}); ok {
		t.Error("a URL request went to a client that takes forms only")
	}
	asked := askAsync(context.Background(), r, "name?")
	res, err := r.wait(context.Background(), c)
	if err != nil || res.RequestState != c.state {
		t.Fatalf("wait = %+v, %v; want a request for input", res, err)
	}
	onlyID(t, res)
	waitClosed(t, cancelled, "the call of a client that went away was not cancelled")
	if err := <-asked; err == nil {
		t.Error("the request for input of a cancelled call was answered")
	}
	if _, err := r.resume(c.state, "s", "t"); err == nil {
		t.Error("a cancelled call can still be resumed")
	}
}

// A round the call refuses (an answer to no open request) ends the call:
// the client took the tool error for the call's end.
func TestRounds_refusedAnswerEndsTheCall(t *testing.T) {
	r := &rounds{}
	cancelled := make(chan struct{})
	c, _ := r.start(context.Background(), "s", "t", forms, untilCancelled(cancelled))
	askAsync(context.Background(), r, "q")
	if _, err := r.wait(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, err := r.resume(c.state, "s", "other-tool"); err == nil {
		t.Error("a requestState was taken for another tool")
	}
	rc, err := r.resume(c.state, "s", "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.answer(mcp.InputResponseMap{"input-99": &mcp.ElicitResult{Action: "decline"}}); err == nil || !strings.Contains(err.Error(), "not open") {
		t.Fatalf("answer to no open request: %v", err)
	}
	r.drop(rc) // as inRounds does
	waitClosed(t, cancelled, "the refused call was not cancelled")
	if len(r.calls) != 0 {
		t.Errorf("%d calls kept", len(r.calls))
	}
}

// A request the upstream gave up is not carried to the client, and one
// the client left unanswered is carried again in the next round.
func TestRounds_staleAndUnanswered(t *testing.T) {
	r := &rounds{}
	cancelled := make(chan struct{})
	c, _ := r.start(context.Background(), "s", "t", forms, untilCancelled(cancelled))
	defer r.drop(c)
	askAsync(context.Background(), r, "first")
	askAsync(context.Background(), r, "second")
	time.Sleep(50 * time.Millisecond)
	res, _ := r.wait(context.Background(), c)
	if len(res.InputRequests) != 2 {
		t.Fatalf("first round carried %d requests, want 2", len(res.InputRequests))
	}
	var firstID string
	for id, p := range res.InputRequests {
		if p.(*mcp.ElicitParams).Message == "first" {
			firstID = id
		}
	}
	staleCtx, giveUp := context.WithCancel(context.Background())
	stale := askAsync(staleCtx, r, "stale")
	time.Sleep(50 * time.Millisecond)
	giveUp()
	<-stale
	rc, _ := r.resume(c.state, "s", "t")
	if err := rc.answer(mcp.InputResponseMap{firstID: &mcp.ElicitResult{Action: "decline"}}); err != nil {
		t.Fatal(err)
	}
	res, err := r.wait(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	id := onlyID(t, res)
	if m := res.InputRequests[id].(*mcp.ElicitParams).Message; m != "second" {
		t.Errorf("the next round carried %q, want the unanswered \"second\"", m)
	}
}

// Only one round of a call is in progress at a time, so that no second
// clock of the client's absence is left to cancel the call.
func TestRounds_oneRoundAtATime(t *testing.T) {
	r := &rounds{away: 200 * time.Millisecond}
	cancelled := make(chan struct{})
	c, _ := r.start(context.Background(), "s", "t", forms, untilCancelled(cancelled))
	defer r.drop(c)
	if _, err := r.resume(c.state, "s", "t"); err == nil {
		t.Fatal("a call was resumed during its first round")
	}
	askAsync(context.Background(), r, "a")
	res, err := r.wait(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := r.resume(c.state, "s", "t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.resume(c.state, "s", "t"); err == nil {
		t.Error("a call was resumed twice at once")
	}
	if err := rc.answer(mcp.InputResponseMap{onlyID(t, res): &mcp.ElicitResult{Action: "decline"}}); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = r.wait(context.Background(), rc) }() // waits: nothing to carry
	select {
	case <-cancelled:
		t.Error("the call was cancelled while its client is in a round")
	case <-time.After(600 * time.Millisecond):
	}
}

// A request for input carried by another call's round gets the answer
// the client gives in that call's next round, even when that call has its
// result by then.
func TestRounds_carrierEnds(t *testing.T) {
	r := &rounds{}
	finishA := make(chan struct{})
	a, _ := r.start(context.Background(), "s", "t", forms, func(context.Context) *mcp.CallToolResult {
		<-finishA
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "A done"}}}
	})
	bCancelled := make(chan struct{})
	b, _ := r.start(context.Background(), "s", "t", forms, untilCancelled(bCancelled))
	defer r.drop(b)
	asked := askAsync(context.Background(), r, "B's question")
	res, _ := r.wait(context.Background(), a)
	id := onlyID(t, res)
	close(finishA)
	select {
	case err := <-asked:
		t.Fatalf("B's request for input ended before the client's answer: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	ra, _ := r.resume(a.state, "s", "t")
	if err := ra.answer(mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept"}}); err != nil {
		t.Fatal(err)
	}
	if res, err := r.wait(context.Background(), ra); err != nil || res.IsError || len(res.Content) != 1 {
		t.Errorf("A's last round = %+v, %v; want A's result", res, err)
	}
	if err := <-asked; err != nil {
		t.Errorf("B's request for input: %v, want the answer", err)
	}
}

// A panic in the upstream call is a tool error, not the end of mcp serve.
func TestRounds_panic(t *testing.T) {
	r := &rounds{}
	c, _ := r.start(context.Background(), "s", "t", forms, func(context.Context) *mcp.CallToolResult { panic("boom") })
	res, err := r.wait(context.Background(), c)
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "internal error: boom") {
		t.Errorf("wait = %+v, %v; want the panic as a tool error", res, err)
	}
}

// At most maxRoundCalls calls are made in rounds at once.
func TestRounds_bound(t *testing.T) {
	r := &rounds{}
	life, end := context.WithCancel(context.Background())
	defer end()
	block := func(ctx context.Context) *mcp.CallToolResult {
		<-ctx.Done()
		return toolError("cancelled")
	}
	for i := range maxRoundCalls {
		if _, err := r.start(life, "s", "t", forms, block); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := r.start(life, "s", "t", forms, block); !errors.Is(err, errRoundsFull) {
		t.Errorf("call past the bound: %v, want errRoundsFull", err)
	}
}
