package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// Every example in `mcp --help` (and each command's) runs on a recipe in
// examples/: the agent it names is there, in the mode the command needs,
// and so are the servers and tools it names and the directory it trusts.
// The only placeholders are SERVER for a login, which needs a server of
// the user's that speaks OAuth, and "$MCP_SESSION" for a session to stop.
func TestHelp_examplesRunOnTheExamples(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	recipes := exampleRecipes(t)
	for _, grammar := range []any{&hostCLI{}, &sessionCLI{}} {
		parser, err := kong.New(grammar, kong.Name("mcp"))
		if err != nil {
			t.Fatal(err)
		}
		var n int
		for _, line := range helpExamples(parser.Model.Node) {
			n++
			args := exampleArgs(t, line)
			if args == nil {
				continue
			}
			var why []string
			for _, dir := range slices.Sorted(maps.Keys(recipes)) {
				err := exampleFits(args, dir, recipes[dir])
				if err == nil {
					why = nil
					break
				}
				why = append(why, dir+": "+err.Error())
			}
			if why != nil {
				t.Errorf("help example %q runs on no example recipe:\n\t%s", line, strings.Join(why, "\n\t"))
			}
		}
		if n == 0 {
			t.Fatalf("no examples found in the help of %T", grammar)
		}
	}
}

// exampleRecipes is each recipe in examples/, by its path from the
// module's root.
func exampleRecipes(t *testing.T) map[string]*manifests.Recipe {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "package.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example recipes: %v", err)
	}
	recipes := map[string]*manifests.Recipe{}
	for _, pkg := range dirs {
		dir := filepath.Dir(pkg)
		r, err := manifests.Load(dir)
		if err != nil {
			t.Fatalf("example %s: %v", dir, err)
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), dir)
		recipes[filepath.ToSlash(rel)] = r
	}
	return recipes
}

// helpExamples is every example line of a command's help, and of its
// subcommands': the indented lines after the first paragraph.
func helpExamples(n *kong.Node) []string {
	var lines []string
	if _, rest, ok := strings.Cut(n.Help, "\n\n"); ok {
		for _, l := range strings.Split(rest, "\n") {
			if strings.HasPrefix(l, "  ") && strings.Contains(l, "mcp ") {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
	}
	for _, c := range n.Children {
		lines = append(lines, helpExamples(c)...)
	}
	return lines
}

var inSubshell = regexp.MustCompile(`[$<]\((mcp [^)]*)\)`)

// exampleArgs is the arguments of the mcp command an example line runs
// (inside `$(...)` or `<(...)`, up to a pipe), as a shell splits them;
// nil for a line that runs no mcp command of its own.
func exampleArgs(t *testing.T, line string) []string {
	if m := inSubshell.FindStringSubmatch(line); m != nil {
		line = m[1]
	}
	words := shellSplit(t, line)
	if len(words) == 0 || words[0] != "mcp" {
		t.Errorf("help example %q does not start with mcp", line)
		return nil
	}
	if i := slices.Index(words, "|"); i >= 0 {
		words = words[:i]
	}
	return words[1:]
}

// shellSplit splits a line into words as a POSIX shell does, for the
// quoting help examples use (no expansion: "$X" stays $X).
func shellSplit(t *testing.T, line string) []string {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				t.Fatalf("unbalanced quote in %q", line)
			}
			part := line[i+1 : i+1+end]
			if c == '"' {
				part = strings.ReplaceAll(part, `\"`, `"`)
			}
			word.WriteString(part)
			i += end + 1
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}

var toolInCode = regexp.MustCompile(`\b([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)\(`)

// exampleFits says why the command line args does not run on the recipe
// at dir (a path from the module's root), or nil when it does.
func exampleFits(args []string, dir string, r *manifests.Recipe) error {
	var cli hostCLI
	parser, err := kong.New(&cli, kong.Name("mcp"), kong.Exit(func(int) {}))
	if err != nil {
		return err
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return err
	}
	if cli.Recipe != "" && filepath.ToSlash(filepath.Clean(cli.Recipe)) != dir {
		return fmt.Errorf("--recipe %s is not this recipe", cli.Recipe)
	}
	if cmd := kctx.Command(); strings.HasPrefix(cmd, "init") && cli.Init.PrintHostConfig == "" {
		return initFits(cli.Init)
	} else if strings.HasPrefix(cmd, "init") && filepath.ToSlash(filepath.Clean(cli.Init.Dir)) != dir {
		return fmt.Errorf("%s is not this recipe's directory", cli.Init.Dir)
	}
	surface, _, err := catalog.Resolve(r, cli.Agent)
	if err != nil {
		return err
	}
	var tools []string // SERVER or SERVER.TOOL
	switch cmd := kctx.Command(); cmd {
	case "list <target>":
		tools = append(tools, cli.List.Target)
	case "call <target>", "call <target> <pairs>":
		tools = append(tools, cli.Call.Target)
	case "run":
		for _, m := range toolInCode.FindAllStringSubmatch(cli.Run.Eval, -1) {
			tools = append(tools, m[1]+"."+m[2])
		}
	case "search <query>":
		if cli.Search.Server != "" {
			tools = append(tools, cli.Search.Server)
		}
	case "serve", "init", "init <dir>":
		if cli.Agent == "" || surface.Mode != catalog.ModeTools {
			return fmt.Errorf("mcp serve needs an agent in tools mode, and %q is in %s mode", cli.Agent, surface.Mode)
		}
	case "trust <dir>":
		if filepath.ToSlash(filepath.Clean(cli.Trust.Dir)) != dir {
			return fmt.Errorf("%s is not this recipe's directory", cli.Trust.Dir)
		}
	case "auth login <server>", "auth logout <server>", "auth status <server>":
		server := cli.Auth.Login.Server + cli.Auth.Logout.Server + cli.Auth.Status.Server
		if ep, ok := r.Endpoints[manifests.CanonicalID(server)]; server != "SERVER" && (!ok || ep.URL == "") {
			return fmt.Errorf("no server %q reached over HTTP", server)
		}
	case "session stop <id>":
		if cli.Session.Stop.ID != "$MCP_SESSION" {
			return fmt.Errorf("session stop %s: no such session", cli.Session.Stop.ID)
		}
	}
	for _, target := range tools {
		server, tool := splitTarget(target)
		if _, ok := surface.Server(server); !ok {
			return fmt.Errorf("no server %q on the surface", server)
		}
		if tool != "" && !surface.Allowed(server, tool) {
			return fmt.Errorf("%s is not on the surface", target)
		}
	}
	return nil
}

// initFits says why an example of mcp init that makes a recipe does not
// run: it reads an editor's configuration in examples/, which has the
// servers its --include names.
func initFits(c initCmd) error {
	if !strings.HasPrefix(filepath.ToSlash(c.From), "examples/") {
		return fmt.Errorf("--from %q is not a configuration in examples/", c.From)
	}
	eps, _, err := manifests.ImportFile(filepath.Join("..", "..", c.From), "")
	if err != nil {
		return err
	}
	for _, item := range c.Include {
		server, _ := splitTarget(item)
		if _, ok := eps[manifests.CanonicalID(server)]; !ok {
			return fmt.Errorf("--include %s: %s has no server %q", item, c.From, server)
		}
	}
	return nil
}

// The check refuses what an example could get wrong.
func TestHelp_exampleFitsRefuses(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	r := exampleRecipes(t)["examples/contacts"]
	for _, line := range []string{
		"mcp call contacts.delete_contact id=1",
		"mcp list nowhere",
		"mcp list contacts.get_contact --agent assistant",
		"mcp search contact --server nowhere",
		"mcp run -e 'await contacts.delete_contact({id: 1})'",
		"mcp check --agent researcher",
		"mcp serve --agent support",
		"mcp trust examples/reference",
		"mcp auth login contacts",
		"mcp session stop 3f9c",
		"mcp list --recipe examples/reference",
		"mcp init --agent researcher",
		"mcp init --from examples/claude-desktop/claude_desktop_config.json --agent a --include files.read_file",
		"mcp init examples/contacts --print-host-config cursor --agent support",
	} {
		if err := exampleFits(exampleArgs(t, line), "examples/contacts", r); err == nil {
			t.Errorf("%q fits examples/contacts", line)
		}
	}
	for _, line := range []string{
		"mcp call contacts.get_contact id=1",
		"mcp list contacts.search_contacts --agent assistant",
		`eval "$(mcp session start --agent support)"`,
		"mcp init ~/r --from examples/claude-desktop/claude_desktop_config.json --agent a --include memory.read_graph",
	} {
		if err := exampleFits(exampleArgs(t, line), "examples/contacts", r); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
}
