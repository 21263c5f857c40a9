package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/manifests"
)

type trustCmd struct {
	Dir    string `arg:"" optional:"" help:"The project directory (default: the recipe found from the working directory or --recipe, else the working directory)." placeholder:"DIR"`
	List   bool   `xor:"op" help:"List the trusted directories, when each was trusted, and whether its files changed since."`
	Forget bool   `xor:"op" help:"Forget a trusted directory: its servers start no more."`
}

func (c *trustCmd) Run(a *app) error {
	switch {
	case c.List && c.Dir != "":
		return &usageError{msg: "mcp trust --list takes no directory"}
	case c.List:
		return c.list(a)
	case c.Forget:
		return c.forget(a)
	}
	root, user, err := c.dir(a)
	if err != nil {
		return err
	}
	r, err := manifests.Trust(root, user)
	if err != nil {
		return err
	}
	a.warnAll(r.Warnings)
	st := r.Trust
	if a.globals.JSON {
		return a.writeJSON(st)
	}
	if !st.Needed {
		fmt.Fprintln(a.stdout, nothingToTrust(r))
		return nil
	}
	names := make([]string, len(st.Files))
	for i, f := range st.Files {
		names[i] = f.Path
	}
	fmt.Fprintf(a.stdout, "trusted %s (%s): allows %s\n", st.Dir, strings.Join(names, ", "), serversToStart(st.Servers))
	return nil
}

// dir is the directory to trust or forget, and whether it is read as the
// user's own configuration: DIR as mcp would read it when run there (the
// recipe at or above it, else its project files), or by default what this
// invocation reads.
func (c *trustCmd) dir(a *app) (string, bool, error) {
	if c.Dir == "" {
		return a.locate()
	}
	fi, err := os.Stat(c.Dir)
	if err != nil || !fi.IsDir() {
		return "", false, &usageError{msg: fmt.Sprintf("%s is not a directory", c.Dir),
			hint: "name the recipe's directory, or the directory whose MCP files you mean to trust"}
	}
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		return "", false, err
	}
	loc, err := manifests.Locate(abs)
	if err != nil {
		return "", false, err
	}
	a.warnAll(loc.PassedOver)
	return loc.Root, loc.User, nil
}

func (c *trustCmd) forget(a *app) error {
	dir := c.Dir
	if dir == "" {
		root, _, err := a.locate()
		if err != nil {
			return err
		}
		dir = root
	}
	forgot, err := manifests.Forget(dir)
	if err != nil {
		return err
	}
	if forgot == "" {
		return &usageError{msg: fmt.Sprintf("%s is not trusted: there is nothing to forget", dir),
			hint: "`mcp trust --list` shows the trusted directories"}
	}
	if a.globals.JSON {
		return a.writeJSON(map[string]string{"forgot": forgot})
	}
	fmt.Fprintf(a.stdout, "forgot %s: its servers start no more until it is trusted again\n", forgot)
	return nil
}

func (c *trustCmd) list(a *app) error {
	dirs, err := manifests.TrustList()
	if err != nil {
		return err
	}
	if a.globals.JSON {
		return a.writeJSON(dirs)
	}
	if len(dirs) == 0 {
		fmt.Fprintln(a.stdout, "no trusted directories")
	}
	for _, d := range dirs {
		state := d.State
		if d.State == "changed" {
			state += ": " + strings.Join(d.Changed, ", ")
		}
		fmt.Fprintf(a.stdout, "%s  %s  %s\n", d.Dir, d.Trusted.Local().Format(time.DateTime), state)
	}
	return nil
}

// nothingToTrust says why a directory needs no trust.
func nothingToTrust(r *manifests.Recipe) string {
	if r.Trust.Home {
		return fmt.Sprintf("nothing to trust in %s: it is your home directory, and its files are your own", r.Trust.Dir)
	}
	return fmt.Sprintf("nothing to trust in %s: it has none of %s", r.Trust.Dir, strings.Join(manifests.ProjectFiles(), ", "))
}

// serversToStart says which servers a trust allows to start.
func serversToStart(servers []string) string {
	if len(servers) == 0 {
		return "no server to start"
	}
	return fmt.Sprintf("%d %s to start: %s", len(servers), plural(len(servers), "server", "servers"), strings.Join(servers, ", "))
}

// trustCommand is the command that trusts dir, as a person would type it.
func trustCommand(dir string) string { return "mcp trust " + shell.Word(dir) }

// untrustedHints are the hint lines for servers that were not started
// because their directory is not trusted: for each directory, what
// trusting it would allow, or why it cannot be trusted.
func untrustedHints(errs []error) []string {
	var dirs []string
	servers := map[string][]string{}
	unsafe := map[string]string{}
	for _, err := range errs {
		var u *manifests.UntrustedError
		if !errors.As(err, &u) {
			continue
		}
		if _, ok := servers[u.Dir]; !ok {
			dirs = append(dirs, u.Dir)
		}
		servers[u.Dir] = append(servers[u.Dir], u.Server)
		unsafe[u.Dir] = u.Unsafe
	}
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if unsafe[d] != "" {
			out = append(out, fmt.Sprintf("%s cannot be trusted: %s", d, unsafe[d]))
			continue
		}
		out = append(out, fmt.Sprintf("`%s` would allow %s", trustCommand(d), serversToStart(servers[d])))
	}
	return out
}

// trustLine is the one line of mcp check about trust.
func trustLine(st *manifests.TrustState) string {
	switch {
	case st.Home:
		return "trust: not needed (your home directory's files are your own)"
	case !st.Needed:
		return "trust: not needed (no project files here)"
	case st.Trusted:
		return fmt.Sprintf("trust: %s, trusted %s", st.Dir, st.Since.Local().Format(time.DateTime))
	case len(st.Unsafe) > 0:
		return fmt.Sprintf("trust: untrusted, and %s cannot be trusted: %s", st.Dir, st.Unsafe[0])
	case len(st.Changed) > 0:
		return fmt.Sprintf("trust: untrusted, %s changed since you trusted it; `%s` would allow %s",
			strings.Join(st.Changed, ", "), trustCommand(st.Dir), serversToStart(st.Servers))
	}
	return fmt.Sprintf("trust: untrusted; `%s` would allow %s", trustCommand(st.Dir), serversToStart(st.Servers))
}
