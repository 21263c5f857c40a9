package mux

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
	"github.com/mcpsh/mcp/search"
)

// wireVersion is the version of the socket protocol between the CLI and a
// multiplexer; a client and a multiplexer that disagree do not talk.
const wireVersion = 3

// request is one request on a multiplexer connection: one JSON object,
// then the client only listens. Closing the connection cancels it. There
// is no greeting: every request says its protocol version and, outside a
// session, the client's environment, which the multiplexer must share.
type request struct {
	V       int             `json:"v"`
	Env     string          `json:"env,omitempty"`     // StampEnv digest; "" in a session
	Session string          `json:"session,omitempty"` // the session the client belongs to
	Op      string          `json:"op"`
	Server  string          `json:"server,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`    // call
	Input   *Args           `json:"input,omitempty"`   // invoke
	Listing Listing         `json:"listing,omitempty"` // catalog
	Search  *search.Request `json:"search,omitempty"`
	// Logs asks for the called server's log messages, as log objects
	// before the response (call, invoke).
	Logs bool `json:"logs,omitempty"`
	// Progress asks for the progress of the request's tool call, as
	// progress objects before the final response.
	Progress bool `json:"progress,omitempty"`
}

// response is the last JSON object the multiplexer writes for a request.
// Before it, it may write progress objects that only carry Connecting,
// Connected or Progress, and log objects that only carry Log.
type response struct {
	Connecting string             `json:"connecting,omitempty"`
	Connected  string             `json:"connected,omitempty"`
	Progress   *upstream.Progress `json:"progress,omitempty"`

	// Log is one log message of the called server (Logs).
	Log *upstream.LogMessage `json:"log,omitempty"`

	// Stale says the multiplexer runs in another environment than the
	// client's, and did not serve the request.
	Stale    bool     `json:"stale,omitempty"`
	Version  int      `json:"version,omitempty"`
	Warnings []string `json:"warnings,omitempty"`

	Error   *WireError      `json:"error,omitempty"`
	Tools   []catalog.Tool  `json:"tools,omitempty"`
	Tool    *catalog.Tool   `json:"tool,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Catalog *wireCatalog    `json:"catalog,omitempty"`
	Skipped []wireServer    `json:"skipped,omitempty"`
	Status  *Status         `json:"status,omitempty"`
}

// wireCatalog is a Catalog as it crosses the socket.
type wireCatalog struct {
	Surface *catalog.Surface `json:"surface"`
	Servers []wireServer     `json:"servers"`
}

type wireServer struct {
	ID    string         `json:"id"`
	Tools []catalog.Tool `json:"tools,omitempty"`
	Count int            `json:"count,omitempty"`
	Error *WireError     `json:"error,omitempty"`
	// Protocol is the server's MCP revision, as ServerTools has it.
	Protocol string `json:"protocol,omitempty"`
}

// WireError is an error as it crosses the socket. The client turns it back
// into the typed error the multiplexer saw, so exit codes and messages are
// the same as for a direct connection.
type WireError struct {
	Kind     string          `json:"kind"`
	Message  string          `json:"message"`
	Server   string          `json:"server,omitempty"`
	Stderr   string          `json:"stderr,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Lines    []string        `json:"lines,omitempty"`
	Timeout  bool            `json:"timeout,omitempty"`
	Canceled bool            `json:"canceled,omitempty"`
	Cause    *WireError      `json:"cause,omitempty"`
}

// wireKind is an error type that crosses the socket as itself: its
// exported fields are sent as JSON and decoded into a new value.
type wireKind struct {
	name  string
	match func(error) (error, bool)
	make  func() error
}

func kind[T any, PT interface {
	*T
	error
}](name string) wireKind {
	return wireKind{
		name: name,
		match: func(err error) (error, bool) {
			var target PT
			if errors.As(err, &target) {
				return target, true
			}
			return nil, false
		},
		make: func() error { return PT(new(T)) },
	}
}

// wireKinds are the error types whose identity matters to a caller: their
// exit codes, hints and one-line summaries depend on them.
var wireKinds = []wireKind{
	kind[catalog.NotAvailableError]("not_available"),
	kind[catalog.InvalidArgsError]("invalid_args"),
	kind[catalog.UnknownArgsError]("unknown_args"),
	kind[catalog.ArgError]("arg"),
	kind[NoEndpointError]("no_endpoint"),
	kind[upstream.RPCError]("rpc"),
	kind[manifests.MissingVarError]("missing_var"),
	kind[manifests.UntrustedError]("untrusted"),
	kind[auth.LoginRequiredError]("login_required"),
	kind[auth.NoClientError]("no_client"),
	kind[auth.NoOAuthError]("no_oauth"),
	kind[session.NotFoundError]("no_session"),
	kind[WrongSessionError]("wrong_session"),
}

// encodeError turns err into its wire form.
func encodeError(err error) *WireError {
	if err == nil {
		return nil
	}
	w := &WireError{
		Kind:     "error",
		Message:  err.Error(),
		Timeout:  errors.Is(err, context.DeadlineExceeded),
		Canceled: errors.Is(err, context.Canceled),
	}
	var ue *upstream.UnavailableError
	var cfg manifests.Errors
	var one *manifests.Error
	switch {
	case errors.As(err, &ue):
		w.Kind, w.Server, w.Stderr = "unavailable", ue.Server, ue.Stderr
		w.Message = errMessage(ue.Err)
		if ue.Err != nil {
			w.Cause = encodeError(ue.Err)
		}
		return w
	case errors.As(err, &cfg):
		w.Kind = "config"
		for _, e := range cfg {
			w.Lines = append(w.Lines, e.Error())
		}
		return w
	case errors.As(err, &one):
		w.Kind, w.Lines = "config", []string{one.Error()}
		return w
	}
	for _, k := range wireKinds {
		if target, ok := k.match(err); ok {
			if data, jerr := json.Marshal(target); jerr == nil {
				w.Kind, w.Data = k.name, data
				return w
			}
		}
	}
	return w
}

func errMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// decodeError turns a wire error back into a typed one.
func decodeError(w *WireError) error {
	if w == nil {
		return nil
	}
	switch w.Kind {
	case "unavailable":
		var cause error = &remoteError{w: w}
		if w.Cause != nil {
			cause = decodeError(w.Cause)
		}
		return &upstream.UnavailableError{Server: w.Server, Err: cause, Stderr: w.Stderr}
	case "config":
		errs := make(manifests.Errors, 0, len(w.Lines))
		for _, l := range w.Lines {
			errs = append(errs, &manifests.Error{Msg: l})
		}
		return errs
	}
	for _, k := range wireKinds {
		if k.name == w.Kind {
			e := k.make()
			if json.Unmarshal(w.Data, e) == nil {
				return e
			}
		}
	}
	return &remoteError{w: w}
}

// remoteError is an error the multiplexer saw that has no type of its own
// here. It keeps the message, and whether it was a timeout or a
// cancellation.
type remoteError struct{ w *WireError }

func (e *remoteError) Error() string { return e.w.Message }

func (e *remoteError) Is(target error) bool {
	return (target == context.DeadlineExceeded && e.w.Timeout) || (target == context.Canceled && e.w.Canceled)
}
