package idle

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWithTimeout_silence(t *testing.T) {
	t.Parallel()
	ctx, touch, cancel := WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	child, stop := context.WithCancel(ctx)
	defer stop()
	// Signs of life for three times the limit keep it alive.
	for range 12 {
		time.Sleep(50 * time.Millisecond)
		touch()
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("ended after touches: %v", err)
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not ended by a silence longer than the limit")
	}
	for _, c := range []context.Context{ctx, child} {
		if !errors.Is(c.Err(), context.DeadlineExceeded) {
			t.Errorf("Err = %v, want context.DeadlineExceeded", c.Err())
		}
	}
	touch() // after the end: nothing
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err after touch = %v", ctx.Err())
	}
}

func TestWithTimeout_parentAndCancel(t *testing.T) {
	t.Parallel()
	type key struct{}
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), key{}, "v"))
	ctx, _, cancel := WithTimeout(parent, time.Hour)
	defer cancel()
	if ctx.Value(key{}) != "v" {
		t.Error("values of the parent are lost")
	}
	if _, ok := ctx.Deadline(); ok {
		t.Error("a deadline that moves is not a deadline")
	}
	cancelParent()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err after the parent's cancel = %v", ctx.Err())
	}

	ctx, _, cancel = WithTimeout(parent, time.Hour) // ended already
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err of a context of an ended parent = %v", ctx.Err())
	}

	ctx, _, cancel = WithTimeout(context.Background(), time.Hour)
	cancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err after cancel = %v", ctx.Err())
	}
}

// A hold stops the clock, for a context made from the idle one too; a
// touch while held does not start it; the release gives a whole limit,
// after which the silence ends the context.
func TestHold(t *testing.T) {
	t.Parallel()
	ctx, touch, cancel := WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	child := context.WithValue(ctx, struct{}{}, 1)
	release := Hold(child)
	inner := Hold(ctx)
	time.Sleep(200 * time.Millisecond)
	touch()
	inner()
	time.Sleep(200 * time.Millisecond)
	if err := ctx.Err(); err != nil {
		t.Fatalf("ended while held: %v", err)
	}
	release()
	release() // a second release is nothing
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not ended by the silence after the release")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, want context.DeadlineExceeded", ctx.Err())
	}
	Hold(context.Background())() // no idle context: nothing
}
