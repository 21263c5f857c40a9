package main

import (
	"bytes"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/mux"
)

// mcp run keeps what server-everything answers besides text, as mcp call
// does: its image is saved to a file that stderr names, after the tool,
// and so is an embedded resource; its resource links are named there.
func TestRun_SavesServerImages(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	env := append(slices.Clip(serveEnv(t)), "TMPDIR="+tmp, "XDG_RUNTIME_DIR=", mux.NoMuxEnv+"=1")
	prog := `const a = await everything.get_tiny_image()
const b = await everything["get-resource-links"]({count: 2})
const c = await everything.get_resource_reference({resourceType: "Text", resourceId: 2})
;[a, b, c]`
	code, stdout, stderr := runMCP(t, env, "--recipe", serveRecipe(t), "run", "-e", prog)
	if code != 0 || !strings.Contains(stdout, "The image above is the MCP logo.") {
		t.Fatalf("mcp run: exit %d: %s %s", code, stdout, stderr)
	}
	image := regexp.MustCompile(`(?m)^everything\.get-tiny-image: \[image saved to (\S+\.png) \(image/png, [^)]+\)\]$`).FindStringSubmatch(stderr)
	if image == nil {
		t.Fatalf("stderr names no saved image:\n%s", stderr)
	}
	if data, err := os.ReadFile(image[1]); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("%s is not the PNG image (%v)", image[1], err)
	}
	if n := strings.Count(stderr, "everything.get-resource-links: [resource link: demo://resource/"); n != 2 {
		t.Errorf("stderr names %d resource links, want 2:\n%s", n, stderr)
	}
	resource := regexp.MustCompile(`(?m)^everything\.get-resource-reference: \[resource (\S+) saved to (\S+) `).FindStringSubmatch(stderr)
	if resource == nil {
		t.Fatalf("stderr names no saved resource:\n%s", stderr)
	}
	if data, err := os.ReadFile(resource[2]); err != nil || len(data) == 0 {
		t.Errorf("%s holds nothing of %s (%v)", resource[2], resource[1], err)
	}
}
