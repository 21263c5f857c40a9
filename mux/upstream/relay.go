package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/clip"
)

// ElicitRelay hands a server's request for input (the params of its
// elicitation/create, as JSON, without the connection's secrets) to
// someone who can answer it: the client of `mcp serve`. It returns the
// answer (an elicitation result: action, and content when accepted), or
// ok false when nobody can answer this request, and the connection's
// Elicitation rule answers instead. An error is sent to the server as the
// answer. It runs on a goroutine of its own, never the transport's read
// goroutine, and its ctx ends when the connection closes.
type ElicitRelay func(ctx context.Context, server string, params json.RawMessage) (result json.RawMessage, ok bool, err error)

// errRelayedAnswer is the cause of a relayed answer the connection could
// not pass on.
var errRelayedAnswer = errors.New("the client's answer to the request for input is not an elicitation result")

// relayElicitation asks the relay to answer p. ok false means the
// Elicitation rule answers.
func (u *conn) relayElicitation(ctx context.Context, p mcp.ElicitationParams) (res *mcp.ElicitationResult, ok bool, err error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, false, nil
	}
	// The connection's secrets stay here; a request that is no longer JSON
	// without them is not relayed.
	redacted := []byte(u.secret.Text(string(raw)))
	if !json.Valid(redacted) {
		return nil, false, nil
	}
	if err := relayable(redacted); err != nil {
		line := fmt.Sprintf("%s asked for input at a URL, which mcp did not relay: %v", u.server, err)
		switch {
		case !u.floods.admit(floodKindURL):
		case u.onWarn != nil:
			u.onWarn(line)
		default:
			u.log.Warn(line)
		}
		return nil, true, fmt.Errorf("mcp did not relay the URL: %w; only https URLs, and http ones to this machine, without credentials, are relayed", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(u.life, cancel)()
	// A request that came while calls were in flight ends with them: the
	// person is not left with a form nobody waits for. mcp-go says neither
	// which call a request on stdio belongs to nor when the server gives
	// it up.
	if quiet := u.calls.quiet(); quiet != nil {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-quiet:
				cancel()
			case <-stop:
			}
		}()
	}
	out, ok, err := u.relay(ctx, u.server, redacted)
	if !ok {
		return nil, false, nil
	}
	mode := p.Mode
	if mode == "" {
		mode = mcp.ElicitationModeForm
	}
	if err != nil {
		err = u.redact(err)
		u.log.Info("relayed a request for input; the client failed to answer", "mode", mode, "err", err)
		return nil, true, fmt.Errorf("the client did not answer: %s", clip.Line(err.Error()))
	}
	var answer struct {
		Action  mcp.ElicitationResponseAction `json:"action"`
		Content json.RawMessage               `json:"content"`
	}
	if json.Unmarshal(out, &answer) != nil {
		return nil, true, errRelayedAnswer
	}
	switch answer.Action {
	case mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel:
	default:
		return nil, true, errRelayedAnswer
	}
	res = &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: answer.Action}}
	if answer.Action == mcp.ElicitationResponseActionAccept && len(answer.Content) > 0 && string(answer.Content) != "null" {
		res.Content = answer.Content
	}
	u.log.Info("relayed a request for input to the client", "mode", mode, "action", answer.Action)
	return res, true, nil
}

// relayable says why a request for input (its params, as JSON) is not
// to be relayed, or nil. A URL in it is relayed only when a person may
// safely be sent there (relayableURL), whatever the request's mode says.
func relayable(params []byte) error {
	var p struct {
		Mode string `json:"mode"`
		URL  string `json:"url"`
	}
	if json.Unmarshal(params, &p) != nil {
		return errors.New("the request is not one mcp can read")
	}
	if p.Mode != mcp.ElicitationModeURL && p.URL == "" {
		return nil
	}
	return relayableURL(p.URL)
}

// relayableURL says why a URL a server asks a person to open is not
// passed on to a client, or nil: only https URLs, and http ones to this
// machine (localhost, 127.0.0.0/8, ::1), without user info (credentials,
// or a name that passes for a host) are. What is said of a refused URL
// holds none of it but its scheme.
func relayableURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme == "":
		return errors.New("it is not an absolute URL")
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("its scheme is %s, not https", u.Scheme) // url.Parse allows only [a-z0-9+.-] there
	case u.Opaque != "" || u.Host == "":
		return errors.New("it names no host")
	case u.User != nil:
		return errors.New("it holds credentials")
	case u.Scheme == "http" && !loopback(u.Hostname()):
		return errors.New("it is http to a host other than this machine")
	}
	return nil
}

// loopback says whether host names this machine: localhost, or an address
// in 127.0.0.0/8 or ::1.
func loopback(host string) bool {
	// ASCII only: Unicode folding would take "localhoſt" for it.
	if len(host) == len("localhost") && strings.ToLower(host) == "localhost" && isASCII(host) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// callsInFlight counts a connection's calls in flight: tools/call, and
// the tasks/result that waits for a task.
type callsInFlight struct {
	mu   sync.Mutex
	n    int
	done chan struct{} // closed when n drops to 0; nil while it is 0
}

// begin counts one call until end is called.
func (c *callsInFlight) begin() (end func()) {
	c.mu.Lock()
	if c.n == 0 {
		c.done = make(chan struct{})
	}
	c.n++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.n--; c.n == 0 {
				close(c.done)
				c.done = nil
			}
		})
	}
}

// quiet is closed once every call in flight now has ended; nil when none
// is.
func (c *callsInFlight) quiet() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}
