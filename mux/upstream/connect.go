package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// protocolVersion is asked for in initialize, the first attempt unless the
// endpoint pins or remembers another (negotiate.go): the newest revision of
// the handshake. No server/discover probe goes first, which would cost up
// to five seconds against servers that ignore it.
const protocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION

// DefaultConnectTimeout bounds Connect unless Options.ConnectTimeout says otherwise.
const DefaultConnectTimeout = 30 * time.Second

// Options tune Connect. The zero value works.
type Options struct {
	// ClientName and ClientVersion are sent as clientInfo ("mcp", "dev" when empty).
	ClientName    string
	ClientVersion string
	// Logger receives the transports' logs; nil discards them.
	Logger *slog.Logger
	// ConnectTimeout bounds starting and initializing (0 means 30 s).
	ConnectTimeout time.Duration
	// Stderr, if set, receives a copy of a stdio server's stderr. Writes to
	// it are synchronous: a slow writer slows the server.
	Stderr io.Writer
	// MaxMessageBytes bounds one message from the server (0 means 64 MiB).
	MaxMessageBytes int64
	// Auth, if set, wraps the HTTP transport of a url server's connection
	// (streamable HTTP and SSE): ep is the expanded endpoint, base the
	// transport to send through, and secrets the set the connection
	// redacts with, to which it adds the credentials it sends (tokens) as
	// it obtains them. The auth package adds OAuth here; its errors reach
	// the caller as the cause of *UnavailableError.
	Auth func(ep manifests.Endpoint, base http.RoundTripper, secrets *redact.Set) http.RoundTripper
	// Secrets, if set, is the set of what connections must never show:
	// each connection adds its endpoint's secrets and tokens to it and
	// removes all of it from its errors, its server's stderr and error
	// responses, and the requests for input it reports. Sharing one set
	// gathers them all, for a log. Nil gives each connection its own.
	Secrets *redact.Set
	// Elicitation says how to answer a server that asks for input
	// (elicitation/create). The zero value answers with the defaults of
	// the server's own form; see ElicitDefaults.
	Elicitation ElicitationPolicy
	// OnElicitation, if set, is told of every request for input and its
	// answer, before the answer is sent. It runs on a goroutine of the
	// connection and should return quickly.
	OnElicitation func(Elicitation)
	// RelayElicitation, if set, is asked first for the answer to each
	// request for input; when it has none, Elicitation answers. Setting it
	// also declares URL elicitation to servers, since the relay may reach
	// a client that opens URLs; a URL other than https, or http to this
	// machine, or one with credentials in it, is never relayed: the server
	// is answered with an error that says why, and OnWarning is told. Only
	// the answers Elicitation gives are told to OnElicitation.
	RelayElicitation ElicitRelay
	// OnLog, if set, receives every log message (notifications/message)
	// a server sends, without the connection's secrets. It runs on the
	// transport's read goroutine and must return quickly. A call hears its
	// server's messages through CallHooks.OnLog.
	OnLog func(LogMessage)
	// LogLevel, if set, is the level servers that declare logging are
	// asked to log at, shared by the connections made with it.
	LogLevel *LogLevel
	// OnWarning, if set, is told, in one line, of what a connection leaves
	// out, and why: a tool it does not offer, a request for input it does
	// not relay.
	OnWarning func(string)
	// Revisions, if set, remembers per endpoint the protocol revision that
	// worked, so that the next connect speaks it at once (negotiate.go).
	Revisions RevisionMemory
}

// httpTransport is the transport of an HTTP connection to ep.
func (o Options) httpTransport(ep manifests.Endpoint, base http.RoundTripper, secrets *redact.Set) http.RoundTripper {
	if o.Auth == nil {
		return base
	}
	return o.Auth(ep, base, secrets)
}

func (o Options) withDefaults() Options {
	if o.ClientName == "" {
		o.ClientName = "mcp"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	return o
}

// Connect starts or reaches the server ep describes and performs the
// initialize handshake. ctx bounds only the connect; the connection lives
// until Close. The Conn returned is a *conn.
//
// A server that cannot be started, reached or initialized gives
// *UnavailableError; for a stdio server its Stderr holds the last lines the
// server wrote. An endpoint from a project directory the user has not
// trusted is refused with *manifests.UntrustedError before anything is
// started or sent.
func Connect(ctx context.Context, ep manifests.Endpoint, opts Options) (Conn, error) {
	if err := ep.Refusal(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	kind, err := transportOf(ep)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.ConnectTimeout, errConnectTimeout)
	defer cancel()
	c, err := negotiate(ctx, ep, opts, kind)
	if err != nil {
		// Never a nil *conn inside a non-nil Conn.
		return nil, err
	}
	if opts.LogLevel != nil {
		opts.LogLevel.join(c)
	}
	return c, nil
}

var errConnectTimeout = errors.New("connect timed out")

// transportOf tells how ep is reached. It is deliberately small: manifests
// validates endpoints before they get here.
func transportOf(ep manifests.Endpoint) (manifests.Transport, error) {
	switch {
	case ep.Command != "" && ep.URL != "":
		return "", fmt.Errorf("server %s: both command and url are set", ep.ID)
	case ep.Command != "":
		return manifests.TransportStdio, nil
	case ep.URL == "":
		return "", fmt.Errorf("server %s: neither command nor url is set", ep.ID)
	}
	switch ep.Type {
	case "":
		return manifests.TransportAuto, nil
	case "http", "streamable-http", "streamableHttp":
		return manifests.TransportHTTP, nil
	case "sse":
		return manifests.TransportSSE, nil
	}
	return "", fmt.Errorf("server %s: unknown transport type %q", ep.ID, ep.Type)
}

// handshake starts the client on the connection's own context and runs
// initialize, asking for u.revision, under ctx; on 2026-07-28 it runs
// server/discover instead. When ctx ends first, abort tears the attempt
// down.
func (u *conn) handshake(ctx context.Context, opts Options, abort func()) error {
	stop := context.AfterFunc(ctx, abort)
	u.c.OnNotification(u.onNotification)
	err := u.c.Start(u.life)
	switch {
	case err != nil:
	case u.modern != nil:
		err = u.discover(ctx)
	default:
		err = u.initialize(ctx, opts)
	}
	if !stop() && err == nil {
		// abort already ran: the connection is being torn down.
		err = context.Cause(ctx)
	}
	if err == nil && u.modern != nil && u.listChanged {
		u.goOwned(u.listen)
	}
	return err
}

// step is the request that starts the connection, for errors.
func (u *conn) step() string {
	if u.modern != nil {
		return string(mcp.MethodServerDiscover)
	}
	return string(mcp.MethodInitialize)
}

// connectError explains a failed handshake. Call it before Close.
func (u *conn) connectError(ctx context.Context, opts Options, err error) error {
	// mcp-go wraps transport failures in a type that only adds a prefix;
	// anything else (a JSON-RPC error, a bad protocol version) came from a
	// server that is still running.
	var te *transport.Error
	broken := errors.As(err, &te)
	if broken {
		err = refusedRedirect(te.Err)
	}
	stderr := func() string {
		if u.proc == nil {
			return ""
		}
		if broken || ctx.Err() != nil {
			// The server is dead or being killed: let stderr drain.
			return u.secret.Text(u.proc.stderrTail())
		}
		return u.secret.Text(u.proc.tail.String())
	}
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errConnectTimeout) {
			return &UnavailableError{Server: u.server, Stderr: stderr(),
				Err: fmt.Errorf("no answer to %s within %s: %w", u.step(), opts.ConnectTimeout, context.DeadlineExceeded)}
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &UnavailableError{Server: u.server, Stderr: stderr(), Err: &StartingError{Step: u.step(), Timeout: true}}
		}
		return fmt.Errorf("connect to %s: %w", u.server, ctx.Err())
	}
	var ir *InvalidReplyError
	if errors.As(err, &ir) {
		return &UnavailableError{Server: u.server, Stderr: stderr(), Err: ir}
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		// A request of our own (server/discover) explained itself.
		if ue.Stderr == "" {
			ue.Stderr = stderr()
		}
		return ue
	}
	if u.proc != nil && broken && u.proc.waitExit(exitReasonWait) {
		return &UnavailableError{Server: u.server, Stderr: stderr(), Err: u.proc.exitError("during startup")}
	}
	if errors.Is(err, transport.ErrTransportClosed) {
		err = errors.New("the server closed the connection")
	}
	return &UnavailableError{Server: u.server, Stderr: stderr(), Err: u.redact(fmt.Errorf("%s: %w", u.step(), err))}
}

// ElicitationPolicy says how a connection answers a server's requests for
// input (elicitation/create). mcp runs without a person to fill in a form,
// so it answers at once and never leaves a server waiting.
type ElicitationPolicy int

const (
	// ElicitDefaults accepts a form the server's own defaults can fill:
	// every required field has a default that fits its schema, and at least
	// one field has one. The answer holds exactly those defaults (fields
	// without one are left out). Anything else is declined: a required
	// field without a default, a form with nothing to fill in (a bare
	// confirmation, which only a person may give), and URL requests.
	ElicitDefaults ElicitationPolicy = iota
	// ElicitDecline declines every request for input.
	ElicitDecline
)

// Elicitation is one request for input from a server and mcp's answer.
type Elicitation struct {
	Server string
	// Mode is "form" or "url".
	Mode string
	// Message is the server's message on one line of printable text,
	// cut at 200 characters.
	Message string
	// Action is "accept" or "decline".
	Action string
	// Fields are the fields answered with their defaults, when accepted.
	Fields []string
	// Reason says why the request was declined.
	Reason string
	// Repeats, when not 0, makes this a count: as many more requests of the
	// server were answered with Action over the last Over, and the fields
	// above but Server are empty.
	Repeats int
	Over    time.Duration
}

// String describes the request and its answer in one line, for stderr.
func (e Elicitation) String() string {
	if e.Repeats > 0 {
		answered := "declined"
		if e.Action == string(mcp.ElicitationResponseActionAccept) {
			answered = "answered with their own defaults"
		}
		return fmt.Sprintf("server %s: %d more requests for input %s in the last %s", e.Server, e.Repeats, answered, roughly(e.Over))
	}
	asked := fmt.Sprintf("server %s asked for input", e.Server)
	if e.Message != "" {
		asked += fmt.Sprintf(" (%q)", e.Message)
	}
	if e.Action == string(mcp.ElicitationResponseActionAccept) {
		return fmt.Sprintf("%s; answered with its own defaults for %s", asked, strings.Join(e.Fields, ", "))
	}
	return fmt.Sprintf("%s; declined: %s", asked, e.Reason)
}

// maxElicitText bounds the server's words quoted in an Elicitation.
const maxElicitText = 200

// answerElicitation decides the answer to a request for input.
func answerElicitation(policy ElicitationPolicy, p mcp.ElicitationParams) (*mcp.ElicitationResult, Elicitation) {
	ev := Elicitation{Mode: p.Mode, Message: printable(p.Message, maxElicitText)}
	if ev.Mode == "" {
		ev.Mode = mcp.ElicitationModeForm
	}
	decline := func(reason string) (*mcp.ElicitationResult, Elicitation) {
		ev.Action, ev.Reason = string(mcp.ElicitationResponseActionDecline), reason
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, ev
	}
	switch {
	case policy == ElicitDecline:
		return decline("mcp is set to decline requests for input")
	case ev.Mode != mcp.ElicitationModeForm:
		return decline("mcp does not send a person to a URL")
	}
	content, reason := formDefaults(p.RequestedSchema)
	if reason != "" {
		return decline(reason)
	}
	ev.Action = string(mcp.ElicitationResponseActionAccept)
	ev.Fields = slices.Sorted(maps.Keys(content))
	for i, f := range ev.Fields {
		ev.Fields[i] = printable(f, 64)
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: content}}, ev
}

// formDefaults is the answer the defaults of a requested schema give (a
// flat object schema, as elicitation allows), or why there is none. A
// default counts only if it fits its field's schema.
func formDefaults(schema any) (map[string]json.RawMessage, string) {
	raw, err := json.Marshal(schema)
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err != nil || json.Unmarshal(raw, &s) != nil {
		return nil, "the requested schema is not an object schema"
	}
	content := map[string]json.RawMessage{}
	for name, prop := range s.Properties {
		var f struct {
			Default json.RawMessage `json:"default"`
		}
		if json.Unmarshal(prop, &f) != nil || len(f.Default) == 0 || string(f.Default) == "null" {
			continue
		}
		one, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]json.RawMessage{name: prop}})
		value, _ := json.Marshal(map[string]json.RawMessage{name: f.Default})
		if catalog.ValidateArgs(one, value) != nil {
			continue
		}
		content[name] = f.Default
	}
	var missing []string
	for _, name := range s.Required {
		n := printable(name, 64)
		if _, ok := content[name]; !ok && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	switch {
	case len(missing) == 1:
		return nil, "required field " + missing[0] + " has no default"
	case len(missing) > 1:
		return nil, "required fields " + strings.Join(missing, ", ") + " have no default"
	case len(content) == 0:
		return nil, "the form has no defaults to answer with, and only a person can accept it"
	}
	all, _ := json.Marshal(content)
	if catalog.ValidateArgs(raw, all) != nil {
		return nil, "the server's defaults do not satisfy its own form"
	}
	return content, ""
}

// printable is s on one line of printable characters, cut at max runes.
func printable(s string, max int) string {
	s = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, s)), " ")
	return clip.Runes(s, max+1)
}
