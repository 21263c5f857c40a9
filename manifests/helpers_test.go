package manifests

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// readAgent, readPackage and readServers read a file from r within the size
// limit, as Load does, then parse it as Load does (servers strictly).
func readAgent(r io.Reader, file, name string) (*Agent, error) {
	data, err := readAll(r, file)
	if err != nil {
		return nil, err
	}
	return parseAgent(data, file, name)
}

func readPackage(r io.Reader, file string) (*Package, error) {
	data, err := readAll(r, file)
	if err != nil {
		return nil, err
	}
	pkg, err := parsePackage(data, file)
	if err != nil {
		return nil, err
	}
	return pkg, nil
}

func readServers(r io.Reader, file string, key string) ([]Endpoint, error) {
	data, err := readAll(r, file)
	if err != nil {
		return nil, err
	}
	eps, _, err := parseServers(data, file, key, false)
	return eps, err
}

// writeTree writes files (slash paths relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newRecipe writes files into a fresh directory and returns it.
func newRecipe(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	return root
}

// at returns "FILE:LINE:COL" of the first occurrence of needle in content,
// counted independently of the parser (columns in characters).
func at(t *testing.T, file, content, needle string) string {
	t.Helper()
	i := strings.Index(content, needle)
	if i < 0 {
		t.Fatalf("fixture has no %q", needle)
	}
	line := strings.Count(content[:i], "\n") + 1
	col := utf8.RuneCountInString(content[strings.LastIndex(content[:i], "\n")+1:i]) + 1
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// pkgJSON wraps a pi.mcp body into a package.json.
func pkgJSON(mcp string) string {
	return "{\n  \"name\": \"demo\",\n  \"pi\": {\n    \"mcp\": " + mcp + "\n  }\n}\n"
}

// wantErrs checks that err is Errors and that each want is a substring of
// some line of it, and that no line is left unmatched when exact.
func wantErrs(t *testing.T, err error, wants ...string) Errors {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %q", wants)
	}
	var es Errors
	if !errors.As(err, &es) {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T %v is neither Errors nor *Error", err, err)
		}
		es = Errors{e}
	}
	msg := err.Error()
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error lacks %q; got:\n%s", w, msg)
		}
	}
	return es
}

func mustNotContain(t *testing.T, s string, secrets ...string) {
	t.Helper()
	for _, x := range secrets {
		if strings.Contains(s, x) {
			t.Errorf("output holds secret %q:\n%s", x, s)
		}
	}
}

const basicManifest = `{
  "mcpServers": {
    "contacts": {"command": "./bin/contacts", "args": ["--db", "${DB:-db.sqlite}"], "env": {"TOKEN": "${CONTACTS_TOKEN}"}},
    "warehouse": {"url": "https://warehouse.example/mcp", "type": "http", "headers": {"Authorization": "Bearer ${WH}"}}
  }
}
`

// wantAt checks that some line of err starts with pos and holds want.
func wantAt(t *testing.T, err error, pos, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s: ...%s", pos, want)
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.HasPrefix(line, pos+": ") && strings.Contains(line, want) {
			return
		}
	}
	t.Errorf("no line at %s holding %q; got:\n%v", pos, want, err)
}
