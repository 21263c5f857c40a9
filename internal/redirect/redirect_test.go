package redirect

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

func get(t *testing.T, raw string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Authorization": "Bearer t", "Cookie": "a=b", "Proxy-Authorization": "Basic x",
		"X-Api-Key": "k", "Mcp-Session-Id": "s", "Referer": raw, "Accept": "text/event-stream", "User-Agent": "mcp"} {
		req.Header.Set(k, v)
	}
	return req
}

func TestPolicy_Check(t *testing.T) {
	for _, tc := range []struct {
		name     string
		chain    []string // the requests made, then the next
		policy   Policy
		refused  string // in the error; "" when followed
		keepsAll bool   // every header goes on
	}{
		{name: "same origin", chain: []string{"http://a.example/x", "http://a.example:80/y"}, keepsAll: true},
		{name: "another port", chain: []string{"http://127.0.0.1:1000/x", "http://127.0.0.1:1001/x"}},
		{name: "another host", chain: []string{"https://a.example/x", "https://b.example/x"}},
		{name: "up to https", chain: []string{"http://a.example/x", "https://a.example/x"}},
		{name: "back home", chain: []string{"https://a.example/x", "https://b.example/x", "https://a.example/y"}},
		{name: "down to http", chain: []string{"https://a.example/x", "http://a.example/x"}, refused: "from https to http"},
		{name: "down later", chain: []string{"https://a.example/x", "https://b.example/x", "http://c.example/x"}, refused: "from https://a.example:443 to http://c.example:80"},
		{name: "callback", chain: []string{"https://as.example/authorize", "http://127.0.0.1:5000/callback?code=x"},
			policy: Policy{Callback: &url.URL{Scheme: "http", Host: "127.0.0.1:5000", Path: "/callback"}}},
		{name: "not the callback", chain: []string{"https://as.example/authorize", "http://127.0.0.1:5001/callback"},
			policy: Policy{Callback: &url.URL{Scheme: "http", Host: "127.0.0.1:5000", Path: "/callback"}}, refused: "from https to http"},
		{name: "too many", chain: strings.Split(strings.Repeat("http://a.example/x ", 11), " ")[:11], refused: "after 10 redirects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var via []*http.Request
			for _, u := range tc.chain[:len(tc.chain)-1] {
				via = append(via, get(t, u))
			}
			req := get(t, tc.chain[len(tc.chain)-1])
			err := tc.policy.Check(req, via)
			var re *Error
			switch {
			case tc.refused != "":
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.refused) || exit.Code(err) != exit.Upstream {
					t.Fatalf("Check = %v, want a refusal saying %q, exit 4", err, tc.refused)
				}
				return
			case err != nil:
				t.Fatalf("Check = %v", err)
			}
			if tc.keepsAll {
				if len(req.Header) != 8 {
					t.Errorf("headers = %v, want all 8", req.Header)
				}
				return
			}
			if len(req.Header) != 2 || req.Header.Get("Accept") == "" || req.Header.Get("User-Agent") == "" {
				t.Errorf("headers = %v, want only Accept and User-Agent", req.Header)
			}
		})
	}
}

// A header the configuration set goes nowhere else, even one of those a
// request otherwise takes along; a request with a body is not sent away.
func TestPolicy_CheckConfiguredAndBody(t *testing.T) {
	via := []*http.Request{get(t, "http://a.example/x")}
	req := get(t, "http://b.example/x")
	if err := (Policy{Configured: []string{"user-agent"}}).Check(req, via); err != nil {
		t.Fatal(err)
	}
	if len(req.Header) != 1 || req.Header.Get("Accept") == "" {
		t.Errorf("headers = %v, want only Accept", req.Header)
	}
	post, _ := http.NewRequest(http.MethodPost, "http://b.example/x", strings.NewReader("{}"))
	if err := Check(post, via); err == nil || !strings.Contains(err.Error(), "body to another origin") {
		t.Errorf("a body sent away: %v", err)
	}
	same, _ := http.NewRequest(http.MethodPost, "http://a.example/y", strings.NewReader("{}"))
	if err := Check(same, via); err != nil {
		t.Errorf("a body sent home: %v", err)
	}
}
