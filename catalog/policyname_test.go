package catalog

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/mcpsh/mcp/manifests"
)

// variants is one name as servers list it: what an exclusion of any of
// them must cover.
var variants = []string{"delete_all", "delete-all", "Delete_All", "DELETE-ALL", "dElEtE_aLl"}

func TestCovers(t *testing.T) {
	tests := []struct {
		rule, tool string
		want       bool
	}{
		{"delete_all", "delete_all", true},
		{"delete_all", "delete-all", true},
		{"delete-all", "delete_all", true},
		{"delete_all", "Delete_All", true},
		{"DELETE-ALL", "delete_all", true},
		{"straße", "STRASSE", true},     // full case folding
		{"kelvin", "\u212Aelvin", true}, // the Kelvin sign is a K
		{"delete_all", "delete_al", false},
		{"delete_all", "deleteall", false},
		{"delete_all", "delete__all", false},
		{"delete_all", "delete.all", false},
		{"delete_all", "dеlete_all", false}, // a Cyrillic е is another letter
	}
	for _, tt := range tests {
		if got := Covers(tt.rule, tt.tool); got != tt.want {
			t.Errorf("Covers(%q, %q) = %v; want %v", tt.rule, tt.tool, got, tt.want)
		}
	}
}

// allowedOf says which of names srv allows.
func allowedOf(srv *ServerSurface, names []string) []string {
	var out []string
	for _, n := range names {
		if srv.Allowed(n) {
			out = append(out, n)
		}
	}
	return out
}

func TestAllowed_exclusionCoversVariants(t *testing.T) {
	for _, rule := range variants {
		r := &manifests.Recipe{Package: &manifests.Package{Servers: []manifests.ServerPolicy{
			{ID: "all", Include: []string{"*"}, Exclude: []string{rule}},
			{ID: "exact", Include: append([]string{"echo"}, variants...), Exclude: []string{rule}},
		}}}
		s := mustResolve(t, r, "")
		for _, id := range []string{"all", "exact"} {
			srv, _ := s.Server(id)
			if got := allowedOf(srv, append([]string{"echo"}, variants...)); !slices.Equal(got, []string{"echo"}) {
				t.Errorf("boundary %s excluding %q allows %v; want [echo]", id, rule, got)
			}
		}
		exact, _ := s.Server("exact")
		if !slices.Equal(exact.Tools, []string{"echo"}) {
			t.Errorf("boundary exact excluding %q keeps %v; want [echo]", rule, exact.Tools)
		}
	}
}

func TestAllowed_agentExclusionCoversVariants(t *testing.T) {
	for _, rule := range variants {
		r := &manifests.Recipe{Package: &manifests.Package{Servers: []manifests.ServerPolicy{
			{ID: "all", Include: []string{"*"}},
			{ID: "exact", Include: append([]string{"echo"}, variants...)},
		}}, Agents: map[string]*manifests.Agent{}}
		all, exact := srv("all", "*"), srv("exact", "*")
		all.Exclude, exact.Exclude = []string{rule}, []string{rule}
		a := agent("a", "", "cli", all, exact)
		a.File = "agents/a.yaml"
		r.Agents["a"] = a
		s := mustResolve(t, r, "a")
		for _, id := range []string{"all", "exact"} {
			got := allowedOf(s.servers(id), append([]string{"echo"}, variants...))
			if !slices.Equal(got, []string{"echo"}) {
				t.Errorf("agent's %s excluding %q allows %v; want [echo]", id, rule, got)
			}
		}
		// The session's surface, held within the boundary, keeps it so.
		within := s.Within(mustResolve(t, r, ""))
		if got := allowedOf(within.servers("all"), variants); len(got) > 0 {
			t.Errorf("agent within the boundary, excluding %q, allows %v", rule, got)
		}
	}
}

func (s *Surface) servers(id string) *ServerSurface {
	srv, _ := s.Server(id)
	return srv
}

func TestResolve_agentIncludeOfAnExcludedVariant(t *testing.T) {
	for _, name := range variants {
		r := &manifests.Recipe{Package: &manifests.Package{Servers: []manifests.ServerPolicy{
			{ID: "f", Include: []string{"*"}, Exclude: []string{"delete_all"}},
		}}, Agents: map[string]*manifests.Agent{}}
		a := agent("a", "", "cli", srv("f", name))
		a.File = "agents/a.yaml"
		r.Agents["a"] = a
		if msg := resolveErr(t, r, "a"); !strings.Contains(msg, "is outside the package boundary for server f") {
			t.Errorf("agent including %q: %s", name, msg)
		}
	}
}

func TestResolveTool_excludedVariantIsNotReached(t *testing.T) {
	s := mustResolve(t, &manifests.Recipe{Package: &manifests.Package{Servers: []manifests.ServerPolicy{
		{ID: "f", Include: []string{"*"}, Exclude: []string{"delete_all"}},
	}}}, "")
	listed := []string{"echo", "delete_all", "delete-all", "Delete_All"}
	for _, name := range variants {
		if got, err := s.ResolveTool("f", name, listed); err == nil {
			t.Errorf("ResolveTool(f.%s) = %q; want not available", name, got)
		}
	}
	if s.Allowed("f", "Delete-All") || s.Deferred("f", "delete-all") {
		t.Error("a spelling of an excluded tool is allowed")
	}
	if got := Names(s.Filter("f", toolsNamed(listed...))); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("Filter = %v; want [echo]", got)
	}
}

func toolsNamed(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i] = Tool{Name: n}
	}
	return out
}

// FuzzCovers: the folded match is the exact match for names that differ
// in neither "-"/"_" nor case, and an exclusion of a name leaves no
// spelling of it (its cases, its "-" and "_" swapped) allowed or reached
// by a call.
func FuzzCovers(f *testing.F) {
	for _, s := range []string{"delete_all", "Delete-All", "straße", "\u212Aelvin", "lıst", "İstanbul", "ǅemal", "a-b_c", "ﬁle"} {
		f.Add(s, "delete_all")
	}
	f.Fuzz(func(t *testing.T, rule, other string) {
		if !manifests.ValidToolName(rule) || !manifests.ValidToolName(other) {
			return
		}
		if !Covers(rule, rule) || Covers(rule, other) != Covers(other, rule) {
			t.Fatalf("Covers(%q, %q) is not reflexive and symmetric", rule, other)
		}
		if caseless(rule) && caseless(other) && Covers(rule, other) != (rule == other) {
			t.Fatalf("Covers(%q, %q) = %v for names without - and _ that no case mapping changes", rule, other, !(rule == other))
		}
		if ascii(rule) && ascii(other) && Covers(rule, other) != strings.EqualFold(toolKey(rule), toolKey(other)) {
			t.Fatalf("Covers(%q, %q) = %v for ASCII names", rule, other, !strings.EqualFold(toolKey(rule), toolKey(other)))
		}
		if strings.EqualFold(toolKey(rule), toolKey(other)) && !Covers(rule, other) {
			t.Fatalf("Covers(%q, %q) = false for names Go folds to one", rule, other)
		}
		s := &ServerSurface{ID: "f", All: true, Exclude: []string{rule}}
		spellings := spellingsOf(rule)
		for _, v := range spellings {
			if manifests.ValidToolName(v) && s.Allowed(v) {
				t.Fatalf("excluding %q allows %q", rule, v)
			}
		}
		surface := &Surface{Servers: []*ServerSurface{s}}
		listed := append([]string{other}, spellings...)
		for _, v := range spellings {
			if got, err := surface.ResolveTool("f", v, listed); err == nil && Covers(rule, got) {
				t.Fatalf("excluding %q, f.%s reaches %q", rule, v, got)
			}
		}
	})
}

// caseless says whether name has no "-" or "_" and no case mapping
// changes it.
func caseless(name string) bool {
	k := keysOf(name)
	return !strings.ContainsAny(name, "-_") && k == nameKeys{name, name, name, name, name}
}

// spellingsOf are the ways a server may spell name: its cases, by Go's
// and by Unicode's full mappings, its fold, with "-" and "_" as written, all "_" and all
// "-".
func spellingsOf(name string) []string {
	var out []string
	for _, c := range []string{name, strings.ToUpper(name), strings.ToLower(name),
		cases.Upper(language.Und).String(name), cases.Lower(language.Und).String(name), cases.Fold().String(name)} {
		out = append(out, c, strings.ReplaceAll(c, "-", "_"), strings.ReplaceAll(c, "_", "-"))
	}
	return out
}

func TestReport_Cover(t *testing.T) {
	r := &manifests.Recipe{Package: &manifests.Package{Servers: []manifests.ServerPolicy{
		{ID: "f", Include: []string{"*"}, Exclude: []string{"delete_all", "rm"}},
		{ID: "g", Include: []string{"*"}, Exclude: []string{"drop"}},
	}}, Agents: map[string]*manifests.Agent{}}
	a := srv("f", "*")
	a.Exclude = []string{"Purge"}
	ag := agent("a", "", "cli", a)
	ag.File = "agents/a.yaml"
	r.Agents["a"] = ag
	rep := Check("/r", false, r, nil, "")
	rep.Cover(map[string][]string{"f": {"echo", "delete_all", "delete-all", "Delete_All", "rm", "purge"}})
	want := map[string]map[string][]string{"f": {
		"delete_all": {"Delete_All", "delete-all", "delete_all"},
		"rm":         {"rm"},
		"Purge":      {"purge"},
	}}
	if !equalCovers(rep.Covers, want) {
		t.Errorf("Covers = %v; want %v", rep.Covers, want)
	}
	f, _ := rep.Boundary.Server("f")
	if got, want := f.Describe(rep.Covers["f"]), "every tool (*), including tools it adds later; except delete_all (covers Delete_All, delete-all, delete_all), rm"; got != want {
		t.Errorf("Describe = %q; want %q", got, want)
	}
	g, _ := rep.Boundary.Server("g")
	if got, want := g.Describe(rep.Covers["g"]), "every tool (*), including tools it adds later; except drop"; got != want {
		t.Errorf("Describe of a server not listed = %q; want %q", got, want)
	}
	if got := g.Describe(map[string][]string{"drop": {}}); !strings.HasSuffix(got, "except drop (covers none of the tools listed)") {
		t.Errorf("Describe of an exclusion that covers nothing = %q", got)
	}
}

func equalCovers(a, b map[string]map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for id, rules := range a {
		if len(rules) != len(b[id]) {
			return false
		}
		for rule, names := range rules {
			if !slices.Equal(names, b[id][rule]) {
				return false
			}
		}
	}
	return true
}
