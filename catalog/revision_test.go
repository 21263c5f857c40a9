package catalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsh/mcp/manifests"
)

func TestCache_Remember(t *testing.T) {
	t.Parallel()
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ep := manifests.Endpoint{ID: "a", URL: "https://h/mcp"}
	other := manifests.Endpoint{ID: "a", URL: "https://other/mcp"}
	if c.Recall(ep) != "" {
		t.Fatal("remembered before anything was")
	}
	if err := c.Remember(ep, "2026-07-28"); err != nil {
		t.Fatal(err)
	}
	if c.Recall(ep) != "2026-07-28" || c.Recall(other) != "" {
		t.Errorf("recalled %q, other %q", c.Recall(ep), c.Recall(other))
	}
	fi, err := os.Stat(c.revisionPath(ep))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v, mode %v", err, fi.Mode())
	}
	// What is not a known revision is as good as nothing.
	if err := os.WriteFile(c.revisionPath(ep), []byte("1999-01-01\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c.Recall(ep) != "" {
		t.Errorf("recalled %q from a damaged file", c.Recall(ep))
	}
	if err := c.Remember(ep, ""); err != nil || c.Remember(ep, "") != nil {
		t.Errorf("forgetting: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(c.Dir(), "*.revision")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
}
