package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// malformedWait is how long a request to a server that sends a malformed
// reply may wait; it must fail long before.
const malformedWait = 20 * time.Second

// malformedServer serves shape over streamable HTTP, each reply as a JSON
// body, or as one event of an event stream when sse is set.
func malformedServer(t *testing.T, shape testenv.MalformedShape, sse bool) manifests.Endpoint {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := shape.ReplyTo(req.Method, req.ID)
		if sse {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", reply)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, reply)
	}))
	t.Cleanup(ts.Close)
	return manifests.Endpoint{ID: "fake", URL: ts.URL, Type: "http", ProtocolVersion: protocolVersion}
}

// malformedError is the error a session with ep ends in: the connect, the
// listing or the call, as the shape breaks one of them.
func malformedError(t *testing.T, ep manifests.Endpoint) error {
	ctx, cancel := context.WithTimeout(context.Background(), malformedWait)
	defer cancel()
	c, err := Connect(ctx, ep, Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.ListTools(ctx); err != nil {
		return err
	}
	_, err = c.CallTool(ctx, "t", nil)
	return err
}

// Every reply of the wrong shape fails its request at once, over stdio and
// streamable HTTP (JSON and event-stream bodies), with exit 4 and words
// that name the server and no Go type.
func TestMalformedReplies(t *testing.T) {
	t.Parallel()
	for _, shape := range testenv.MalformedShapes {
		if shape.Method == "" {
			continue
		}
		eps := map[string]func(t *testing.T) manifests.Endpoint{
			"stdio": func(t *testing.T) manifests.Endpoint { return testenv.FakeServer(t, testenv.ModeMalformed+shape.Name) },
			"json":  func(t *testing.T) manifests.Endpoint { return malformedServer(t, shape, false) },
			"sse":   func(t *testing.T) manifests.Endpoint { return malformedServer(t, shape, true) },
		}
		for kind, ep := range eps {
			t.Run(shape.Name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				err := malformedError(t, ep(t))
				took := time.Since(start)
				if err == nil {
					t.Fatal("no error")
				}
				msg := err.Error()
				if code := exit.Code(err); code != exit.Upstream {
					t.Errorf("exit code %d, want %d: %s", code, exit.Upstream, msg)
				}
				if took > malformedWait/4 {
					t.Errorf("took %s: %s", took, msg)
				}
				if !strings.HasPrefix(msg, "server fake sent an invalid "+shape.Method) {
					t.Errorf("error %q does not say server fake sent an invalid %s", msg, shape.Method)
				}
				for _, w := range []string{"Go value", "Go struct", "struct {", "json.", "mcp.", "transport.", "JSONRPC", "of type "} {
					if strings.Contains(msg, w) {
						t.Errorf("error shows %q: %s", w, msg)
					}
				}
			})
		}
	}
}

func TestDecodeProblem(t *testing.T) {
	for _, c := range []struct {
		json string
		v    any
		want string
	}{
		{`{"content":"x"}`, &struct {
			Content []json.RawMessage `json:"content"`
		}{}, `"content" must be an array, not a string`},
		{`{"isError":"yes"}`, &struct {
			IsError bool `json:"isError"`
		}{}, `"isError" must be true or false, not a string`},
		{`{"nextCursor":5}`, &struct {
			NextCursor *string `json:"nextCursor"`
		}{}, `"nextCursor" must be a string, not a number`},
		{`"ready"`, &struct{}{}, `it must be an object, not a string`},
		{`{"a":{"b":[1]}}`, &struct {
			A struct {
				B []string `json:"b"`
			} `json:"a"`
		}{}, `"a.b" must be a string, not a number`},
		{`{`, &struct{}{}, `it is not valid JSON`},
		{`null`, &struct{}{}, `it must be an object, not null`},
		{` null `, &struct{}{}, `it must be an object, not null`},
	} {
		err := decodeResult("b", "tools/call", json.RawMessage(c.json), c.v)
		if err == nil {
			t.Errorf("%s: no error", c.json)
			continue
		}
		want := "server b sent an invalid tools/call result: " + c.want
		if err.Error() != want {
			t.Errorf("%s: %q, want %q", c.json, err.Error(), want)
		}
	}
}
