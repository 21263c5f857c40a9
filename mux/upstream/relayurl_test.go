package upstream

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Only https URLs, and http ones to this machine, without user info, are
// relayed; what Go's parser and a browser's might read differently is
// refused, and what is said of a refused URL names only its scheme.
func TestRelayableURL(t *testing.T) {
	for _, tc := range []struct {
		url, reason string // reason "" for relayed
	}{
		{"https://example.com/x?a=1#f", ""},
		{"HTTPS://EXAMPLE.com/x", ""},
		{"https://example.com:8443/", ""},
		{"http://127.0.0.1:8080/cb", ""},
		{"http://127.1.2.3/cb", ""},
		{"http://localhost:8080/cb", ""},
		{"http://LOCALHOST/cb", ""},
		{"http://[::1]:8080/cb", ""},
		{"http://[::ffff:127.0.0.1]/cb", ""},
		{"javascript:alert(1)", "its scheme is javascript"},
		{"JavaScript:alert(1)", "its scheme is javascript"},
		{"file:///etc/passwd", "its scheme is file"},
		{"data:text/html,<script>alert(1)</script>", "its scheme is data"},
		{"ftp://example.com/", "its scheme is ftp"},
		{"http://example.com/", "it is http to a host other than this machine"},
		{"http://localhost.example.com/", "it is http to a host other than this machine"},
		{"http://localhoſt/", "it is http to a host other than this machine"},
		{"http://127.0.0.1.example.com/", "it is http to a host other than this machine"},
		{"http://0x7f.1/", "it is http to a host other than this machine"},
		{"http://2130706433/", "it is http to a host other than this machine"},
		{"http://[::1%25lo]/", "it is http to a host other than this machine"},
		{"https://u:p@example.com/", "it holds credentials"},
		{"https://u@example.com/", "it holds credentials"},
		{"https://example.com@evil.example/", "it holds credentials"},
		{"http://127.0.0.1:80@evil.example/", "it holds credentials"},
		{"https://good.example\\@evil.example/", "it is not an absolute URL"},
		{"http://127.0.0.1\t.evil.example/", "it is not an absolute URL"},
		{" https://example.com/", "it is not an absolute URL"},
		{"//example.com/", "it is not an absolute URL"},
		{"", "it is not an absolute URL"},
		{"https:example.com", "it names no host"},
		{"https:///path", "it names no host"},
	} {
		err := relayableURL(tc.url)
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%q: %v, want it relayed", tc.url, err)
		case tc.reason != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.reason)):
			t.Errorf("%q: %v, want %q", tc.url, err, tc.reason)
		case err != nil && strings.Contains(err.Error(), "example"):
			t.Errorf("%q: the reason %q quotes the URL", tc.url, err)
		}
	}
}

// A URL is checked whatever mode the request says it is in; a form
// without one is relayed.
func TestRelayable(t *testing.T) {
	for _, tc := range []struct {
		params string
		ok     bool
	}{
		{`{"mode":"form","message":"m","requestedSchema":{"type":"object"}}`, true},
		{`{"message":"m","requestedSchema":{"type":"object"}}`, true},
		{`{"mode":"url","message":"m","url":"https://example.com/","elicitationId":"1"}`, true},
		{`{"mode":"url","message":"m","elicitationId":"1"}`, false},
		{`{"mode":"url","message":"m","url":"javascript:alert(1)","elicitationId":"1"}`, false},
		{`{"mode":"form","message":"m","url":"javascript:alert(1)","requestedSchema":{"type":"object"}}`, false},
		{`{"mode":"url","url":7}`, false},
	} {
		if err := relayable([]byte(tc.params)); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want relayed %v", tc.params, err, tc.ok)
		}
	}
}

// FuzzRelayableURL: a URL the rule relays is one Go reads as https with a
// host, or http to this machine, without user info; what is said of any
// other is a fixed reason or its scheme, never more of the URL.
func FuzzRelayableURL(f *testing.F) {
	for _, s := range []string{"https://example.com/x", "http://127.0.0.1:8080/cb", "http://[::1]/", "javascript:alert(1)",
		"https://u:p@example.com/", "http://example.com/", "file:///etc/passwd", "https:foo", "HTTP://LOCALHOST/"} {
		f.Add(s)
	}
	reasons := []string{"it is not an absolute URL", "it names no host", "it holds credentials", "it is http to a host other than this machine"}
	scheme := regexp.MustCompile(`^its scheme is [a-z][a-z0-9+.-]*, not https$`)
	f.Fuzz(func(t *testing.T, raw string) {
		err := relayableURL(raw)
		if err != nil {
			if !slices.Contains(reasons, err.Error()) && !scheme.MatchString(err.Error()) {
				t.Fatalf("%q: the reason %q", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil || u.User != nil || u.Opaque != "" || u.Host == "" ||
			u.Scheme != "https" && (u.Scheme != "http" || !loopback(u.Hostname())) {
			t.Fatalf("%q was relayed: %+v, %v", raw, u, perr)
		}
	})
}
