package auth

import (
	"time"
)

// Status describes a stored login without any secret.
type Status struct {
	Server string `json:"server"`
	// URL is the server's URL without credentials, query and fragment.
	URL string `json:"url"`
	// State is StateValid, StateRefreshable, StateExpired or StateLoggedOut.
	State   string     `json:"state"`
	Scopes  []string   `json:"scopes,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
	// Refreshable says the login holds a refresh token.
	Refreshable bool `json:"refreshable"`
	// WantScopes are scopes the server asked for that the next login adds.
	WantScopes []string `json:"want_scopes,omitempty"`
	Issuer     string   `json:"issuer,omitempty"`
	// Client is where the client came from: registered, configured or
	// metadata-document.
	Client string `json:"client"`
}

// States of a stored login.
const (
	StateValid       = "valid"        // the token is usable
	StateRefreshable = "refreshable"  // expired, but a refresh token renews it
	StateExpired     = "expired"      // expired: a login is needed
	StateLoggedOut   = "login needed" // no token (refused, or never obtained)
)

// Status describes r at now.
func (r *Record) Status(now time.Time) Status {
	s := Status{Server: r.Server, URL: displayURL(r.URL), Scopes: r.Scopes, WantScopes: r.WantScopes,
		Issuer: r.Issuer, Client: r.Client.Source}
	switch {
	case !hasToken(r):
		s.State = StateLoggedOut
		return s
	case r.Token.Expiry.IsZero() || now.Before(r.Token.Expiry):
		s.State = StateValid
	case r.Token.RefreshToken != "":
		s.State = StateRefreshable
	default:
		s.State = StateExpired
	}
	s.Refreshable = r.Token.RefreshToken != ""
	if !r.Token.Expiry.IsZero() {
		e := r.Token.Expiry
		s.Expires = &e
	}
	return s
}
