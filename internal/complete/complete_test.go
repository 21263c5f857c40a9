package complete

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux"
)

func TestParseLine(t *testing.T) {
	values := func(f string) bool { return f == "--timeout" || f == "--recipe" || f == "-a" }
	for text, want := range map[string]line{
		"mcp ":        {word: "", flags: map[string]string{}},
		"mcp call":    {word: "call", flags: map[string]string{}},
		"mcp call ":   {verb: "call", flags: map[string]string{}},
		"mcp call fa": {verb: "call", word: "fa", flags: map[string]string{}},
		"mcp --recipe ../r --agent=ops --json call --timeout 5s fake.echo message=hi mo": {verb: "call",
			args: []string{"fake.echo", "message=hi"}, word: "mo",
			flags: map[string]string{"--recipe": "../r", "--agent": "ops", "--json": "", "--timeout": "5s"}},
		"mcp call -a x -- -s.t ": {verb: "call", args: []string{"-s.t"}, flags: map[string]string{"-a": "x"}},
		"mcp  list\tfake.e":      {verb: "list", word: "fake.e", flags: map[string]string{}},
	} {
		if got := parseLine(text, values); !reflect.DeepEqual(got, want) {
			t.Errorf("parseLine(%q):\n got %+v\nwant %+v", text, got, want)
		}
	}
	if got := parseLine("mc", values); got.word != "mc" || got.verb != "" {
		t.Errorf("parseLine of the program's name: %+v", got)
	}
	if got := parseLine("", values); !reflect.DeepEqual(got, line{}) {
		t.Errorf("parseLine of nothing: %+v", got)
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"mcp call fake.echo a=1 ", "mcp --recipe", "mcp -- --x", " ", "mcp call a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l := parseLine(text, func(f string) bool { return len(f)%2 == 0 })
		if len(text) > 0 && strings.TrimSpace(text) != "" && !strings.HasSuffix(text, l.word) {
			t.Errorf("the word typed %q does not end %q", l.word, text)
		}
		for _, w := range append(l.args, l.verb, l.word) {
			if strings.ContainsAny(w, " \t\n") {
				t.Errorf("word %q holds a space", w)
			}
		}
		// Whatever the line, each candidate is one word.
		for _, c := range candidates(l, testCatalog()) {
			if c == "" || strings.ContainsAny(c, " \t\n'\"") {
				t.Errorf("candidate %q for %q", c, text)
			}
		}
	})
}

const paintSchema = `{"type": "object", "required": ["color"], "properties": {
  "color": {"type": "string", "enum": ["red", "green", "light blue", "a=b"]},
  "glossy": {"type": "boolean"},
  "layers": {"type": "array", "items": {"type": "string"}},
  "note": {"type": "string"},
  "bad key": {"type": "string"}
}}`

// testCatalog is what a source gives: the surface's servers, each with
// its authorized tools (one not listed yet has none).
func testCatalog() *mux.Catalog {
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "fake", All: true}, {ID: "files", All: true}, {ID: "later", All: true}}}
	return &mux.Catalog{Surface: s, Servers: []mux.ServerTools{
		{ID: "fake", Tools: []catalog.Tool{{Server: "fake", Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)},
			{Server: "fake", Name: "paint_it", InputSchema: json.RawMessage(paintSchema)}}},
		{ID: "files", Tools: []catalog.Tool{{Server: "files", Name: "read_file"}}},
		{ID: "later"},
	}}
}

func TestCandidates(t *testing.T) {
	values := func(string) bool { return false }
	for text, want := range map[string][]string{
		"mcp call ":                               {"fake.", "files.", "later."},
		"mcp list f":                              {"fake.", "files.", "later."}, // the shell keeps those it matches
		"mcp call fake.":                          {"fake.echo", "fake.paint_it"},
		"mcp list files.r":                        {"files.read_file"},
		"mcp call later.":                         nil,
		"mcp call nowhere.":                       nil,
		"mcp call fake.paint_it ":                 {"color=", "glossy=", "layers=", "note="},
		"mcp call fake.paint-it color=red ":       {"glossy=", "layers=", "note="},
		"mcp call fake.paint_it layers=a note=x ": {"color=", "glossy=", "layers="},
		"mcp call fake.paint_it color=":           {"red", "green", "a=b"},
		"mcp call fake.paint_it color=r":          {"red"},
		"mcp call fake.paint_it color=a=":         {"b"},
		"mcp call fake.paint_it glossy=":          {"true", "false"},
		"mcp call fake.paint_it note=":            nil,
		"mcp call fake.paint_it color:=":          nil,
		"mcp call fake.nothing ":                  nil,
		"mcp list fake.echo ":                     nil,
		"mcp search ":                             nil,
	} {
		got := candidates(parseLine(text, values), testCatalog())
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

// The grammar Register completes from: a session's verbs with a flag of
// each kind.
type testCLI struct {
	Timeout time.Duration `default:"60s"`
	JSON    bool
	Recipe  string
	Agent   string
	Search  struct {
		Words []string `arg:"" optional:""`
	} `cmd:""`
	List struct {
		Target string `arg:"" optional:""`
		Schema bool
	} `cmd:""`
	Call struct {
		Target string   `arg:"" optional:""`
		Pairs  []string `arg:"" optional:""`
		Args   string
	} `cmd:""`
}

// complete runs register with COMP_LINE set to text, and returns what it
// printed, sorted, and the recipe and agent the source was asked for.
func completeLine(t *testing.T, text string, src Source) (out []string, asked []string) {
	t.Helper()
	t.Setenv("COMP_LINE", text)
	t.Setenv("COMP_POINT", "")
	var stdout bytes.Buffer
	exited := -1
	parser, err := kong.New(&testCLI{}, kong.Name("mcp"), kong.Writers(&stdout, &stdout),
		kong.Exit(func(code int) { exited = code }))
	if err != nil {
		t.Fatal(err)
	}
	register(parser, func(ctx context.Context, recipe, agent string) (*mux.Catalog, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the source was asked without a deadline")
		}
		asked = append(asked, recipe, agent)
		return src(ctx, recipe, agent)
	})
	if exited != 0 {
		t.Fatalf("%q: exit %d", text, exited)
	}
	out = strings.Fields(stdout.String())
	sort.Strings(out)
	return out, asked
}

func TestRegister(t *testing.T) {
	fixed := func(context.Context, string, string) (*mux.Catalog, error) { return testCatalog(), nil }
	out, asked := completeLine(t, "mcp --recipe r call --timeout 5s --agent ops fa", fixed)
	if want := []string{"fake."}; !reflect.DeepEqual(out, want) {
		t.Errorf("call's tool: %q, want %q", out, want)
	}
	if want := []string{"r", "ops"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("the source was asked for %q, want %q", asked, want)
	}
	// After "=" the shells complete what follows it.
	out, _ = completeLine(t, "mcp call fake.paint_it color=gr", fixed)
	if want := []string{"green"}; !reflect.DeepEqual(out, want) {
		t.Errorf("an enum's values: %q, want %q", out, want)
	}
	// The grammar's candidates are kong-completion's, and ask no source.
	out, asked = completeLine(t, "mcp call --a", fixed)
	if want := []string{"--agent", "--args"}; !reflect.DeepEqual(out, want) || asked != nil {
		t.Errorf("flags: %q (source asked %q), want %q", out, asked, want)
	}
	out, asked = completeLine(t, "mcp ", fixed)
	if want := []string{"call", "list", "search"}; !reflect.DeepEqual(out, want) || asked != nil {
		t.Errorf("verbs: %q (source asked %q), want %q", out, asked, want)
	}
	out, _ = completeLine(t, "mcp list --schema files.", fixed)
	if want := []string{"files.read_file"}; !reflect.DeepEqual(out, want) {
		t.Errorf("list's tool: %q, want %q", out, want)
	}
	// A source that fails, or has nothing, offers nothing of tools.
	failing := func(context.Context, string, string) (*mux.Catalog, error) { return nil, errors.New("no recipe") }
	if out, _ := completeLine(t, "mcp call ", failing); len(out) != 0 {
		t.Errorf("a failing source: %q", out)
	}
}
