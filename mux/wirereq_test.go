package mux

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/mux/upstream"
)

// readRequest takes the requests the client sends, and refuses what no
// client of the protocol sends, saying why in words.
func TestReadRequest(t *testing.T) {
	ok := []string{
		`{"v":4,"op":"status"}`,
		`{"v":4,"op":"catalog","listing":2}`,
		`{"v":4,"op":"catalog","listing":3}`,
		`{"v":4,"session":"abc","op":"tools","server":"fake"}`,
		`{"v":4,"op":"call","server":"fake","tool":"echo","args":{"message":"hi"},"logs":true,"progress":true}`,
		`{"v":4,"op":"invoke","server":"fake","tool":"echo","input":{"base":{},"pairs":["a=1"],"allowUnknown":true}}`,
		`{"v":4,"op":"search","search":{"text":"echo","limit":5,"server":"fake"}}`,
	}
	for _, line := range ok {
		if _, _, err := readRequest(strings.NewReader(line + "\n")); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	refused := map[string]string{
		`{"v":4,"op":"search","search":{"text":"x","Dir":"/tmp/x"}}`: `it has a field the protocol does not know: "Dir"`,
		`{"V":4,"op":"status"}`:                                                              `it has a field the protocol does not know: "V"`,
		`{"v":4,"op":"tools","ſerver":"fake"}`:                                               `it has a field the protocol does not know: "ſerver"`,
		`{"v":4,"op":"search","search":{"Text":"x"}}`:                                        `it has a field the protocol does not know: "Text"`,
		`{"v":4,"op":"status","op":"stop"}`:                                                  `it has the field "op" twice`,
		`{"v":4,"op":"invoke","server":"a","tool":"b","input":{"pairs":[],"pairs":["a=1"]}}`: `it has the field "pairs" twice`,
		`{"v":4,"op":"call","server":"a","tool":"b","cwd":"/"}`:                              `it has a field the protocol does not know: "cwd"`,
		`{"v":4,"op":"stop","server":"a"}`:                                                   `stop takes no "server"`,
		`{"v":4,"op":"tools"}`:                                                               `tools needs "server"`,
		`{"v":4,"op":"search"}`:                                                              `search needs "search"`,
		`{"v":4,"op":"catalog","listing":4}`:                                                 `listing 4 is not a way of listing`,
		`{"v":4,"op":"call","server":"a","tool":"b","args":[]}`:                              `the arguments of a call must be a JSON object`,
		`{"v":4,"op":"call","server":"a","tool":"b","args":null}`:                            `the arguments of a call must be a JSON object`,
		`{"v":4,"op":"invoke","server":"a","tool":"b","input":{"base":"x"}}`:                 `the base arguments of an invoke must be a JSON object`,
		`{"v":4,"op":"search","search":{"text":"x","limit":100000}}`:                         `the search limit must be 0 to 10000`,
		`{"v":4,"op":"tools","server":"a\u0000b"}`:                                           `"server" is not a name`,
		`{"v":"4","op":"status"}`:                                                            `"v" must be a number, not a JSON string`,
		`{"v":4,"op":"tools","server":1}`:                                                    `"server" must be a string, not a JSON number`,
		`{"v":4,"op":"catalog","logs":"yes"}`:                                                `"logs" must be true or false, not a JSON string`,
		`{"v":4,"op":"format"}`:                                                              `"format" is not an operation`,
		`"status"`:                                                                           `it must be a JSON object`,
		`{"v":4,`:                                                                            `it ended before a whole JSON object`,
		``:                                                                                   `it ended before a whole JSON object`,
		`{"v":4,}`:                                                                           `it is not JSON (at byte 8)`,
	}
	for line, want := range refused {
		_, _, err := readRequest(strings.NewReader(line))
		var bad *BadRequestError
		if !errors.As(err, &bad) || !strings.Contains(bad.Reason, want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// A request over MaxRequest is refused once MaxRequest bytes have been
// read, however much more the client sends.
func TestReadRequest_size(t *testing.T) {
	r := &countingReader{r: strings.NewReader(`{"v":4,"op":"call","server":"a","tool":"b","args":{"m":"` + strings.Repeat("x", 3*MaxRequest) + `"}}`)}
	_, _, err := readRequest(r)
	var bad *BadRequestError
	if !errors.As(err, &bad) || bad.Reason != "it is larger than 4 MiB" {
		t.Fatalf("a request of 12 MiB: %v", err)
	}
	if r.n > MaxRequest+1 {
		t.Errorf("read %d bytes of a request over %d", r.n, MaxRequest)
	}
	// Just under the bound is a request.
	line := `{"v":4,"op":"call","server":"a","tool":"b","args":{"m":"`
	line += strings.Repeat("x", MaxRequest-len(line)-4) + `"}}`
	if _, _, err := readRequest(strings.NewReader(line)); err != nil {
		t.Errorf("a request of %d bytes: %v", len(line), err)
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The client refuses to send a request the multiplexer would refuse for
// its size.
func TestClientRefusesLargeRequest(t *testing.T) {
	c := &Client{socket: "/nonexistent/mux.sock"}
	args := json.RawMessage(`{"m":"` + strings.Repeat("x", MaxRequest) + `"}`)
	_, err := c.Call(t.Context(), "a", "b", args)
	var big *RequestTooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), "the request is 4.0 MiB, and the multiplexer takes at most 4 MiB") {
		t.Fatalf("a call with 4 MiB of arguments: %v", err)
	}
}

// What a guest reads names nothing of the host's: untrusted directories,
// configuration files and variables become a line that says who can fix
// them, with the exit code kept.
func TestGuestView(t *testing.T) {
	untrusted := &WireError{Kind: "untrusted", Message: "server fake comes from /home/host/recipe, which you have not trusted",
		Data: json.RawMessage(`{"server":"fake","dir":"/home/host/recipe"}`)}
	config := &WireError{Kind: "config", Message: "/home/host/recipe/mcp.json:3:4: bad", Lines: []string{"/home/host/recipe/mcp.json:3:4: bad"}}
	wrapped := &WireError{Kind: "unavailable", Server: "fake", Message: untrusted.Message, Cause: untrusted}
	r := guestView(&response{
		Error:   wrapped,
		Skipped: []wireServer{{ID: "fake", Error: config}},
		Catalog: &wireCatalog{Servers: []wireServer{{ID: "fake", Error: &WireError{Kind: "missing_var", Data: json.RawMessage(`{"Server":"fake","Var":"HOST_TOKEN"}`)}}}},
	})
	b, _ := json.Marshal(r)
	for _, host := range []string{"/home/host", "mcp.json", "HOST_TOKEN"} {
		if strings.Contains(string(b), host) {
			t.Errorf("the guest's view holds %q: %s", host, b)
		}
	}
	err := decodeError(r.Error)
	var hs *HostSideError
	if !errors.As(err, &hs) || hs.ExitCode() != 5 ||
		hs.Error() != "server fake cannot be used: its recipe is not trusted as it is now; the user who started the session can fix that" {
		t.Fatalf("untrusted, as the guest reads it: %T %v", err, err)
	}
	if got := decodeError(r.Skipped[0].Error).Error(); got != "the session cannot be used: its configuration cannot be read; the user who started the session can fix that" {
		t.Errorf("a broken configuration, as the guest reads it: %s", got)
	}
}

// FuzzReadRequest: whatever a client sends, readRequest returns a request
// its operation takes or a *BadRequestError, and never panics.
func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{
		`{"v":4,"op":"status"}`, `{"v":4,"op":"search","search":{"text":"x","Dir":"/"}}`,
		`{"v":4,"op":"call","server":"a","tool":"b","args":{"m":[1,{"x":null}]}}`,
		`{"v":4,"op":"invoke","server":"a","tool":"b","input":{"base":{},"pairs":["a=1"]}}`,
		`{"op":"catalog","listing":-1}`, `[`, `{"v":4,"op":"tools","server":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, _, err := readRequest(strings.NewReader(string(data)))
		if err != nil {
			var bad *BadRequestError
			if !errors.As(err, &bad) || bad.Reason == "" {
				t.Fatalf("%q: %T %v", data, err, err)
			}
			if strings.Contains(bad.Reason, "Go ") || strings.Contains(bad.Reason, "struct") {
				t.Fatalf("%q: the reason names Go types: %s", data, bad.Reason)
			}
			return
		}
		spec := opFields[req.Op]
		if has := req.has(); has&^spec.allowed != 0 || spec.required&^has != 0 {
			t.Fatalf("%q: %s with fields %b (takes %b, needs %b)", data, req.Op, has, spec.allowed, spec.required)
		}
	})
}

// A server that could not be reached reaches a guest without its stderr
// or why it could not start, with whether it timed out kept; a cause the
// CLI has words of its own for stays.
func TestGuestView_unavailable(t *testing.T) {
	start := &WireError{Kind: "unavailable", Server: "s", Stderr: "reading /home/host/creds failed",
		Message: "start /home/host/bin/s: no such file", Cause: &WireError{Kind: "error", Message: "start /home/host/bin/s: no such file"}}
	slow := &WireError{Kind: "unavailable", Server: "s", Cause: &WireError{Kind: "error", Message: "tools/list: /home/host", Timeout: true}}
	rpc := &WireError{Kind: "unavailable", Server: "s", Cause: encodeError(&upstream.RPCError{Code: -32000, Message: "the server's own words"})}
	r := guestView(&response{Skipped: []wireServer{{ID: "s", Error: start}, {ID: "s", Error: slow}, {ID: "s", Error: rpc}}})
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "/home/host") {
		t.Errorf("the guest's view holds the host's paths: %s", b)
	}
	if err := decodeError(r.Skipped[1].Error); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a timeout, as the guest reads it, is no timeout: %v", err)
	}
	if err := decodeError(r.Skipped[2].Error); !strings.Contains(err.Error(), "the server's own words") {
		t.Errorf("the server's own error, as the guest reads it: %v", err)
	}
}
