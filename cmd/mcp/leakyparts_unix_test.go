//go:build unix

package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/internal/exit"
)

// serviceAccountJSON is a credential file as a cloud console writes one,
// with a private key of its own, and the lines of the key's body.
func serviceAccountJSON(t *testing.T, id string) (file string, body []string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	data, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "demo", "private_key_id": id,
		"private_key": key, "client_email": "robot@demo.iam.gserviceaccount.com"})
	lines := strings.Split(strings.TrimSpace(key), "\n")
	return string(data), lines[1 : len(lines)-1]
}

// A service account's JSON in a server's env is a secret by its parts: a
// server that repeats lines of its private key, its key id or its
// private_key field gets none of them past mcp, in its instructions (the
// catalog cache), a tool's description (list, the cache), a tool's error,
// the progress line of a call, or the stderr of a server that dies at
// start; a value that holds a private key is secret whatever its
// variable is called.
func TestStructuredSecretParts(t *testing.T) {
	m := newMuxEnv(t)
	const id, idDead = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "ffeeddccbbaa99887766554433221100ffeeddcc"
	creds, lines := serviceAccountJSON(t, id)
	dead, deadLines := serviceAccountJSON(t, idDead)
	writeFile(t, filepath.Join(m.root, "package.json"), `{"pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "parts", "tools": {"include": ["*"]}}, {"id": "dead", "tools": {"include": ["*"]}}]}}}`)
	writeFile(t, filepath.Join(m.root, "mcp.json"), `{"mcpServers": {
  "parts": {"command": "fake-server", "env": {"FAKE_LEAKY_PARTS": "1", "PARTS_FROM": "GOOGLE_CREDENTIALS", "GOOGLE_CREDENTIALS": "${SA_CREDS}"}},
  "dead": {"command": "fake-server", "env": {"FAKE_LEAKY_PARTS": "1", "FAKE_PARTS_EXIT": "1", "PARTS_FROM": "SERVICE_ACCOUNT", "SERVICE_ACCOUNT": "${SA_DEAD}"}}}}`)
	m.env = append(m.env, "SA_CREDS="+creds, "SA_DEAD="+dead)
	m.trust()

	leaks := func(what, text string) {
		t.Helper()
		for _, part := range append(append([]string{id, idDead}, lines...), deadLines...) {
			if len(part) >= 12 && strings.Contains(text, part) {
				t.Errorf("%s holds %q:\n%s", what, part, text)
				return
			}
		}
	}
	leaks("mcp list parts.sign --schema", m.must("list", "parts.sign", "--schema"))
	for _, args := range [][]string{{"list", "parts"}, {"list", "parts", "--json"}} {
		out := m.must(args...)
		leaks("mcp "+strings.Join(args, " "), out)
		if !strings.Contains(out, "[redacted]") {
			t.Errorf("mcp %s: no mask in\n%s", strings.Join(args, " "), out)
		}
	}
	r := m.expect(exit.ToolError, "mcp: error: server error", "call", "parts.sign")
	leaks("the error of parts.sign", r.stderr)
	r = m.expect(exit.Upstream, "mcp: error: server dead is unavailable", "list", "dead")
	leaks("the stderr of dead", r.stderr)
	if !strings.Contains(r.stderr, "bad key line: [redacted]") {
		t.Errorf("no masked line of dead's stderr in\n%s", r.stderr)
	}
	code, _, term := runOnTerminal(t, m.env, 200, "--recipe", m.root, "call", "parts.slow")
	leaks("the terminal of parts.slow", term)
	if code != 0 || !strings.Contains(term, "loading [redacted]") {
		t.Errorf("parts.slow: exit %d, terminal %q", code, term)
	}

	files := 0
	for _, dir := range []string{m.envValue("XDG_CACHE_HOME"), m.tmp} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
				return nil
			}
			if data, err := os.ReadFile(p); err == nil {
				files++
				leaks(p, string(data))
			}
			return nil
		})
	}
	if files < 2 {
		t.Errorf("%d files written: the cache was not written", files)
	}
}
