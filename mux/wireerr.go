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
)

// WireError is an error as it crosses the socket. The client turns it back
// into the typed error the multiplexer saw, so exit codes and messages are
// the same as for a direct connection.
type WireError struct {
	Kind     string          `json:"kind"`
	Message  string          `json:"message"`
	Server   string          `json:"server,omitempty"`
	Stderr   string          `json:"stderr,omitempty"`
	Withheld []string        `json:"withheld,omitempty"`
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
	kind[upstream.InvalidReplyError]("invalid_reply"),
	kind[upstream.StartingError]("starting"),
	kind[upstream.ForeignPackageError]("foreign_package"),
	kind[manifests.MissingVarError]("missing_var"),
	kind[manifests.UntrustedError]("untrusted"),
	kind[auth.LoginRequiredError]("login_required"),
	kind[auth.NoClientError]("no_client"),
	kind[auth.NoOAuthError]("no_oauth"),
	kind[session.NotFoundError]("no_session"),
	kind[WrongSessionError]("wrong_session"),
	kind[NotAdmittedError]("not_admitted"),
	kind[StoppedError]("stopped"),
	kind[BadRequestError]("bad_request"),
	kind[RequestTooLargeError]("too_large"),
	kind[HostSideError]("host_side"),
	kind[StateChangedError]("state_changed"),
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
		w.Kind, w.Server, w.Stderr, w.Withheld = "unavailable", ue.Server, ue.Stderr, ue.Withheld
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
		return &upstream.UnavailableError{Server: w.Server, Err: cause, Stderr: w.Stderr, Withheld: w.Withheld}
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
