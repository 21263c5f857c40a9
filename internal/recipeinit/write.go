package recipeinit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/internal/words"
	"github.com/mcpsh/mcp/manifests"
)

// agentServers is what each agent starts with: the servers and tools of
// --include, each inside the boundary init writes.
func agentServers(o Options, servers []*server) (map[string]map[string][]string, error) {
	byID := map[string]*server{}
	for _, s := range servers {
		byID[manifests.CanonicalID(s.id)] = s
	}
	start := map[string][]string{}
	for _, item := range o.Include {
		for _, st := range strings.Split(item, ",") {
			st = strings.TrimSpace(st)
			id, tool, ok := strings.Cut(st, ".")
			s := byID[manifests.CanonicalID(id)]
			switch {
			case !ok || id == "" || tool == "":
				return nil, &Error{Msg: fmt.Sprintf("--include %q is not SERVER.TOOL", st), Hint: "write --include memory.read_graph,memory.search_nodes"}
			case s == nil:
				return nil, &Error{Msg: fmt.Sprintf("--include %s: no server %q in the recipe", st, id)}
			case !o.All && !slices.Contains(s.tools, tool):
				return nil, &Error{Msg: fmt.Sprintf("--include %s: %s lists no tool %q", st, s.id, tool), Hint: notListed(s)}
			}
			if !slices.Contains(start[s.id], tool) {
				start[s.id] = append(start[s.id], tool)
			}
		}
	}
	out := map[string]map[string][]string{}
	for _, a := range o.Agents {
		out[a] = start
	}
	return out, nil
}

// notListed says what a server's tools are, or why they are not known.
func notListed(s *server) string {
	if s.why != "" {
		return "its tools were not listed: " + s.why
	}
	return "its tools are " + strings.Join(s.tools, ", ")
}

// writeAll writes the files, refusing to replace any that exists without
// --force (the .gitignore and a package.json without pi.mcp are added
// to, not replaced).
func writeAll(o Options, files []file) error {
	if !o.Force {
		var there []string
		for _, f := range files {
			if f.rel != "package.json" && f.rel != ".gitignore" && exists(filepath.Join(o.Dir, f.rel)) {
				there = append(there, filepath.ToSlash(f.rel))
			}
		}
		if len(there) > 0 {
			return &Error{Msg: strings.Join(there, ", ") + " " + words.Plural(len(there), "exists", "exist") + " already",
				Hint: "--force replaces " + words.Plural(len(there), "it", "them") + "; `mcp check` shows what the recipe holds now"}
		}
	}
	for _, f := range files {
		path := filepath.Join(o.Dir, f.rel)
		dirMode := os.FileMode(0o755)
		if f.private {
			dirMode = 0o700
		}
		if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
			return err
		}
		if err := atomicfile.Write(path, f.data); err != nil {
			return err
		}
		if !f.private {
			if err := os.Chmod(path, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// report is what init says it did, one line a file, then what to run.
func report(o Options, servers []*server, agents map[string]map[string][]string, files []file) []string {
	var lines []string
	tools := 0
	for _, s := range servers {
		tools += len(s.tools)
	}
	for _, f := range files {
		rel := filepath.ToSlash(f.rel)
		switch {
		case rel == "package.json" && o.All:
			lines = append(lines, fmt.Sprintf("wrote package.json: the package boundary, %d %s, every tool of each (*)", len(servers), words.Plural(len(servers), "server", "servers")))
		case rel == "package.json":
			lines = append(lines, fmt.Sprintf("wrote package.json: the package boundary, %d %s, %d %s", len(servers), words.Plural(len(servers), "server", "servers"), tools, words.Plural(tools, "tool", "tools")))
		case rel == "mcp.json":
			lines = append(lines, "wrote mcp.json: where each server lives")
		case f.private:
			lines = append(lines, "wrote "+rel+": this machine's binding, never to be committed")
		case rel == ".gitignore":
			lines = append(lines, "added "+filepath.ToSlash(localBinding)+" to .gitignore")
		default:
			name := strings.TrimSuffix(filepath.Base(rel), ".yaml")
			n := 0
			for _, ts := range agents[name] {
				n += len(ts)
			}
			lines = append(lines, fmt.Sprintf("wrote %s: agent %s, mode %s, %d %s", rel, name, o.Mode, n, words.Plural(n, "tool", "tools")))
		}
	}
	for _, s := range servers {
		for _, m := range s.moved {
			lines = append(lines, fmt.Sprintf("%s: the credential in %s stays in %s; mcp.json says ${%s}, for whoever uses the recipe elsewhere to set",
				s.id, m.Field, filepath.ToSlash(localBinding), m.Var))
		}
		if s.why != "" && !o.All {
			lines = append(lines, fmt.Sprintf("%s: no tools allowed, since they were not listed: %s; --all allows every tool, or list them in package.json", s.id, s.why))
		}
	}
	next := "next: " + manifests.TrustCommand(o.Dir)
	switch {
	case len(o.Agents) > 0 && o.Mode == string(catalog.ModeTools):
		next += ", then give a host the agent's tools: mcp init " + shell.Word(o.Dir) + " --print-host-config HOST --agent " + o.Agents[0]
	case len(o.Agents) > 0:
		next += `, then eval "$(mcp session start --recipe ` + shell.Word(o.Dir) + " --agent " + o.Agents[0] + `)"`
	}
	return append(lines, next)
}
