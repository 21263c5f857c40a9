package mux

import (
	"encoding/json"
	"fmt"

	"github.com/mcpsh/mcp/internal/exit"
)

// What a session's guest reads of an answer is what the CLI prints for it,
// and no more. The host's recipe, its files and its environment are the
// host's: an error that would name them (an untrusted directory, a broken
// configuration file, a missing variable, another user's package where
// the host's server would start) reaches the guest as the fact that the
// server or session cannot be used, and who can fix it.

// HostSideError is a failure only the user who started the session can
// fix, as a guest sees it.
type HostSideError struct {
	Server string `json:"server,omitempty"`
	// What is wrong, in a few words, without the host's paths or names;
	// Word says it in one, for mcp list.
	What string `json:"what"`
	Word string `json:"word"`
	Code int    `json:"code"`
}

// Summary says the cause in a word, for mcp list.
func (e *HostSideError) Summary() string { return e.Word }

func (e *HostSideError) ExitCode() int { return e.Code }

func (e *HostSideError) Error() string {
	subject := "the session"
	if e.Server != "" {
		subject = "server " + e.Server
	}
	return fmt.Sprintf("%s cannot be used: %s; the user who started the session can fix that", subject, e.What)
}

// guestView is r as a guest may read it.
func guestView(r *response) *response {
	r.Error = guestError(r.Error)
	for i := range r.Skipped {
		r.Skipped[i].Error = guestError(r.Skipped[i].Error)
	}
	if r.Catalog != nil {
		for i := range r.Catalog.Servers {
			r.Catalog.Servers[i].Error = guestError(r.Catalog.Servers[i].Error)
		}
	}
	return r
}

// guestError is w without what only the host may read.
func guestError(w *WireError) *WireError {
	if w == nil {
		return nil
	}
	if w.Kind == "unavailable" {
		return guestUnavailable(w)
	}
	var what, word string
	code := exit.Config
	switch w.Kind {
	case "untrusted":
		what, word = "its recipe is not trusted as it is now", "untrusted"
	case "config":
		what, word = "its configuration cannot be read", "misconfigured"
	case "missing_var":
		what, word = "its configuration names a variable that is not set", "misconfigured"
	case "foreign_package":
		what, word = "the package it would run is another user's, or others may change it", "not started"
		code = exit.Upstream
	default:
		return w
	}
	var named struct {
		Server string `json:"server"`
	}
	_ = json.Unmarshal(w.Data, &named)
	if named.Server == "" {
		named.Server = w.Server
	}
	return encodeError(&HostSideError{Server: named.Server, What: what, Word: word, Code: code})
}

// guestUnavailable is a server that could not be reached, as the guest
// reads it: without what it wrote on stderr and without why it could not
// start (a path of the host's, a file it could not read), unless the
// cause is one the guest's CLI has words of its own for (a refusal of
// the server's, a login, the host's configuration), and with whether it
// timed out or was cancelled.
func guestUnavailable(w *WireError) *WireError {
	w.Stderr, w.Withheld = "", nil
	if w.Cause != nil && w.Cause.Kind != "error" {
		w.Cause = guestError(w.Cause)
		w.Message = w.Cause.Message
		return w
	}
	cause := &WireError{Kind: "error", Message: "it could not be started or reached (the multiplexer's log says why)"}
	if w.Cause != nil {
		cause.Timeout, cause.Canceled = w.Cause.Timeout, w.Cause.Canceled
	}
	switch {
	case cause.Timeout:
		cause.Message = "it did not answer in time"
	case cause.Canceled:
		cause.Message = "the request was cancelled"
	}
	w.Cause, w.Message = cause, cause.Message
	return w
}
