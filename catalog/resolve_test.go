package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/manifests"
)

// recipe builds a recipe with agents and this package boundary:
// contacts: include search_contacts, get_contact;
// warehouse: include run_query, exclude drop_table;
// dev-files: include "*", exclude rm;
// empty: no include list.
func recipe(agents ...*manifests.Agent) *manifests.Recipe {
	r := &manifests.Recipe{
		Root: "/r",
		Package: &manifests.Package{Servers: []manifests.ServerPolicy{
			{ID: "contacts", Required: true, Include: []string{"search_contacts", "get_contact"}},
			{ID: "warehouse", Required: true, Include: []string{"run_query"}, Exclude: []string{"drop_table"}},
			{ID: "dev-files", Include: []string{"*"}, Exclude: []string{"rm"}},
			{ID: "empty"},
		}},
		Agents: map[string]*manifests.Agent{},
	}
	for _, a := range agents {
		a.File = "agents/" + a.Name + ".yaml"
		r.Agents[a.Name] = a
	}
	return r
}

func agent(name, extends string, mode string, servers ...manifests.AgentServer) *manifests.Agent {
	a := &manifests.Agent{Name: name, Extends: extends}
	if servers != nil || mode != "" {
		a.MCP = &manifests.AgentMCP{Mode: mode, Servers: servers}
	}
	return a
}

func srv(id string, include ...string) manifests.AgentServer {
	return manifests.AgentServer{ID: id, Include: include}
}

func mustResolve(t *testing.T, r *manifests.Recipe, name string) *Surface {
	t.Helper()
	s, _, err := Resolve(r, name)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", name, err)
	}
	return s
}

func resolveErr(t *testing.T, r *manifests.Recipe, name string) string {
	t.Helper()
	_, _, err := Resolve(r, name)
	if err == nil {
		t.Fatalf("Resolve(%q) succeeded; want a validation error", name)
	}
	var errs manifests.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error is %T, want manifests.Errors", err)
	}
	return err.Error()
}

func TestResolve_PackageBoundary(t *testing.T) {
	s := mustResolve(t, recipe(), "")
	cases := []struct {
		server, tool string
		want         bool
	}{
		{"contacts", "search_contacts", true},
		{"contacts", "get_contact", true},
		{"contacts", "delete_contact", false}, // not in the exact list
		{"warehouse", "run_query", true},
		{"warehouse", "drop_table", false},            // excluded
		{"dev-files", "read_file", true},              // "*"
		{"dev-files", "tool_added_next_year", true},   // "*" covers tools added later
		{"dev_files", "read_file", true},              // - and _ are the same
		{"dev-files", "rm", false},                    // exclude wins over "*"
		{"empty", "anything", false},                  // no include list authorizes nothing
		{"undeclared", "anything", false},             // omitted server: no access
		{"contacts", "search contacts", false},        // not a valid tool name
		{"contacts", strings.Repeat("x", 129), false}, // too long
		{"con.tacts", "search_contacts", false},       // not a valid server id
		{strings.Repeat("c", 65), "search_contacts", false},
	}
	for _, c := range cases {
		if got := s.Allowed(c.server, c.tool); got != c.want {
			t.Errorf("Allowed(%q, %q) = %v, want %v", c.server, c.tool, got, c.want)
		}
	}
	if s.Mode != ModeCLI {
		t.Errorf("mode = %q, want cli", s.Mode)
	}
}

func TestResolve_AgentNarrows(t *testing.T) {
	r := recipe(agent("assistant", "", "cli", srv("contacts", "search_contacts")))
	s := mustResolve(t, r, "assistant")
	if !s.Allowed("contacts", "search_contacts") {
		t.Error("search_contacts should be allowed")
	}
	if s.Allowed("contacts", "get_contact") {
		t.Error("get_contact is in the package but not the agent: must be refused")
	}
	if s.Allowed("warehouse", "run_query") {
		t.Error("warehouse is omitted by the agent: no access")
	}
}

func TestResolve_AgentStarIsPackagePermits(t *testing.T) {
	r := recipe(agent("a", "", "", srv("contacts", "*"), srv("dev_files", "*"), srv("warehouse", "*")))
	s := mustResolve(t, r, "a")
	for _, c := range []struct {
		server, tool string
		want         bool
	}{
		{"contacts", "search_contacts", true},
		{"contacts", "delete_contact", false}, // agent "*" is what the package permits, no more
		{"dev-files", "anything", true},
		{"dev-files", "rm", false},
		{"warehouse", "drop_table", false},
	} {
		if got := s.Allowed(c.server, c.tool); got != c.want {
			t.Errorf("Allowed(%q, %q) = %v, want %v", c.server, c.tool, got, c.want)
		}
	}
}

func TestResolve_AgentCannotWiden(t *testing.T) {
	cases := map[string]*manifests.Agent{
		"undeclared server":     agent("a", "", "", srv("payments", "charge")),
		"tool outside list":     agent("a", "", "", srv("contacts", "delete_contact")),
		"excluded tool":         agent("a", "", "", srv("warehouse", "drop_table")),
		"excluded under star":   agent("a", "", "", srv("dev-files", "rm")),
		"server without policy": agent("a", "", "", srv("empty", "x")),
	}
	for name, a := range cases {
		t.Run(name, func(t *testing.T) {
			msg := resolveErr(t, recipe(a), "a")
			if !strings.Contains(msg, "agent can only narrow") {
				t.Errorf("error %q does not say why", msg)
			}
		})
	}
}

func TestResolve_AgentWithoutMCPBlockHasNoAccess(t *testing.T) {
	s := mustResolve(t, recipe(agent("plain", "", "")), "plain")
	if len(s.Servers) != 0 || s.Allowed("contacts", "search_contacts") {
		t.Errorf("an agent with no mcp block must have no access, got %+v", s.Servers)
	}
	if s.Mode != ModeCLI {
		t.Errorf("mode = %q, want cli", s.Mode)
	}
}

func TestResolve_ServerWithoutIncludeAuthorizesNothing(t *testing.T) {
	s, warns, err := Resolve(recipe(agent("a", "", "", srv("contacts"))), "a")
	if err != nil {
		t.Fatal(err)
	}
	if s.Allowed("contacts", "search_contacts") {
		t.Error("an agent entry with no include must authorize nothing")
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "authorizes nothing") {
		t.Errorf("want a warning that it authorizes nothing, got %q", warns)
	}
}

func TestResolve_AgentExcludeNarrowsFurther(t *testing.T) {
	as := srv("dev-files", "*")
	as.Exclude = []string{"write_file"}
	s := mustResolve(t, recipe(agent("a", "", "", as)), "a")
	if s.Allowed("dev-files", "write_file") || !s.Allowed("dev-files", "read_file") {
		t.Error("agent exclude must remove write_file and keep read_file")
	}
}

func TestResolve_ModeDefaultsToCLIThroughChain(t *testing.T) {
	r := recipe(
		agent("base", "", "", srv("contacts", "*")),
		agent("child", "base", ""),
	)
	for _, name := range []string{"base", "child"} {
		if s := mustResolve(t, r, name); s.Mode != ModeCLI {
			t.Errorf("%s: mode = %q, want cli", name, s.Mode)
		}
	}
}

func TestResolve_InheritsWholeBlock(t *testing.T) {
	r := recipe(
		agent("base", "", "tools", srv("contacts", "search_contacts")),
		agent("child", "base", ""), // no mcp block: inherits base's whole
	)
	s := mustResolve(t, r, "child")
	if s.Mode != ModeTools || !s.Allowed("contacts", "search_contacts") || s.Allowed("contacts", "get_contact") {
		t.Errorf("child should inherit base's block: %+v", s)
	}
}

func TestResolve_DeclaredBlockReplacesWhole(t *testing.T) {
	r := recipe(
		agent("base", "", "tools", srv("contacts", "search_contacts"), srv("warehouse", "run_query")),
		agent("child", "base", "", srv("contacts", "get_contact")),
	)
	s, warns, err := Resolve(r, "child")
	if err != nil {
		t.Fatal(err)
	}
	if s.Allowed("warehouse", "run_query") {
		t.Error("warehouse was not restated: the child's block replaces the inherited one whole")
	}
	if s.Allowed("contacts", "search_contacts") || !s.Allowed("contacts", "get_contact") {
		t.Error("contacts tools must be exactly the child's")
	}
	if s.Mode != ModeCLI {
		t.Errorf("mode not restated: want cli, got %q", s.Mode)
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "not restated") {
		t.Errorf("want a warning about the dropped mode, got %q", warns)
	}
}

func TestResolve_ExtendsErrors(t *testing.T) {
	loop := recipe(agent("a", "b", ""), agent("b", "a", ""))
	if msg := resolveErr(t, loop, "a"); !strings.Contains(msg, "loops") {
		t.Errorf("cycle: %q", msg)
	}
	missing := recipe(agent("a", "ghost", ""))
	if msg := resolveErr(t, missing, "a"); !strings.Contains(msg, "ghost") {
		t.Errorf("missing parent: %q", msg)
	}
	if msg := resolveErr(t, recipe(), "nobody"); !strings.Contains(msg, "no such agent") {
		t.Errorf("unknown agent: %q", msg)
	}
}

func TestResolve_DeferAndEager(t *testing.T) {
	as := srv("dev-files", "*")
	as.Defer = []string{"*"}
	as.Eager = []string{"read_file"}
	s := mustResolve(t, recipe(agent("a", "", "tools", as, srv("contacts", "*"))), "a")
	if !s.Deferred("dev-files", "write_file") {
		t.Error("defer * must hide write_file")
	}
	if s.Deferred("dev-files", "read_file") {
		t.Error("eager wins over defer")
	}
	if !s.Allowed("dev-files", "read_file") || !s.Allowed("dev-files", "write_file") {
		t.Error("deferred and eager tools stay authorized")
	}
	if s.Deferred("dev-files", "rm") || s.Allowed("dev-files", "rm") {
		t.Error("defer cannot authorize an excluded tool")
	}
	if s.Deferred("contacts", "get_contact") {
		t.Error("no defer list: everything is eager")
	}
}

func TestResolve_DeferCannotAuthorize(t *testing.T) {
	as := srv("contacts", "search_contacts")
	as.Defer = []string{"get_contact"}
	if msg := resolveErr(t, recipe(agent("a", "", "tools", as)), "a"); !strings.Contains(msg, "cannot authorize") {
		t.Errorf("got %q", msg)
	}
	as = srv("contacts", "search_contacts")
	as.Eager = []string{"delete_contact"}
	if msg := resolveErr(t, recipe(agent("a", "", "tools", as)), "a"); !strings.Contains(msg, "cannot authorize") {
		t.Errorf("got %q", msg)
	}
}

func TestResolve_DeferInvalidInCLI(t *testing.T) {
	for _, mode := range []string{"cli", ""} {
		as := srv("contacts", "*")
		as.Defer = []string{"*"}
		msg := resolveErr(t, recipe(agent("a", "", mode, as)), "a")
		if !strings.Contains(msg, "only valid in tools mode") {
			t.Errorf("mode %q: %q", mode, msg)
		}
		as = srv("contacts", "*")
		as.Eager = []string{"get_contact"}
		if msg := resolveErr(t, recipe(agent("a", "", mode, as)), "a"); !strings.Contains(msg, "eager") {
			t.Errorf("mode %q eager: %q", mode, msg)
		}
	}
}

func TestResolve_ChildGivesParentNothing(t *testing.T) {
	r := recipe(
		agent("parent", "", "cli", srv("contacts", "search_contacts")),
		agent("child", "parent", "cli", srv("contacts", "search_contacts", "get_contact"), srv("warehouse", "run_query")),
	)
	parent := mustResolve(t, r, "parent")
	if parent.Allowed("contacts", "get_contact") || parent.Allowed("warehouse", "run_query") {
		t.Error("a child's capabilities must not reach its parent")
	}
}

func TestCheck_SameErrorForUnknownAndUnauthorized(t *testing.T) {
	for _, session := range []bool{false, true} {
		s := mustResolve(t, recipe(agent("a", "", "", srv("contacts", "search_contacts"))), "a")
		s.Session = session
		want := "contacts.get_contact is not available: the recipe does not authorize it, or the server has no such tool"
		if session {
			want = "contacts.get_contact is not available in this session"
		}
		unauthorized := s.Check("contacts", "get_contact")
		unknown := s.Check("contacts", "no_such_tool")
		if unauthorized == nil || unknown == nil {
			t.Fatal("both must be refused")
		}
		if got := unauthorized.Error(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if strings.Replace(unknown.Error(), "no_such_tool", "X", 1) != strings.Replace(unauthorized.Error(), "get_contact", "X", 1) {
			t.Errorf("messages differ beyond the name: %q vs %q", unknown, unauthorized)
		}
		undeclared := s.Check("payments", "charge")
		if got := undeclared.Error(); got != strings.Replace(want, "contacts.get_contact", "payments.charge", 1) {
			t.Errorf("got %q", got)
		}
		if session != strings.Contains(unauthorized.Error()+s.NotAvailable("payments", "").Error(), "session") {
			t.Errorf("session %v, but the errors say %q, %q", session, unauthorized, s.NotAvailable("payments", ""))
		}
	}
}

func TestNotAvailable_UserConfig(t *testing.T) {
	s := mustResolve(t, &manifests.Recipe{User: true}, "")
	if got, want := s.Check("fs", "read").Error(), "fs.read is not available: your MCP configuration has no such server, or the server has no such tool"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := s.NotAvailable("fs", "").Error(), "fs is not available: your MCP configuration has no such server"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestResolve_UserConfigAuthorizesEverything(t *testing.T) {
	r := &manifests.Recipe{User: true, Endpoints: map[string]manifests.Endpoint{
		"my_server": {ID: "my-server", Command: "x"},
	}}
	s := mustResolve(t, r, "")
	if !s.User || !s.Allowed("my-server", "anything") || !s.Allowed("my_server", "anything") {
		t.Errorf("user config: every tool of its servers is authorized: %+v", s)
	}
	if _, _, err := Resolve(r, "someone"); err == nil {
		t.Error("--agent outside a recipe must be an error")
	}
}

func TestFilter_KeepsOnlyAuthorized(t *testing.T) {
	s := mustResolve(t, recipe(), "")
	got := s.Filter("warehouse", []Tool{{Name: "run_query"}, {Name: "drop_table"}, {Name: "vacuum"}})
	if len(got) != 1 || got[0].Name != "run_query" || got[0].Server != "warehouse" {
		t.Errorf("Filter = %+v", got)
	}
}

// A surface is never wider than the boundary it is checked against: a
// server the boundary lacks is dropped, "*" becomes the boundary's list,
// and the boundary's excludes apply.
func TestSurface_Within(t *testing.T) {
	boundary := &Surface{Servers: []*ServerSurface{
		{ID: "a", Tools: []string{"x", "y"}},
		{ID: "b", All: true, Exclude: []string{"drop"}},
	}}
	s := &Surface{Agent: "agent", Mode: ModeCLI, Servers: []*ServerSurface{
		{ID: "a", All: true, Required: true},
		{ID: "b", All: true},
		{ID: "c", All: true},
		{ID: "a-b", Tools: []string{"x"}},
	}}
	got := s.Within(boundary)
	if got.Agent != "agent" || got.Mode != ModeCLI {
		t.Errorf("agent and mode changed: %+v", got)
	}
	for _, c := range []struct {
		server, tool string
		want         bool
	}{
		{"a", "x", true}, {"a", "z", false}, {"b", "anything", true}, {"b", "drop", false}, {"c", "x", false},
	} {
		if g := got.Allowed(c.server, c.tool); g != c.want {
			t.Errorf("Allowed(%s, %s) = %v, want %v", c.server, c.tool, g, c.want)
		}
	}
	if srv, _ := got.Server("a"); !srv.Required {
		t.Error("required was lost")
	}
	if s.Servers[0].Tools != nil || !s.Servers[0].All {
		t.Error("Within changed the surface it was given")
	}
}

// A tool outside the boundary is named once, and what the package permits
// never lists a tool it excludes.
func TestResolve_OutsideBoundaryMessage(t *testing.T) {
	r := recipe(agent("writer", "", "", srv("dev-files", "rm")), agent("reader", "", "", srv("warehouse", "drop_table")))
	r.Package.Servers = append(r.Package.Servers, manifests.ServerPolicy{ID: "fs", Include: []string{"read_file", "write_file"}, Exclude: []string{"write_file"}})
	r.Agents["fs-writer"] = agent("fs-writer", "", "", srv("fs", "write_file"))
	cases := map[string]string{
		"writer":    `mcp.servers.dev-files.include[0]: "rm" is outside the package boundary for server dev-files; an agent can only narrow: the package permits every tool except rm`,
		"reader":    `mcp.servers.warehouse.include[0]: "drop_table" is outside the package boundary for server warehouse; an agent can only narrow: the package permits run_query`,
		"fs-writer": `mcp.servers.fs.include[0]: "write_file" is outside the package boundary for server fs; an agent can only narrow: the package permits read_file`,
	}
	for name, want := range cases {
		if got := resolveErr(t, r, name); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// The resolved surface names excluded tools only where they narrow "*".
func TestServerSurface_Describe(t *testing.T) {
	r := recipe(agent("a", "", "", srv("dev-files", "*"), srv("warehouse", "run_query"), srv("contacts", "get_contact")))
	s := mustResolve(t, r, "a")
	want := map[string]string{
		"contacts":  "required; get_contact",
		"dev-files": "every tool (*), including tools it adds later; except rm",
		"warehouse": "required; run_query",
	}
	for _, srv := range s.Servers {
		if got := srv.Describe(nil); got != want[srv.ID] {
			t.Errorf("%s: got %q, want %q", srv.ID, got, want[srv.ID])
		}
	}
	for _, srv := range mustResolve(t, r, "").Servers {
		if srv.ID == "warehouse" && srv.Describe(nil) != "required; run_query" {
			t.Errorf("the boundary's warehouse: got %q", srv.Describe(nil))
		}
	}
}
