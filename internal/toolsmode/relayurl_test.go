package toolsmode

import (
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
)

// URL mode relays only https URLs, and http ones to this machine, without
// credentials in them: anything else is not shown to the client, the
// server is told why in an error, and one warning says so. The same rule
// holds on the handshake and in rounds, for a server over stdio and over
// streamable HTTP.
func TestServer_RelaysOnlySafeURLs(t *testing.T) {
	for _, run := range []struct{ version, transport string }{
		{"2025-11-25", "stdio"}, {"2026-07-28", "stdio"}, {"2025-11-25", "http"}, {"2026-07-28", "http"},
	} {
		t.Run(run.version+"/"+run.transport, func(t *testing.T) {
			ep := testenv.EverythingStdio(t)
			if run.transport == "http" {
				ep = manifests.Endpoint{ID: "everything", URL: testenv.EverythingHTTP(t, "streamableHttp"), Type: "http"}
			}
			cs, asked, warned := urlClient(t, ep, run.version)
			for _, tc := range []struct {
				url    string
				reason string // why it is not relayed; "" for relayed
			}{
				{"https://example.com/x", ""},
				{"http://127.0.0.1:8080/cb", ""},
				{"http://localhost:8080/cb", ""},
				{"http://[::1]:8080/cb", ""},
				{"javascript:alert(1)", "its scheme is javascript"},
				{"file:///etc/passwd", "its scheme is file"},
				{"data:text/html,<script>alert(1)</script>", "its scheme is data"},
				{"http://example.com/", "it is http to a host other than this machine"},
				{"https://u:p@example.com/", "it holds credentials"},
				{"https://u@example.com/", "it holds credentials"},
			} {
				before, warnings := len(asked()), len(warned())
				got := callText(t, cs, "everything__trigger_url_elicitation", map[string]any{"url": tc.url, "message": "Open this"})
				newAsks, newWarnings := asked()[before:], warned()[warnings:]
				if tc.reason == "" {
					if len(newAsks) != 1 || newAsks[0].URL != tc.url || !strings.Contains(got, "User completed the URL elicitation flow") {
						t.Errorf("%s: the client was asked %+v; result %s", tc.url, newAsks, got)
					}
					if len(newWarnings) > 0 {
						t.Errorf("%s: warnings %q", tc.url, newWarnings)
					}
					continue
				}
				if len(newAsks) > 0 {
					t.Errorf("%s was relayed to the client: %+v", tc.url, newAsks[0])
				}
				if !strings.Contains(got, "mcp did not relay the URL: "+tc.reason) || strings.Contains(got, "User completed") {
					t.Errorf("%s: the server's result %q does not say it was told %q", tc.url, got, tc.reason)
				}
				if len(newWarnings) != 1 || !strings.HasPrefix(newWarnings[0], "everything ") || !strings.Contains(newWarnings[0], tc.reason) ||
					strings.Contains(newWarnings[0], "u:p") {
					t.Errorf("%s: warnings %q, want one that says %q", tc.url, newWarnings, tc.reason)
				}
			}
		})
	}
}
