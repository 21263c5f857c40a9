package manifests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/safefile"
)

// A trust store that cannot be used trusts nothing, says why in one
// warning, and is not rewritten.
func TestTrustStore_Unusable(t *testing.T) {
	if runtime.GOOS == "windows" {
		return // no Unix owners or permission bits there
	}
	cases := []struct {
		name  string
		spoil func(t *testing.T, store string)
		why   string
	}{
		{"damaged", func(t *testing.T, store string) { writeFile(t, store, `{"version": 1, "dirs": [`) }, "is damaged"},
		{"digest does not match", func(t *testing.T, store string) {
			// A file's digest edited by hand, as if it had been trusted so.
			var s trustStore
			data, _ := os.ReadFile(store)
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			s.Dirs[0].Files[0].SHA256 = strings.Repeat("0", 64)
			data, _ = json.Marshal(s)
			writeFile(t, store, string(data))
		}, "is damaged (entry 1: the digest does not match the files)"},
		{"other-writable", func(t *testing.T, store string) { chmod(t, store, 0o602) }, "is writable by group or others"},
		{"group-writable", func(t *testing.T, store string) { chmod(t, store, 0o620) }, "is writable by group or others"},
		{"symlink", func(t *testing.T, store string) {
			real := store + ".real"
			if err := os.Rename(store, real); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, store); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink"},
		{"directory", func(t *testing.T, store string) {
			if err := os.Remove(store); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(store, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is not a regular file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := trustHome(t)
			root := trustRecipe(t)
			if _, err := Trust(root, false); err != nil {
				t.Fatal(err)
			}
			tc.spoil(t, store)
			checkUnusable(t, store, root, tc.why)
		})
	}
}

// checkUnusable checks that a spoilt store trusts nothing, warns once, and
// refuses to be edited or listed.
func checkUnusable(t *testing.T, store, root, why string) {
	t.Helper()
	r := mustLoad(t, root, false)
	want := "the trust store " + store + " " + why
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0], want) || !strings.HasSuffix(r.Warnings[0], "nothing is trusted until it is fixed") {
		t.Errorf("warnings %q, want one starting %q", r.Warnings, want)
	}
	before, _ := os.Lstat(store)
	if _, err := Trust(root, false); err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("Trust on a spoilt store: %v", err)
	}
	if _, err := Forget(root); err == nil {
		t.Error("Forget on a spoilt store succeeded")
	}
	if _, err := TrustList(); err == nil {
		t.Error("TrustList on a spoilt store succeeded")
	}
	if after, err := os.Lstat(store); err != nil || !os.SameFile(before, after) {
		t.Errorf("the spoilt store was replaced: %v", err)
	}
}

// A store that really is another user's (root can give it away) trusts
// nothing.
func TestTrustStore_OwnedByAnother(t *testing.T) {
	if runtime.GOOS == "windows" {
		return
	}
	if os.Getuid() != 0 {
		t.Fatal("this test gives the trust store to another user, which needs root (CI runs as root)")
	}
	store := trustHome(t)
	root := trustRecipe(t)
	if _, err := Trust(root, false); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	if err := os.Chown(store, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	checkUnusable(t, store, root, "is owned by "+safefile.UserName(nobody)+", not by you")
}

// A missing store trusts nothing, without a warning.
func TestTrustStore_Missing(t *testing.T) {
	trustHome(t)
	if r := mustLoad(t, trustRecipe(t), false); len(r.Warnings) != 0 {
		t.Errorf("warnings %q", r.Warnings)
	}
}

func TestParseTrustStore(t *testing.T) {
	files := []TrustedFile{{Path: "mcp.json", SHA256: strings.Repeat("ab", 32)}, {Path: "package.json", SHA256: strings.Repeat("cd", 32)}}
	entry := func(mod func(e map[string]any)) string {
		e := map[string]any{"dir": "/x/recipe", "digest": Digest(files), "files": files, "trusted": "2026-01-02T03:04:05Z"}
		mod(e)
		b, _ := json.Marshal(map[string]any{"version": 1, "dirs": []any{e}})
		return string(b)
	}
	if s, err := parseTrustStore([]byte(entry(func(map[string]any) {}))); err != nil || s.entry("/x/recipe") == nil {
		t.Fatalf("a good store: %v", err)
	}
	bad := map[string]string{
		"not json":        "{",
		"two values":      `{"version": 1, "dirs": []} {}`,
		"version":         `{"version": 2, "dirs": []}`,
		"unknown key":     `{"version": 1, "dirs": [], "extra": true}`,
		"relative dir":    entry(func(e map[string]any) { e["dir"] = "x/recipe" }),
		"unclean dir":     entry(func(e map[string]any) { e["dir"] = "/x/../recipe" }),
		"no files":        entry(func(e map[string]any) { e["files"] = []TrustedFile{}; e["digest"] = Digest(nil) }),
		"unsorted files":  entry(func(e map[string]any) { e["files"] = []TrustedFile{files[1], files[0]} }),
		"bad file digest": entry(func(e map[string]any) { e["files"] = []TrustedFile{{Path: "a", SHA256: "AB"}} }),
		"wrong digest":    entry(func(e map[string]any) { e["digest"] = strings.Repeat("0", 64) }),
		"no time":         entry(func(e map[string]any) { delete(e, "trusted") }),
		"twice": `{"version": 1, "dirs": [` + strings.TrimSuffix(strings.TrimPrefix(entry(func(map[string]any) {}), `{"dirs":[`), `],"version":1}`) +
			`,` + strings.TrimSuffix(strings.TrimPrefix(entry(func(map[string]any) {}), `{"dirs":[`), `],"version":1}`) + `]}`,
	}
	for name, data := range bad {
		if _, err := parseTrustStore([]byte(data)); err == nil {
			t.Errorf("%s: accepted %s", name, data)
		}
	}
}

// FuzzParseTrustStore: the store's parser never panics, and what it
// accepts survives being written and read again.
func FuzzParseTrustStore(f *testing.F) {
	files := []TrustedFile{{Path: "package.json", SHA256: strings.Repeat("ab", 32)}}
	good, _ := json.Marshal(trustStore{Version: 1, Dirs: []trustEntry{{Dir: "/x", Digest: Digest(files), Files: files, Trusted: time.Unix(1, 0).UTC()}}})
	f.Add(good)
	f.Add([]byte(`{"version": 1, "dirs": []}`))
	f.Add([]byte(`{"version": 1, "dirs": [{"dir": "/", "digest": "", "files": null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseTrustStore(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := parseTrustStore(again)
		if err != nil {
			t.Fatalf("a store it accepted does not read back: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(s.Dirs, s2.Dirs) && len(s.Dirs) > 0 {
			t.Fatalf("read back differently:\n%+v\n%+v", s, s2)
		}
	})
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
