package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
)

// errNeedsLogin stands for the auth package's typed error.
var errNeedsLogin = errors.New("needs a login")

type headerRT struct {
	base http.RoundTripper
	fail bool
}

func (h *headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.fail {
		return nil, errNeedsLogin
	}
	r = r.Clone(r.Context())
	r.Header.Set("X-Api-Key", "k-123456")
	return h.base.RoundTrip(r)
}

func TestOptions_Auth(t *testing.T) {
	t.Parallel()
	for _, typ := range []string{"http", "sse"} {
		t.Run(typ, func(t *testing.T) {
			f := newFakeHTTP(t, typ)
			ep := f.ep
			ep.Headers = nil
			var seen manifests.Endpoint
			opts := Options{Auth: func(ep manifests.Endpoint, base http.RoundTripper, _ *redact.Set) http.RoundTripper {
				seen = ep
				return &headerRT{base: base}
			}}
			up, err := Connect(context.Background(), ep, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer up.Close()
			if _, err := up.ListTools(context.Background()); err != nil {
				t.Fatal(err)
			}
			if seen.ID != "fake" || seen.URL != ep.URL {
				t.Errorf("the hook got endpoint %+v", seen)
			}
			if f.withKey.Load() == 0 || f.withKey.Load() != f.total.Load() {
				t.Errorf("%d of %d requests went through the hook's transport", f.withKey.Load(), f.total.Load())
			}

			// Its errors come out as the cause of UnavailableError.
			opts.Auth = func(_ manifests.Endpoint, base http.RoundTripper, _ *redact.Set) http.RoundTripper {
				return &headerRT{base: base, fail: true}
			}
			_, err = Connect(context.Background(), ep, opts)
			var ue *UnavailableError
			if !errors.As(err, &ue) || !errors.Is(err, errNeedsLogin) {
				t.Errorf("err = %v, want UnavailableError caused by the hook's error", err)
			}
		})
	}
}

// Connections share Options.Secrets: each adds its endpoint's secrets, the
// Auth hook gets it to add the tokens it sends, and what the connection
// reports of a server (here a request for input) goes without them.
func TestOptions_Secrets(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t, "http")
	shared := new(redact.Set)
	var given *redact.Set
	opts := Options{Secrets: shared, Auth: func(_ manifests.Endpoint, base http.RoundTripper, secrets *redact.Set) http.RoundTripper {
		given = secrets
		secrets.Add("hook-token-1")
		return base
	}}
	connect(t, f.ep, opts)
	if given != shared {
		t.Error("the Auth hook did not get the shared set")
	}
	if got := shared.Text("k-123456 hook-token-1"); got != "[redacted] [redacted]" {
		t.Errorf("shared set hides %q of the header and the hook's token", got)
	}

	ts := httptest.NewServer(server.NewStreamableHTTPServer(elicitServer()))
	t.Cleanup(ts.Close)
	var rec journal[Elicitation]
	opts = Options{Secrets: shared, OnElicitation: rec.add}
	shared.Add("profile")
	u := connect(t, manifests.Endpoint{ID: "elicit", URL: ts.URL + "/mcp", Type: "http"}, opts)
	call(t, u, "profile", "")
	if evs := rec.all(); len(evs) != 1 || evs[0].Message != "Your [redacted], please" {
		t.Errorf("OnElicitation got %+v", evs)
	}
}
