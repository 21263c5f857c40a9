//go:build linux

package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/testenv/localuser"
	"github.com/mcpsh/mcp/manifests"
)

// A token record another user put in a tokens directory others may write
// (sticky or not) is not the user's login: it is never sent, and the
// request fails saying why, an error of the configuration.
func TestStore_PlantedRecord(t *testing.T) {
	p := localuser.New(t)
	for _, mode := range []os.FileMode{0o777, 0o777 | os.ModeSticky} {
		t.Run(mode.String(), func(t *testing.T) {
			var mu sync.Mutex
			var seen []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, r.Header.Get("Authorization"))
				mu.Unlock()
			}))
			defer srv.Close()
			dir := filepath.Join(t.TempDir(), "tokens")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			ep := manifests.Endpoint{ID: "notes", URL: srv.URL + "/mcp", Type: "http"}
			data, err := json.Marshal(&Record{Server: "notes", URL: ep.URL, Token: &Token{AccessToken: "PLANTED-token", TokenType: "Bearer"}})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, fileName("notes", ep.URL))
			p.WriteFile(t, path, string(data))

			m := &Manager{Store: NewStore(dir), ClientName: "mcp-test"}
			hc := &http.Client{Transport: m.RoundTripper(ep, http.DefaultTransport, nil)}
			resp, err := hc.Get(ep.URL)
			if err == nil {
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			for _, h := range seen {
				if strings.Contains(h, "PLANTED") {
					t.Fatalf("the planted token reached the server: %q", h)
				}
			}
			want := "token store file " + filepath.Base(path) + " is owned by " + p.Owner() + ", not by you"
			if err == nil || !strings.Contains(err.Error(), want) || exit.Code(err) != exit.Config {
				t.Errorf("request: %v (exit %d), want an error saying the record %s", err, exit.Code(err), want)
			}
		})
	}
}
