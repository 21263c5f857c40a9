package toolsmode

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call whose client does not come back with its answers is cancelled
// after the wait, and its request for input ends with an error.
func TestRounds_clientAway(t *testing.T) {
	r := &rounds{away: 100 * time.Millisecond}
	cancelled := make(chan struct{})
	c, err := r.start(context.Background(), "s", elicitModes{form: true}, func(ctx context.Context, made func(context.Context)) *mcp.CallToolResult {
		made(ctx)
		<-ctx.Done()
		close(cancelled)
		return toolError("cancelled")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.ask(context.Background(), "other", &mcp.ElicitParams{}); ok {
		t.Error("a request of another server went to the call")
	}
	if _, ok, _ := r.ask(context.Background(), "s", &mcp.ElicitParams{Mode: "url"}); ok {
		t.Error("a URL request went to a client that takes forms only")
	}
	asked := make(chan error, 1)
	go func() {
		_, ok, err := r.ask(context.Background(), "s", &mcp.ElicitParams{Message: "name?"})
		if !ok {
			err = errors.New("not asked")
		}
		asked <- err
	}()
	res, err := r.wait(context.Background(), c)
	if err != nil || res.RequestState != c.state || len(res.InputRequests) != 1 {
		t.Fatalf("wait = %+v, %v; want one request for input", res, err)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the call of a client that went away was not cancelled")
	}
	if err := <-asked; err == nil {
		t.Error("the request for input of a cancelled call was answered")
	}
	if r.resume(c.state, "s") != nil {
		t.Error("a cancelled call can still be resumed")
	}
}

// At most maxRoundCalls calls are made in rounds at once.
func TestRounds_bound(t *testing.T) {
	r := &rounds{}
	life, end := context.WithCancel(context.Background())
	defer end()
	block := func(ctx context.Context, _ func(context.Context)) *mcp.CallToolResult {
		<-ctx.Done()
		return toolError("cancelled")
	}
	for i := range maxRoundCalls {
		if _, err := r.start(life, "s", elicitModes{form: true}, block); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := r.start(life, "s", elicitModes{form: true}, block); !errors.Is(err, errRoundsFull) {
		t.Errorf("call past the bound: %v, want errRoundsFull", err)
	}
}
