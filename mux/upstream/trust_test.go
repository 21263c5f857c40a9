package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsh/mcp/manifests"
)

// Connect refuses an endpoint of an untrusted directory before anything
// starts or is sent, over every transport.
func TestConnect_refusesUntrusted(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	marker := filepath.Join(t.TempDir(), "started")
	untrusted := &manifests.UntrustedError{Server: "x", Dir: "/x/recipe", Changed: []string{"mcp.json"}}
	for _, ep := range []manifests.Endpoint{
		{ID: "x", Command: "sh", Args: []string{"-c", "touch " + marker}},
		{ID: "x", URL: srv.URL, Type: "http"},
		{ID: "x", URL: srv.URL, Type: "sse"},
		{ID: "x", URL: srv.URL},
	} {
		ep.Untrusted = untrusted
		c, err := Connect(context.Background(), ep, Options{ConnectTimeout: 2 * time.Second})
		var u *manifests.UntrustedError
		if !errors.As(err, &u) || c != nil {
			t.Errorf("Connect(%s %s) = %v, %v; want *manifests.UntrustedError", ep.Command, ep.URL, c, err)
		}
	}
	time.Sleep(100 * time.Millisecond) // a process that was started has had time to run
	if _, err := os.Stat(marker); err == nil {
		t.Error("the untrusted command was started")
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached an untrusted URL", n)
	}
}
