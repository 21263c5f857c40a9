package auth

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// AutoFollowEnv makes logins and scope step-ups follow the authorization
// URL without a browser, for authorization servers that approve by
// themselves (test servers).
const AutoFollowEnv = "MCP_AUTH_AUTO_FOLLOW"

// AutoFollowSet says whether AutoFollowEnv asks for logins without a browser.
func AutoFollowSet() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(AutoFollowEnv)))
	return v == "1" || v == "true" || v == "yes"
}

// DefaultManager is the manager of the user's own token store.
func DefaultManager(clientName, clientVersion string) (*Manager, error) {
	dir, err := DefaultDir()
	if err != nil {
		return nil, fmt.Errorf("no place for the token store: %w", err)
	}
	return &Manager{Store: NewStore(dir), ClientName: clientName, ClientVersion: clientVersion, AutoFollow: AutoFollowSet()}, nil
}

// Describe says in a few words what state a login is in at now: its
// state, expiry, refresh token, scopes and client, never a token.
func (st Status) Describe(now time.Time) string {
	parts := []string{st.State}
	if st.Expires != nil {
		if st.Expires.After(now) {
			parts = append(parts, "expires in "+roughDuration(st.Expires.Sub(now)))
		} else {
			parts = append(parts, "expired "+st.Expires.Local().Format(time.DateTime))
		}
	}
	if st.Refreshable {
		parts = append(parts, "refreshable")
	}
	if len(st.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(st.Scopes, " "))
	}
	if len(st.WantScopes) > 0 {
		parts = append(parts, "next login adds "+strings.Join(st.WantScopes, " "))
	}
	if st.Client != "" {
		parts = append(parts, "client "+st.Client)
	}
	return strings.Join(parts, ", ")
}

// roughDuration is d in minutes: "45m", "1h05m", "3d4h".
func roughDuration(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	switch {
	case m < 60:
		return fmt.Sprintf("%dm", m)
	case m < 48*60:
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	return fmt.Sprintf("%dd%dh", m/(24*60), m%(24*60)/60)
}

// Describe says in a few words what became of the tokens of a logout that
// removed a login.
func (r LogoutResult) Describe() string {
	switch {
	case r.Revoked == 1:
		return "1 token revoked at the authorization server and forgotten here"
	case r.Revoked > 1:
		return fmt.Sprintf("%d tokens revoked at the authorization server and forgotten here", r.Revoked)
	case len(r.Warnings) > 0:
		return "forgotten here; the authorization server did not revoke the tokens"
	case r.NotRevocable > 0:
		return "forgotten here only: the authorization server offers no revocation"
	}
	return "forgotten here; it held no token"
}
