package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoad_Recipe(t *testing.T) {
	root := newRecipe(t, map[string]string{
		"package.json": pkgJSON(`{
      "manifests": ["mcp.json"],
      "servers": [
        {"id": "contacts", "required": true, "tools": {"include": ["search_contacts", "get_contact"]}},
        {"id": "warehouse", "tools": {"include": ["run_query"], "exclude": ["drop_table"]}},
        {"id": "dev-radius", "tools": {"include": ["*"]}},
        {"id": "notes"}
      ]
    }`),
		"mcp.json": basicManifest,
		".pi/mcp.local.json": `{"mcpServers": {
  "dev_radius": {"url": "http://localhost:9000/mcp"},
  "warehouse": {"command": "wh-local", "cwd": "srv"}
}}`,
		"agents/support.yaml": "name: support\ntools: [bash]\nmcp:\n  mode: cli\n  servers:\n    contacts:\n      include: [search_contacts]\n",
		"agents/analyst.yml":  "extends: support\nmcp:\n  mode: tools\n  servers:\n    warehouse:\n      include: ['*']\n      defer: ['*']\n      eager: [run_query]\n",
		"agents/writer.md":    "---\ndescription: writes\n---\n# Writer\n",
		"agents/notes.txt":    "not an agent",
		"agents/.hidden.yaml": "{{{",
	})
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if r.Root != root || r.User || r.Package == nil {
		t.Fatalf("Root %q User %v Package %v", r.Root, r.User, r.Package)
	}
	p := r.Package
	if p.File != filepath.Join(root, "package.json") || !slices.Equal(p.Manifests, []string{"mcp.json"}) {
		t.Errorf("package %q manifests %q", p.File, p.Manifests)
	}
	wantPolicies := []ServerPolicy{
		{ID: "contacts", Required: true, Include: []string{"search_contacts", "get_contact"}},
		{ID: "warehouse", Include: []string{"run_query"}, Exclude: []string{"drop_table"}},
		{ID: "dev-radius", Include: []string{"*"}},
		{ID: "notes"},
	}
	got := make([]ServerPolicy, len(p.Servers))
	for i, s := range p.Servers {
		got[i] = ServerPolicy{ID: s.ID, Required: s.Required, Include: s.Include, Exclude: s.Exclude}
	}
	if d := cmp.Diff(wantPolicies, got); d != "" {
		t.Errorf("policies (-want +got):\n%s", d)
	}
	if p.Servers[3].Include != nil {
		t.Errorf("absent include must stay nil (authorizes nothing)")
	}
	if got := p.Servers[0].Pos.String(); got != "package.json:7:10" {
		t.Errorf("policy pos %s, want package.json:7:10 (its id key)", got)
	}
	if len(p.Servers[0].IncludePos) != 2 || p.Servers[0].IncludePos[1].String() != "package.json:7:87" {
		t.Errorf("include positions %v", p.Servers[0].IncludePos)
	}

	if keys := slices.Sorted(func(yield func(string) bool) {
		for k := range r.Endpoints {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(keys, []string{"contacts", "dev_radius", "warehouse"}) {
		t.Errorf("endpoint keys %q", keys)
	}
	c := r.Endpoints["contacts"]
	if c.ID != "contacts" || c.Dir != root || c.Command != "./bin/contacts" || c.Env["TOKEN"] != "${CONTACTS_TOKEN}" {
		t.Errorf("contacts endpoint %+v", c)
	}
	if c.Pos.File != "mcp.json" || c.Pos.Line != 3 || c.Pos.Col != 5 {
		t.Errorf("contacts pos %v, want mcp.json:3:5", c.Pos)
	}
	w := r.Endpoints["warehouse"]
	if w.Command != "wh-local" || w.URL != "" || w.Headers != nil || w.Dir != filepath.Join(root, ".pi") {
		t.Errorf("local binding must replace the manifest entry whole: %+v", w)
	}
	if d := r.Endpoints["dev_radius"]; d.ID != "dev_radius" || d.URL == "" {
		t.Errorf("dev_radius %+v", d)
	}

	if len(r.Agents) != 3 {
		t.Fatalf("agents %v", r.Agents)
	}
	s := r.Agents["support"]
	if s.File != filepath.Join(root, "agents", "support.yaml") || s.MCP == nil || s.MCP.Mode != "cli" ||
		len(s.MCP.Servers) != 1 || s.MCP.Servers[0].ID != "contacts" || !slices.Equal(s.Tools, []string{"bash"}) {
		t.Errorf("support %+v %+v", s, s.MCP)
	}
	if a := r.Agents["analyst"]; a.Extends != "support" || a.Pos.Line != 1 || a.Pos.File != "agents/analyst.yml" {
		t.Errorf("analyst %+v", a)
	}
	if wr := r.Agents["writer"]; wr.MCP != nil {
		t.Errorf("writer has no mcp block, got %+v", wr.MCP)
	}

	wantFiles := []string{
		filepath.Join(root, ".pi", "mcp.local.json"),
		filepath.Join(root, "agents", "analyst.yml"),
		filepath.Join(root, "agents", "support.yaml"),
		filepath.Join(root, "agents", "writer.md"),
		filepath.Join(root, "mcp.json"),
		filepath.Join(root, "package.json"),
		root,
		filepath.Join(root, ".pi"),
		filepath.Join(root, "agents"),
	}
	if d := cmp.Diff(wantFiles, r.Files); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
}

func TestLoad_FilesWithoutOptionalParts(t *testing.T) {
	root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{}`)})
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{filepath.Join(root, "package.json"), root}, r.Files); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	if len(r.Endpoints) != 0 || len(r.Agents) != 0 || r.Package == nil {
		t.Errorf("recipe %+v", r)
	}
}

func TestLoad_NoPiMCP(t *testing.T) {
	root := newRecipe(t, map[string]string{"package.json": `{"name": "x", "pi": {"agents": []}}`})
	_, err := Load(root)
	wantErrs(t, err, "package.json: pi.mcp: is missing")
}

// policyCase is a package.json pi.mcp body and the error it must give: the
// position of needle, then want.
type policyCase struct {
	name, mcp, needle, want string
}

func runPolicyCases(t *testing.T, cases []policyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			content := pkgJSON(tc.mcp)
			root := newRecipe(t, map[string]string{"package.json": content})
			_, err := Load(root)
			wantAt(t, err, at(t, "package.json", content, tc.needle), tc.want)
		})
	}
}

func TestLoad_ToolNames(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"glob", `{"servers": [{"id": "a", "tools": {"include": ["search_*"]}}]}`, `"search_*"`,
			`pi.mcp.servers[0].tools.include[0]: "search_*" is a pattern; tool names are exact or "*"`},
		{"regex", `{"servers": [{"id": "a", "tools": {"include": ["ok", "^get.+$"]}}]}`, `"^get`,
			`pi.mcp.servers[0].tools.include[1]: "^get.+$" is a pattern`},
		{"question mark", `{"servers": [{"id": "a", "tools": {"include": ["get?"]}}]}`, `"get?"`, `is a pattern`},
		{"braces", `{"servers": [{"id": "a", "tools": {"include": ["{a,b}"]}}]}`, `"{a,b}"`, `is a pattern`},
		{"pattern in exclude", `{"servers": [{"id": "a", "tools": {"include": ["*"], "exclude": ["drop_*"]}}]}`, `"drop_*"`,
			`pi.mcp.servers[0].tools.exclude[0]: "drop_*" is a pattern`},
		{"star not alone", `{"servers": [{"id": "a", "tools": {"include": ["x", "*"]}}]}`, `"*"`,
			`include[1]: "*" must be the only entry of include`},
		{"star in exclude", `{"servers": [{"id": "a", "tools": {"include": ["*"], "exclude": ["*"]}}]}`, `"*"]}`,
			`exclude[0]: "*" is not allowed in exclude; exclude lists exact tool names`},
		{"whitespace", `{"servers": [{"id": "a", "tools": {"include": ["search contacts"]}}]}`, `"search contacts"`,
			`include[0]: "search contacts" is not a valid tool name; tool names are 1-128 characters`},
		{"unicode space", `{"servers": [{"id": "a", "tools": {"include": ["a\u00a0b"]}}]}`, `"a\u00a0b"`, `is not a valid tool name`},
		{"tab", `{"servers": [{"id": "a", "tools": {"include": ["a\tb"]}}]}`, `"a\tb"`, `is not a valid tool name`},
		{"empty", `{"servers": [{"id": "a", "tools": {"include": [""]}}]}`, `""`, `include[0]: is not a valid tool name`},
		{"too long", `{"servers": [{"id": "a", "tools": {"include": ["` + strings.Repeat("x", 129) + `"]}}]}`, `"xxx`,
			`is not a valid tool name`},
		{"not a string", `{"servers": [{"id": "a", "tools": {"include": [42]}}]}`, `42`,
			`include[0]: must be a tool name (a string), not a number`},
		{"not a list", `{"servers": [{"id": "a", "tools": {"include": "*"}}]}`, `"*"`,
			`include: must be a list of tool names, not a string; write include: ["name", ...]`},
	})
}

func TestLoad_ToolNameLimits(t *testing.T) {
	content := pkgJSON(`{"servers": [{"id": "a", "tools": {"include": ["` + strings.Repeat("é", 128) + `", "a.b-c_d/e"]}}]}`)
	root := newRecipe(t, map[string]string{"package.json": content})
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Package.Servers[0].Include; len(got) != 2 {
		t.Errorf("include %q", got)
	}
}

func TestLoad_ServerIDs(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"invalid chars", `{"servers": [{"id": "my server"}]}`, `"my server"`,
			`pi.mcp.servers[0].id: "my server" is not a valid server id; server ids are 1-64 characters`},
		{"dot", `{"servers": [{"id": "a.b"}]}`, `"a.b"`, `"a.b" is not a valid server id`},
		{"too long", `{"servers": [{"id": "` + strings.Repeat("a", 65) + `"}]}`, `"aaa`, `is not a valid server id`},
		{"empty", `{"servers": [{"id": ""}]}`, `""`, `pi.mcp.servers[0].id: is not a valid server id`},
		{"missing", `{"servers": [{"required": true}]}`, `{"required"`, `pi.mcp.servers[0]: has no id`},
		{"duplicate", `{"servers": [{"id": "a"}, {"id": "a"}]}`, `"a"}]`,
			`pi.mcp.servers[1].id: "a" is a duplicate server id; it is already declared at line 4`},
		{"duplicate after canonical", `{"servers": [{"id": "dev-radius"}, {"id": "dev_radius"}]}`, `"dev_radius"`,
			`"dev_radius" is a duplicate server id`},
	})
}

func TestLoad_UnknownKeys(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"pi.mcp", `{"server": []}`, `"server"`, `pi.mcp: "server" is not a known key; did you mean "servers"? valid keys are manifests, servers`},
		{"server entry", `{"servers": [{"id": "a", "include": ["x"]}]}`, `"include"`,
			`pi.mcp.servers[0]: "include" is not a known key; valid keys are id, required, tools`},
		{"tools", `{"servers": [{"id": "a", "tools": {"inclde": ["x"]}}]}`, `"inclde"`,
			`pi.mcp.servers[0].tools: "inclde" is not a known key; did you mean "include"?`},
		{"duplicate key", `{"servers": [], "servers": [{"id": "a", "tools": {"include": ["*"]}}]}`, `"servers": [{`,
			`pi.mcp: "servers" is a duplicate key; it is already set at line 4`},
	})
}

func TestLoad_WrongTypes(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"mcp not object", `[]`, `[]`, `pi.mcp: must be an object, not a list`},
		{"servers object", `{"servers": {"a": {}}}`, `{"a"`, `pi.mcp.servers: must be a list of server entries, not an object`},
		{"entry string", `{"servers": ["a"]}`, `"a"`, `pi.mcp.servers[0]: must be an object, not a string`},
		{"id number", `{"servers": [{"id": 7}]}`, `7`, `pi.mcp.servers[0].id: must be a string, not a number`},
		{"required string", `{"servers": [{"id": "a", "required": "yes"}]}`, `"yes"`, `required: must be true or false, not a string`},
		{"tools list", `{"servers": [{"id": "a", "tools": ["x"]}]}`, `["x"]`, `tools: must be an object, not a list`},
		{"manifests string", `{"manifests": "mcp.json"}`, `"mcp.json"`, `pi.mcp.manifests: must be a list of strings, not a string`},
	})
}

func TestLoad_Manifests(t *testing.T) {
	runPolicyCases(t, []policyCase{
		{"parent", `{"manifests": ["../mcp.json"]}`, `"../`, `pi.mcp.manifests[0]: "../mcp.json" is outside the package root`},
		{"sneaky parent", `{"manifests": ["a/../../mcp.json"]}`, `"a/`, `is outside the package root`},
		{"absolute", `{"manifests": ["/etc/mcp.json"]}`, `"/etc`, `is outside the package root`},
		{"missing", `{"manifests": ["nope.json"]}`, `"nope.json"`, `pi.mcp.manifests[0]: "nope.json" does not exist`},
		{"empty", `{"manifests": [""]}`, `""`, `pi.mcp.manifests[0]: is empty`},
		{"twice", `{"manifests": ["m.json", "./m.json"]}`, `"./m.json"`, `"./m.json" is listed twice`},
	})
}

func TestLoad_ManifestsDefineSameServer(t *testing.T) {
	root := newRecipe(t, map[string]string{
		"package.json": pkgJSON(`{"manifests": ["a.json", "sub/b.json"]}`),
		"a.json":       `{"mcpServers": {"dev-radius": {"command": "x"}}}`,
		"sub/b.json":   "{\n\"mcpServers\": {\"dev_radius\": {\"command\": \"y\"}}}",
	})
	_, err := Load(root)
	wantErrs(t, err, `sub/b.json:2:16: mcpServers: "dev_radius" is already defined by another manifest; it is defined at a.json:1:17`)
}

func TestLoad_ManifestDir(t *testing.T) {
	root := newRecipe(t, map[string]string{
		"package.json":     pkgJSON(`{"manifests": ["servers/mcp.json"]}`),
		"servers/mcp.json": `{"mcpServers": {"a": {"command": "./a"}}}`,
	})
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if r.Endpoints["a"].Dir != filepath.Join(root, "servers") || r.Endpoints["a"].Pos.File != "servers/mcp.json" {
		t.Errorf("endpoint %+v", r.Endpoints["a"])
	}
}

// endpointCase is a manifest and the error it must give.
type endpointCase struct {
	name, manifest, needle, want string
}

func TestLoad_Endpoints(t *testing.T) {
	cases := []endpointCase{
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "https://h/mcp"}}}`, `{"command"`,
			`mcpServers.a: has both command and url`},
		{"neither", `{"mcpServers": {"a": {"args": ["x"]}}}`, `{"args"`, `mcpServers.a: has neither command nor url`},
		{"unknown type", `{"mcpServers": {"a": {"url": "https://h/mcp", "type": "websocket"}}}`, `"websocket"`,
			`mcpServers.a.type: "websocket" is not a known transport type; type is one of "stdio", "http", "streamable-http", "streamableHttp", "sse"`},
		{"stdio needs command", `{"mcpServers": {"a": {"url": "https://h/mcp", "type": "stdio"}}}`, `"stdio"`,
			`mcpServers.a.type: "stdio" needs command`},
		{"unknown protocol version", `{"mcpServers": {"a": {"command": "x", "protocolVersion": "2026-01-01"}}}`, `"2026-01-01"`,
			`mcpServers.a.protocolVersion: "2026-01-01" is not a known MCP revision; protocolVersion is one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, or left out to negotiate`},
		{"modern over sse", `{"mcpServers": {"a": {"url": "https://h/sse", "type": "sse", "protocolVersion": "2026-07-28"}}}`, `"2026-07-28"`,
			`mcpServers.a.protocolVersion: "2026-07-28" is not spoken over SSE; 2026-07-28 is spoken over streamable HTTP ("type": "http") or stdio`},
		{"protocol version not a string", `{"mcpServers": {"a": {"command": "x", "protocolVersion": 2026}}}`, `2026}`,
			`mcpServers.a.protocolVersion: must be a string`},
		{"http needs url", `{"mcpServers": {"a": {"command": "x", "type": "http"}}}`, `"http"`, `mcpServers.a.type: "http" needs url`},
		{"sse needs url", `{"mcpServers": {"a": {"command": "x", "type": "sse"}}}`, `"sse"`, `"sse" needs url`},
		{"unknown key", `{"mcpServers": {"a": {"command": "x", "enviroment": {}}}}`, `"enviroment"`,
			`mcpServers.a: "enviroment" is not a known key`},
		{"disabled is ours to reject", `{"mcpServers": {"a": {"command": "x", "disabled": true}}}`, `"disabled"`,
			`"disabled" is not a known key`},
		{"bad id", `{"mcpServers": {"a b": {"command": "x"}}}`, `"a b"`, `mcpServers: "a b" is not a valid server id`},
		{"duplicate id", `{"mcpServers": {"a-b": {"command": "x"}, "a_b": {"command": "y"}}}`, `"a_b"`,
			`mcpServers: "a_b" is a duplicate server id`},
		{"servers not object", `{"mcpServers": []}`, `[]`, `mcpServers: must be an object of servers by id, not a list`},
		{"entry not object", `{"mcpServers": {"a": "x"}}`, `"x"`, `mcpServers.a: must be an object, not a string`},
		{"args not list", `{"mcpServers": {"a": {"command": "x", "args": "--v"}}}`, `"--v"`, `mcpServers.a.args: must be a list of strings, not a string`},
		{"arg number", `{"mcpServers": {"a": {"command": "x", "args": ["a", 3]}}}`, `3]`, `mcpServers.a.args[1]: must be a string, not a number`},
		{"command empty", `{"mcpServers": {"a": {"command": ""}}}`, `""`, `mcpServers.a.command: is empty`},
		{"env number", `{"mcpServers": {"a": {"command": "x", "env": {"PORT": 8080}}}}`, `8080`, `mcpServers.a.env.PORT: must be a string, not a number`},
		{"env bad name", `{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}`, `"A=B"`, `mcpServers.a.env: "A=B" is not a valid name`},
		{"header bad name", `{"mcpServers": {"a": {"url": "https://h", "headers": {"X Y": "1"}}}}`, `"X Y"`, `mcpServers.a.headers: "X Y" is not a valid name`},
		{"malformed expansion", `{"mcpServers": {"a": {"command": "x", "args": ["${A"]}}}`, `"${A"`,
			`mcpServers.a.args[0]: has a malformed ${...}; write ${NAME} or ${NAME:-default}`},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h/x"}}}`, `"ftp:`, `mcpServers.a.url: is not an http or https URL`},
		{"invalid json", "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}", `}`, `invalid JSON: invalid character '}'`},
		{"truncated", `{"mcpServers": {"a": {`, `@mcp.json:1:23`, `invalid JSON: unexpected end of file`},
		{"trailing", `{"mcpServers": {}} {}`, `@mcp.json:1:20`, `unexpected data after the top-level value`},
		{"top not object", `[1]`, `[1]`, `must be an object, not a list`},
		{"empty file", ``, ``, `file is empty; expected a JSON object`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := newRecipe(t, map[string]string{
				"package.json": pkgJSON(`{"manifests": ["mcp.json"]}`),
				"mcp.json":     tc.manifest,
			})
			_, err := Load(root)
			pos := "mcp.json"
			if p, ok := strings.CutPrefix(tc.needle, "@"); ok {
				pos = p
			} else if tc.needle != "" {
				pos = at(t, "mcp.json", tc.manifest, tc.needle)
			}
			wantAt(t, err, pos, tc.want)
		})
	}
}

func TestLoad_LocalBindingsAreChecked(t *testing.T) {
	root := newRecipe(t, map[string]string{
		"package.json":       pkgJSON(`{}`),
		".pi/mcp.local.json": "{\"mcpServers\": {\n  \"a\": {\"url\": \"https://h\", \"type\": \"stdio\"}}}",
	})
	_, err := Load(root)
	wantErrs(t, err, `.pi/mcp.local.json:2:37: mcpServers.a.type: "stdio" needs command`)
}

func TestLoad_AllProblemsAtOnce(t *testing.T) {
	root := newRecipe(t, map[string]string{
		"package.json":        pkgJSON(`{"manifests": ["mcp.json", "gone.json"], "servers": [{"id": "a", "tools": {"include": ["x*"], "exclude": ["*"]}}]}`),
		"mcp.json":            `{"mcpServers": {"a": {}}}`,
		".pi/mcp.local.json":  `{"mcpServers": {"b": {"url": "https://h", "bogus": 1}}}`,
		"agents/one.yaml":     "mcp:\n  mode: fast\n",
		"agents/two.md":       "---\nmcp: {servers: {a: {include: [b?]}}}\n",
		"agents/three.yaml":   "mcp: {}\n",
		"agents/eager.yaml":   "mcp:\n  servers:\n    a:\n      eager: ['*']\n",
		"agents/three.md":     "---\n---\n",
		"agents/ok.yaml":      "mcp:\n  servers:\n    a:\n      include: ['*']\n",
		"agents/typo.yml":     "mcp:\n  mod: tools\n",
		"agents/notyaml.yaml": "a: [\n",
	})
	r, errs := load(root, defaultTrustPlace())
	var err error = errs
	es := wantErrs(t, err,
		`package.json:4:99: pi.mcp.servers[0].tools.include[0]: "x*" is a pattern`,
		`pi.mcp.servers[0].tools.exclude[0]: "*" is not allowed in exclude`,
		`pi.mcp.manifests[1]: "gone.json" does not exist`,
		`mcp.json:1:22: mcpServers.a: has neither command nor url`,
		`.pi/mcp.local.json:1:43: mcpServers.b: "bogus" is not a known key`,
	)
	if len(es) != 5 {
		t.Errorf("want 5 problems of the recipe, got %d:\n%v", len(es), err)
	}
	// Each agent file's problems are that agent's.
	for name, want := range map[string]string{
		"one":     `agents/one.yaml:2:9: mcp.mode: "fast" is not a mode; mode is "cli" or "tools"`,
		"two":     `agents/two.md:1:1: front matter is not closed`,
		"eager":   `agents/eager.yaml:4:15: mcp.servers.a.eager[0]: "*" is not allowed in eager`,
		"three":   `agents/three.yaml: "three" is already an agent; it is defined by agents/three.md`,
		"typo":    `agents/typo.yml:2:3: mcp: "mod" is not a known key; did you mean "mode"?`,
		"notyaml": `agents/notyaml.yaml:2: invalid YAML`,
	} {
		wantErrs(t, r.AgentErrors[name], want)
	}
	if len(r.AgentErrors) != 6 {
		t.Errorf("want 6 agents with problems, got %v", r.AgentErrors)
	}
	if _, ok := r.Agents["ok"]; !ok {
		t.Errorf("the agent without a problem was not read: %v", r.Agents)
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if line == "" {
			t.Errorf("empty line in %q", err)
		}
	}
}

func TestLoad_Bounds(t *testing.T) {
	t.Run("file too large", func(t *testing.T) {
		root := newRecipe(t, map[string]string{
			"package.json": pkgJSON(`{"manifests": ["mcp.json"]}`),
			"mcp.json":     `{"mcpServers": {}, "pad": "` + strings.Repeat("x", maxFileSize) + `"}`,
		})
		_, err := Load(root)
		wantErrs(t, err, "mcp.json: file is larger than the 1 MiB limit for configuration files")
	})
	t.Run("reader too large", func(t *testing.T) {
		_, err := readServers(strings.NewReader(strings.Repeat(" ", maxFileSize)+`{}`), "big.json", "mcpServers")
		wantErrs(t, err, "big.json: file is larger than the 1 MiB limit")
	})
	t.Run("exactly the limit", func(t *testing.T) {
		doc := `{"mcpServers": {}}`
		eps, err := readServers(strings.NewReader(doc+strings.Repeat(" ", maxFileSize-len(doc))), "ok.json", "mcpServers")
		if err != nil || len(eps) != 0 {
			t.Fatalf("%v %v", eps, err)
		}
	})
	t.Run("too many servers", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"mcpServers": {`)
		for i := range maxServers + 1 {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"s` + strconv.Itoa(i) + `": {"command": "x"}`)
		}
		b.WriteString("}}")
		root := newRecipe(t, map[string]string{
			"package.json": pkgJSON(`{"manifests": ["mcp.json"]}`),
			"mcp.json":     b.String(),
		})
		_, err := Load(root)
		wantErrs(t, err, "mcp.json:1:16: mcpServers: has 1001 server entries, over the limit of 1000 per file")
	})
	t.Run("too many policies", func(t *testing.T) {
		entries := make([]string, maxServers+1)
		for i := range entries {
			entries[i] = `{"id": "s` + strconv.Itoa(i) + `"}`
		}
		root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{"servers": [` + strings.Join(entries, ",") + `]}`)})
		_, err := Load(root)
		wantErrs(t, err, "package.json:4:24: pi.mcp.servers: has 1001 server entries, over the limit of 1000 per file")
	})
	t.Run("exactly 1000 servers", func(t *testing.T) {
		entries := make([]string, maxServers)
		for i := range entries {
			entries[i] = `{"id": "s` + strconv.Itoa(i) + `"}`
		}
		root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{"servers": [` + strings.Join(entries, ",") + `]}`)})
		if _, err := Load(root); err != nil {
			t.Fatal(err)
		}
	})
}

func TestLoad_RegularFilesOnly(t *testing.T) {
	t.Run("directory", func(t *testing.T) {
		root := newRecipe(t, map[string]string{"package.json": pkgJSON(`{"manifests": ["mcp.json"]}`), "mcp.json/x": ""})
		_, err := Load(root)
		wantErrs(t, err, "mcp.json: is not a regular file (a directory)")
	})
	t.Run("symlink is fine", func(t *testing.T) {
		root := newRecipe(t, map[string]string{
			"package.json":     pkgJSON(`{"manifests": ["mcp.json"]}`),
			"shared/real.json": `{"mcpServers": {"a": {"command": "x"}}}`,
		})
		if err := os.Symlink(filepath.Join(root, "shared", "real.json"), filepath.Join(root, "mcp.json")); err != nil {
			t.Fatal(err)
		}
		r, err := Load(root)
		if err != nil || r.Endpoints["a"].Command != "x" {
			t.Fatalf("%v %v", r, err)
		}
	})
}

func TestLoad_SecretsNeverInErrors(t *testing.T) {
	const tok, hdr, arg, url = "s3cr3t-token-value", "Bearer hunter2", "--password=letmein", "https://user:pw0rd@h/x?key=abc123"
	root := newRecipe(t, map[string]string{
		"package.json": pkgJSON(`{"manifests": ["mcp.json"]}`),
		"mcp.json": `{"mcpServers": {
  "a": {"command": "x", "url": "` + url + `", "env": {"TOKEN": "` + tok + `", "N": 5}, "args": ["` + arg + `", "${` + `"]},
  "b": {"url": "ftp://` + tok + `", "headers": {"Authorization": "` + hdr + `", "X": {"v": "` + tok + `"}}},
  "c": {"command": "` + tok + `${", "cwd": "${` + tok + `}"}
}}`,
	})
	_, err := Load(root)
	msg := wantErrs(t, err, "has both command and url", "env.N: must be a string", "args[1]: has a malformed", "headers.X: must be a string",
		"b.url: is not an http or https URL", "c.command: has a malformed", "c.cwd: has a malformed").Error()
	mustNotContain(t, msg, tok, hdr, "hunter2", arg, "letmein", "pw0rd", "abc123")
}

func TestFindRoot_Walk(t *testing.T) {
	top := newRecipe(t, map[string]string{
		"package.json":               pkgJSON(`{}`),
		"app/package.json":           `{"name": "app", "pi": {"other": 1}}`,
		"app/src/deep/x.txt":         "",
		"other/package.json":         `{"pi": {"mcp": {}}}`,
		"broken/package.json":        `{"pi": `,
		"broken/below/x.txt":         "",
		"pistring/package.json":      `{"pi": "mcp"}`,
		"pistring/child/placeholder": "",
	})
	cases := []struct {
		name, cwd, root string
		ok              bool
		err             string
	}{
		{"self", ".", ".", true, ""},
		{"skips package.json without pi.mcp", "app/src/deep", ".", true, ""},
		{"nearest wins", "other", "other", true, ""},
		{"pi not an object is no pi.mcp", "pistring/child", ".", true, ""},
		{"invalid json", "broken/below", "", false, "invalid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, ok, passed, err := FindRoot(filepath.Join(top, tc.cwd))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || ok != tc.ok || root != filepath.Join(top, tc.root) || passed != nil {
				t.Fatalf("FindRoot = %q %v %q %v", root, ok, passed, err)
			}
		})
	}
}

func TestFindRoot_None(t *testing.T) {
	dir := t.TempDir()
	root, ok, _, err := FindRoot(dir)
	// The machine's own parents could hold a recipe; only a hit inside dir is wrong.
	if err == nil && ok && strings.HasPrefix(root, dir) {
		t.Fatalf("found %q under an empty directory", root)
	}
}

func TestFindRoot_Unreadable(t *testing.T) {
	dir := newRecipe(t, map[string]string{"a/b": ""})
	if err := os.Mkdir(filepath.Join(dir, "a", "package.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, passed, err := FindRoot(filepath.Join(dir, "a"))
	want := filepath.Join(dir, "a", "package.json") + ": passed over: it is not a regular file (a directory)"
	if err != nil || len(passed) != 1 || passed[0] != want {
		t.Fatalf("passed over %q, %v; want %q", passed, err, want)
	}
}

func TestLoad_ProtocolVersion(t *testing.T) {
	eps, err := readServers(strings.NewReader(`{"mcpServers": {"a": {"command": "x", "protocolVersion": "2026-07-28"}, "b": {"url": "https://h/mcp"}}}`), "mcp.json", "mcpServers")
	if err != nil {
		t.Fatal(err)
	}
	if eps[0].ProtocolVersion != "2026-07-28" || eps[1].ProtocolVersion != "" {
		t.Errorf("protocol versions %q, %q", eps[0].ProtocolVersion, eps[1].ProtocolVersion)
	}
}
