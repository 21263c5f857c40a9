package manifests

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestExpand_Strings(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/ada", "EMPTY": "", "A_1": "one", "_X": "x"})
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"${HOME}/bin", "/home/ada/bin"},
		{"${A_1}${_X}", "onex"},
		{"${MISSING:-fallback}", "fallback"},
		{"${EMPTY:-fallback}", "fallback"},
		{"${HOME:-fallback}", "/home/ada"},
		{"${MISSING:-}", ""},
		{"${EMPTY}", ""},
		{"${MISSING:-a b:c-d}", "a b:c-d"},
		{"$HOME stays", "$HOME stays"},
		{"cost: 5$", "cost: 5$"},
		{"$$", "$$"},
		{"kill $$", "kill $$"},
		{"$${HOME}", "$${HOME}"},
		{"$$$${HOME}", "$$$${HOME}"},
		{"$$${HOME}", "$$/home/ada"},
		{"a$b${HOME}", "a$b/home/ada"},
		{"{HOME}", "{HOME}"},
		{"${HOME}}", "/home/ada}"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			e := Endpoint{ID: "s", Command: "x", Args: []string{tc.in}}
			got, err := e.Expand(vars)
			if err != nil {
				t.Fatal(err)
			}
			if got.Args[0] != tc.want {
				t.Errorf("got %q, want %q", got.Args[0], tc.want)
			}
		})
	}
}

func TestExpand_AllFields(t *testing.T) {
	dir := filepath.FromSlash("/recipes/demo")
	e := Endpoint{
		ID: "contacts", Command: "${BIN}/server", Args: []string{"--db", "${DB}"},
		Env: map[string]string{"TOKEN": "${TOKEN}"}, Cwd: "${SUB}", Dir: dir,
	}
	vars := env(map[string]string{"BIN": "./bin", "DB": "x.db", "TOKEN": "t0k", "SUB": "work"})
	got, err := e.Expand(vars)
	if err != nil {
		t.Fatal(err)
	}
	want := Endpoint{
		ID: "contacts", Command: filepath.Join(dir, "bin", "server"), Args: []string{"--db", "x.db"},
		Env: map[string]string{"TOKEN": "t0k"}, Cwd: filepath.Join(dir, "work"), Dir: dir,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if e.Args[1] != "${DB}" || e.Env["TOKEN"] != "${TOKEN}" {
		t.Errorf("Expand changed its receiver: %+v", e)
	}

	h := Endpoint{ID: "wh", URL: "https://${HOST}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}, Dir: dir}
	got, err = h.Expand(env(map[string]string{"HOST": "h.example", "TOKEN": "t0k"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != "https://h.example/mcp" || got.Headers["Authorization"] != "Bearer t0k" || got.Cwd != "" {
		t.Errorf("http endpoint %+v", got)
	}
}

func TestExpand_Paths(t *testing.T) {
	dir := filepath.FromSlash("/r/d")
	abs := filepath.FromSlash("/opt/srv")
	cases := []struct {
		name         string
		in           Endpoint
		command, cwd string
	}{
		{"bare command stays for PATH", Endpoint{Command: "npx", Dir: dir}, "npx", dir},
		{"dot slash resolves", Endpoint{Command: "./server", Dir: dir}, filepath.Join(dir, "server"), dir},
		{"subdir resolves", Endpoint{Command: "bin/server", Dir: dir}, filepath.Join(dir, "bin", "server"), dir},
		{"parent resolves", Endpoint{Command: "../server", Dir: dir}, filepath.Join(dir, "..", "server"), dir},
		{"absolute stays", Endpoint{Command: abs, Dir: dir}, abs, dir},
		{"relative cwd", Endpoint{Command: "npx", Cwd: "sub", Dir: dir}, "npx", filepath.Join(dir, "sub")},
		{"absolute cwd", Endpoint{Command: "npx", Cwd: abs, Dir: dir}, "npx", abs},
		{"no dir leaves it", Endpoint{Command: "./server", Cwd: "sub"}, "./server", "sub"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Expand(env(nil))
			if err != nil {
				t.Fatal(err)
			}
			if got.Command != tc.command || got.Cwd != tc.cwd {
				t.Errorf("command %q cwd %q, want %q %q", got.Command, got.Cwd, tc.command, tc.cwd)
			}
		})
	}
}

func TestExpand_MissingVar(t *testing.T) {
	const secret = "hunter2-secret"
	vars := env(map[string]string{"SET": secret})
	cases := []struct {
		name  string
		in    Endpoint
		field string
		v     string
	}{
		{"command", Endpoint{Command: "${BIN}"}, "command", "BIN"},
		{"arg", Endpoint{Command: "x", Args: []string{"${SET}", "--k=${KEY}"}}, "args[1]", "KEY"},
		{"env", Endpoint{Command: "x", Env: map[string]string{"B": "${SET}", "A": "${API_TOKEN}"}}, "env.A", "API_TOKEN"},
		{"cwd", Endpoint{Command: "x", Cwd: "${D}"}, "cwd", "D"},
		{"url", Endpoint{URL: "https://${SET}/${PATH_PART}"}, "url", "PATH_PART"},
		{"header", Endpoint{URL: "https://h", Headers: map[string]string{"Authorization": "Bearer ${SET}${TOK}"}}, "headers.Authorization", "TOK"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.ID = "contacts"
			tc.in.Pos = Pos{File: "mcp.json", Line: 3, Col: 5}
			_, err := tc.in.Expand(vars)
			var mv *MissingVarError
			if !errors.As(err, &mv) {
				t.Fatalf("err %T %v, want *MissingVarError", err, err)
			}
			if mv.Server != "contacts" || mv.Var != tc.v || mv.Field != tc.field {
				t.Errorf("got %+v", mv)
			}
			msg := err.Error()
			for _, w := range []string{"mcp.json:3:5", `server "contacts"`, tc.field, "variable " + tc.v + " is not set"} {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			mustNotContain(t, msg, secret)
		})
	}
}

func TestExpand_Malformed(t *testing.T) {
	for _, in := range []string{"${", "${A", "${}", "${1A}", "${A-B}", "${A:-${B}}", "${A B}", "x${:-d}", "${A:=d}", "${ A}"} {
		t.Run(in, func(t *testing.T) {
			e := Endpoint{ID: "s", URL: "https://h", Headers: map[string]string{"X": "secret-" + in}}
			_, err := e.Expand(env(map[string]string{"A": "a", "B": "b"}))
			var me *Error
			if !errors.As(err, &me) {
				t.Fatalf("err %T %v, want *Error", err, err)
			}
			if !strings.Contains(err.Error(), "s.headers.X: has a malformed ${...}") {
				t.Errorf("message %q", err)
			}
			mustNotContain(t, err.Error(), "secret-")
		})
	}
}

func TestExpand_NilLookupUsesEnvironment(t *testing.T) {
	t.Setenv("MANIFESTS_TEST_VAR", "from-env")
	got, err := Endpoint{Command: "x", Args: []string{"${MANIFESTS_TEST_VAR}"}}.Expand(nil)
	if err != nil || got.Args[0] != "from-env" {
		t.Fatalf("%v %v", got.Args, err)
	}
}

func TestEndpoint_Transport(t *testing.T) {
	cases := []struct {
		name string
		e    Endpoint
		want Transport
		err  string
	}{
		{"command", Endpoint{Command: "x"}, TransportStdio, ""},
		{"command stdio", Endpoint{Command: "x", Type: "stdio"}, TransportStdio, ""},
		{"url", Endpoint{URL: "https://h"}, TransportAuto, ""},
		{"http", Endpoint{URL: "https://h", Type: "http"}, TransportHTTP, ""},
		{"streamable-http", Endpoint{URL: "https://h", Type: "streamable-http"}, TransportHTTP, ""},
		{"streamableHttp", Endpoint{URL: "https://h", Type: "streamableHttp"}, TransportHTTP, ""},
		{"sse", Endpoint{URL: "https://h", Type: "sse"}, TransportSSE, ""},
		{"both", Endpoint{Command: "x", URL: "https://h"}, "", "has both command and url"},
		{"neither", Endpoint{}, "", "has neither command nor url"},
		{"command http", Endpoint{Command: "x", Type: "http"}, "", "has type http but a command"},
		{"url stdio", Endpoint{URL: "https://h", Type: "stdio"}, "", "has type stdio but a url"},
		{"unknown", Endpoint{URL: "https://h", Type: "ws"}, "", `"ws" is not a known transport type`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.e.ID = "s"
			got, err := tc.e.Transport()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q %v, want %q", got, err, tc.want)
			}
		})
	}
}
