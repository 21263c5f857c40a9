package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// The input schemas of servers nobody here wrote are all checked here, and
// what is refused here the server refuses too.
func TestValidate_servers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		server func(testing.TB) manifests.Endpoint
		tool   string
		args   string
		want   []string // nil: valid
	}{
		{testenv.EverythingStdio, "get-sum", `{"a":2,"b":40}`, nil},
		{testenv.EverythingStdio, "get-sum", `{"a":"two","b":40}`,
			[]string{`/a: got string, want number`}},
		{testenv.EverythingStdio, "get-resource-links", `{"count":11}`,
			[]string{`/count: maximum: got 11, want 10`}},
		{testenv.EverythingStdio, "get-structured-content", `{"location":"Chicago"}`, nil},
		{testenv.EverythingStdio, "get-structured-content", `{"location":"Paris"}`,
			[]string{`/location: value must be one of 'New York', 'Chicago', 'Los Angeles'`}},
		{testenv.Memory, "create_entities", `{"entities":[{"name":"Ada","entityType":"person","observations":[]}]}`, nil},
		{testenv.Memory, "create_entities", `{"entities":[{"name":"Ada","entityType":"person"}]}`,
			[]string{`/entities/0: missing property 'observations'`}},
		{testenv.Memory, "open_nodes", `{"names":["Ada",7]}`,
			[]string{`/names/1: got number, want string`}},
	}
	ups := map[string]upstream.Conn{}
	schemas := map[string]json.RawMessage{}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, ep := range []manifests.Endpoint{testenv.EverythingStdio(t), testenv.Memory(t)} {
		up, err := upstream.Connect(ctx, ep, upstream.Options{})
		if err != nil {
			t.Fatalf("connect %s: %v", ep.ID, err)
		}
		t.Cleanup(func() { up.Close() })
		tools, err := up.ListTools(ctx)
		if err != nil {
			t.Fatalf("list %s: %v", ep.ID, err)
		}
		for _, tl := range tools {
			if err := catalog.Checked(tl.InputSchema); err != nil {
				t.Errorf("%s.%s is not checked here: %v", ep.ID, tl.Name, err)
			}
			ups[tl.Name], schemas[tl.Name] = up, tl.InputSchema
		}
	}
	for _, tt := range tests {
		schema, ok := schemas[tt.tool]
		if !ok {
			t.Errorf("no tool %s", tt.tool)
			continue
		}
		err := catalog.ValidateArgs(schema, json.RawMessage(tt.args))
		var got []string
		var ie *catalog.InvalidArgsError
		if errors.As(err, &ie) {
			got = ie.Problems
		} else if err != nil {
			t.Errorf("%s %s: %v", tt.tool, tt.args, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.tool, tt.args, diff)
		}
		res, err := ups[tt.tool].CallTool(ctx, tt.tool, json.RawMessage(tt.args))
		if refused := err != nil || res.IsError; refused != (tt.want != nil) {
			t.Errorf("%s %s: the server refused = %v (err %v), here refused = %v", tt.tool, tt.args, refused, err, tt.want != nil)
		}
	}
}

// server-filesystem's schemas (zod) list their properties and say nothing
// about others, and the server ignores a key it does not know: a misspelled
// argument would be lost, so here it is refused.
func TestCheckKnown_filesystem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	up, err := upstream.Connect(ctx, testenv.Filesystem(t, dir), upstream.Options{})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer up.Close()
	tools, err := up.ListTools(ctx)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	i := slices.IndexFunc(tools, func(tl catalog.Tool) bool { return tl.Name == "read_text_file" })
	if i < 0 {
		t.Fatal("server-filesystem has no tool read_text_file")
	}
	args := json.RawMessage(`{"path":` + strconv.Quote(file) + `,"heda":1}`)
	var ue *catalog.UnknownArgsError
	err = catalog.CheckKnown(tools[i].InputSchema, args)
	if !errors.As(err, &ue) || !slices.Equal(ue.Keys, []string{"heda"}) || ue.Suggest["heda"] != "head" {
		t.Fatalf("CheckKnown(%s) = %v, want heda refused, with head suggested", tools[i].InputSchema, err)
	}
	res, err := up.CallTool(ctx, "read_text_file", args)
	if err != nil || res.IsError || res.Text() != "one\ntwo\n" {
		t.Errorf("the server did not ignore the unknown key: %v %+v", err, res)
	}
}
