package upstream

import (
	"context"
	"errors"
	"net/http"
	"testing"

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
			opts := Options{Auth: func(ep manifests.Endpoint, base http.RoundTripper) http.RoundTripper {
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
			opts.Auth = func(_ manifests.Endpoint, base http.RoundTripper) http.RoundTripper {
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
