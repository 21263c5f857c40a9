package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/mcpsh/mcp/catalog"
)

// ChildArg is the argument that makes the mcp binary the process of one
// program of RunIsolated's.
const ChildArg = "__run"

// ChildMain runs the one program RunIsolated sends on the first of its
// pipes (childPipes), held to its memory limit (limitMemory), with a Host
// that asks RunIsolated over the second for everything. It returns the
// exit code.
func ChildMain(stderr io.Writer) int {
	in, out := childPipes()
	dec := json.NewDecoder(in)
	var first toChild
	if in == nil || out == nil || dec.Decode(&first) != nil || first.Start == nil {
		fmt.Fprintln(stderr, "mcp: error: "+ChildArg+" is mcp run's own process, not a command")
		return 2
	}
	st := first.Start
	lim := Limits(st.Limits).withDefaults()
	limitMemory(lim.MaxMemory)
	h := newRemoteHost(out, st)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.read(dec, cancel)
	v, err := Run(ctx, h, st.Name, st.Src, lim, consoleWriter{h})
	if h.send(fromChild{Done: encodeDone(v, err)}) != nil {
		return 1
	}
	return 0
}

// remoteHost is the Host of a program in its own process: every question
// goes to the parent, which holds the real Host.
type remoteHost struct {
	tools map[string][]string
	down  map[string]error

	wmu sync.Mutex
	out io.Writer
	enc *json.Encoder

	mu      sync.Mutex
	next    int64
	pending map[int64]chan *childReply
	gone    chan struct{} // closed when the parent can no longer be heard
}

var _ Host = (*remoteHost)(nil)

func newRemoteHost(out io.Writer, st *childStart) *remoteHost {
	h := &remoteHost{tools: st.Tools, down: map[string]error{}, out: out, enc: json.NewEncoder(out),
		pending: map[int64]chan *childReply{}, gone: make(chan struct{})}
	for srv, w := range st.Down {
		h.down[srv] = w.err()
	}
	return h
}

func (h *remoteHost) send(m fromChild) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	return h.enc.Encode(m)
}

// sendRaw sends a message already encoded, without its newline.
func (h *remoteHost) sendRaw(b []byte) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_, err := h.out.Write(append(b, '\n'))
	return err
}

// TooLargeError is a call (or a search) whose arguments (or query) are
// more than mcp run takes from a program at once.
type TooLargeError struct{ Op, Server, Tool string }

func (e *TooLargeError) Error() string {
	what := "the arguments of " + e.Server + "." + e.Tool + " are"
	if e.Op == "search" {
		what = "the query is"
	}
	return what + " larger than " + strconv.Itoa(maxMessage>>20) + " MiB"
}

// read hands each reply to its caller and ends the run when the parent
// says so or is gone.
func (h *remoteHost) read(dec *json.Decoder, cancel context.CancelFunc) {
	defer close(h.gone)
	defer cancel()
	for {
		var m toChild
		if err := dec.Decode(&m); err != nil || m.Cancel {
			return
		}
		if m.Reply == nil {
			continue
		}
		h.mu.Lock()
		ch := h.pending[m.Reply.ID]
		delete(h.pending, m.Reply.ID)
		h.mu.Unlock()
		if ch != nil {
			ch <- m.Reply
		}
	}
}

// errParentGone is what a question gets once the parent is gone.
var errParentGone = errors.New("mcp run is gone")

// ask sends req and waits for its reply; when ctx ends first, the parent
// is told to give the request up.
func (h *remoteHost) ask(ctx context.Context, req childRequest) (*childReply, error) {
	ch := make(chan *childReply, 1)
	h.mu.Lock()
	h.next++
	req.ID = h.next
	h.pending[req.ID] = ch
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.pending, req.ID)
		h.mu.Unlock()
	}()
	b, err := json.Marshal(fromChild{Request: &req})
	if err != nil {
		return nil, err
	}
	if len(b) >= maxMessage {
		return nil, &TooLargeError{Op: req.Op, Server: req.Server, Tool: req.Tool}
	}
	if err := h.sendRaw(b); err != nil {
		return nil, errParentGone
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err.err()
		}
		return r, nil
	case <-ctx.Done():
		_ = h.send(fromChild{Cancel: req.ID})
		return nil, ctx.Err()
	case <-h.gone:
		return nil, errParentGone
	}
}

func (h *remoteHost) Tools() map[string][]string { return h.tools }

func (h *remoteHost) Call(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
	r, err := h.ask(ctx, childRequest{Op: "call", Server: server, Tool: tool, Args: args})
	if err != nil {
		return nil, err
	}
	return r.Result.result(), nil
}

func (h *remoteHost) Search(ctx context.Context, query string, limit int) ([]catalog.Tool, error) {
	r, err := h.ask(ctx, childRequest{Op: "search", Query: query, Limit: limit})
	if err != nil {
		return nil, err
	}
	return r.Tools, nil
}

func (h *remoteHost) List(ctx context.Context, server string) ([]catalog.Tool, error) {
	r, err := h.ask(ctx, childRequest{Op: "list", Server: server})
	if err != nil {
		return nil, err
	}
	return r.Tools, nil
}

func (h *remoteHost) NotAvailable(server, tool string) *catalog.NotAvailableError {
	r, err := h.ask(context.Background(), childRequest{Op: "notAvailable", Server: server, Tool: tool})
	if err != nil || r.NotAvailable == nil {
		return &catalog.NotAvailableError{Server: server, Tool: tool}
	}
	return r.NotAvailable
}

func (h *remoteHost) Unavailable(server string) error {
	if err, ok := h.down[server]; ok {
		return err
	}
	return nil
}

// consoleWriter sends the program's console output to the parent, in
// pieces, in order with its requests.
type consoleWriter struct{ h *remoteHost }

// consolePiece is the most console output one message carries.
const consolePiece = 32 << 10

func (w consoleWriter) Write(p []byte) (int, error) {
	for off := 0; off < len(p); off += consolePiece {
		if err := w.h.send(fromChild{Log: p[off:min(len(p), off+consolePiece)]}); err != nil {
			return off, err
		}
	}
	return len(p), nil
}
