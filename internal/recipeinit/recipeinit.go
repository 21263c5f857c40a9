// Package recipeinit makes a recipe from the servers a user already has:
// mcp init. It reads the user's own configuration (or one program's file),
// lists each server's tools with the recipe as it would be written, and
// writes the package boundary, the manifest, a local binding for the
// credentials no committed file may hold, one agent file per agent asked
// for and a .gitignore entry. It overwrites nothing unless told to.
package recipeinit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

// Options are mcp init's flags.
type Options struct {
	Dir     string   // the recipe's directory, made when missing
	From    string   // one program's file; "" reads the user's own configuration
	Servers []string // the server ids to take; none takes every one
	All     bool     // authorize every tool ("*") instead of the names listed now
	Agents  []string // an agent file for each
	Mode    string   // the agents' mode: cli (default) or tools
	Include []string // SERVER.TOOL the agents start with; none: they start empty
	Force   bool     // overwrite what is there
	// Home and ConfigDir locate the user's own configuration.
	Home, ConfigDir string
}

// server is one server the recipe takes.
type server struct {
	id        string
	committed manifests.Endpoint // as mcp.json holds it
	local     manifests.Endpoint // as the local binding holds it, when moved is set
	moved     []manifests.Moved
	tools     []string // nil: every tool
	why       string   // why its tools were not listed, when they were not
}

// Result is what Init wrote, as lines to print, and the warnings of
// reading the configuration (which explain an error, when there is one).
type Result struct {
	Lines, Warnings []string
}

// Init makes the recipe. listing opens the backend that lists the tools
// of a recipe (mux.Open with trust for this command only).
func Init(ctx context.Context, o Options, open func(context.Context, mux.Target) (mux.Backend, error)) (*Result, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return &Result{}, err
	}
	o.Dir = dir
	if o.Mode == "" {
		o.Mode = string(catalog.ModeCLI)
	}
	if err := checkNames(o); err != nil {
		return &Result{}, err
	}
	servers, warns, err := read(o)
	res := &Result{Warnings: warns}
	if err != nil {
		return res, err
	}
	if !o.All {
		listTools(ctx, servers, open)
	}
	agents, err := agentServers(o, servers)
	if err != nil {
		return res, err
	}
	files, err := render(o, servers, agents)
	if err != nil {
		return res, err
	}
	if err := writeAll(o, files); err != nil {
		return res, err
	}
	res.Lines = report(o, servers, agents, files)
	return res, nil
}

// checkNames refuses agent names that cannot be files and a mode that is
// neither cli nor tools, before anything is read.
func checkNames(o Options) error {
	if o.Mode != string(catalog.ModeCLI) && o.Mode != string(catalog.ModeTools) {
		return &Error{Msg: fmt.Sprintf("--mode %q is neither cli nor tools", o.Mode)}
	}
	for _, a := range o.Agents {
		if !manifests.ValidServerID(a) {
			return &Error{Msg: fmt.Sprintf("agent name %q is not 1-64 letters, digits, - or _", a)}
		}
	}
	if len(o.Include) > 0 && len(o.Agents) == 0 {
		return &Error{Msg: "--include names what agents start with, and no --agent is given", Hint: "add --agent NAME"}
	}
	return nil
}

// read finds the servers to take, with their entries as committed and as
// this machine's binding holds them.
func read(o Options) ([]*server, []string, error) {
	var eps map[string]manifests.Endpoint
	var warns []string
	from := "your own configuration"
	if o.From != "" {
		var err error
		if eps, warns, err = manifests.ImportFile(o.From, o.Home); err != nil {
			return nil, nil, err
		}
		from = o.From
	} else {
		r, err := manifests.LoadUser(manifests.UserPaths{Home: o.Home, Cwd: o.Dir, ConfigDir: o.ConfigDir})
		if err != nil {
			return nil, nil, err
		}
		eps, warns = r.Endpoints, r.Warnings
	}
	ids := slices.Sorted(maps.Keys(eps))
	if len(ids) == 0 {
		return nil, warns, &Error{Msg: "no MCP servers found in " + from, Hint: "`mcp list --sources` shows the files looked in; --from FILE reads one"}
	}
	if len(o.Servers) > 0 {
		var picked []string
		for _, s := range o.Servers {
			id := manifests.CanonicalID(s)
			if _, ok := eps[id]; !ok {
				return nil, warns, &Error{Msg: fmt.Sprintf("no server %q in %s", s, from), Hint: "its servers are " + strings.Join(ids, ", ")}
			}
			if !slices.Contains(picked, id) {
				picked = append(picked, id)
			}
		}
		sort.Strings(picked)
		ids = picked
	}
	out := make([]*server, 0, len(ids))
	for _, key := range ids {
		id := eps[key].ID // as its file spells it
		if id == "" {
			id = key
		}
		if isServe(eps[key]) {
			warns = append(warns, id+": left out: it is mcp serve, a recipe's agent, not a server of its own")
			continue
		}
		ep := absolute(eps[key])
		ep.ID = id
		s := &server{id: id, local: ep}
		s.committed, s.moved = ep.Committable()
		if ep.Untrusted != nil {
			s.why = "it comes from " + ep.Untrusted.Error()
		}
		out = append(out, s)
	}
	return out, warns, nil
}

// isServe says ep runs mcp serve: what --print-host-config gave a host.
func isServe(ep manifests.Endpoint) bool {
	base := strings.TrimSuffix(filepath.Base(ep.Command), ".exe")
	return base == "mcp" && len(ep.Args) > 0 && ep.Args[0] == "serve"
}

// absolute is ep with a relative command or cwd resolved against the
// directory of the file it came from, which the recipe is not.
func absolute(ep manifests.Endpoint) manifests.Endpoint {
	if ep.Dir == "" {
		return ep
	}
	if strings.ContainsAny(ep.Command, `/\`) && !filepath.IsAbs(ep.Command) && !strings.Contains(ep.Command, "${") {
		ep.Command = filepath.Join(ep.Dir, ep.Command)
	}
	if ep.Cwd != "" && !filepath.IsAbs(ep.Cwd) && !strings.Contains(ep.Cwd, "${") {
		ep.Cwd = filepath.Join(ep.Dir, ep.Cwd)
	}
	ep.Untrusted = nil
	return ep
}

// Error is a problem with what mcp init was asked, or with what is there
// already: exit 2, with a hint.
type Error struct{ Msg, Hint string }

func (e *Error) Error() string { return e.Msg }
func (e *Error) ExitCode() int { return exit.Usage }

// exists says whether path names something (a broken link too).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
