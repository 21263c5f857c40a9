package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	root, user, passed, err := c.dir(a)
	if err != nil {
		return err
	}
	r, err := manifests.Trust(root, user)
	if err != nil {
		// Its own line says why, package.json passed over included.
		return err
	}
	a.warnAll(passed)
	a.warnAll(r.Warnings)
	st := r.Trust
	if a.globals.JSON {
		return a.writeJSON(st)
	}
	if !st.Needed {
		fmt.Fprintln(a.stdout, manifests.NothingToTrust(&r.Trust))
		return nil
	}
	names := make([]string, len(st.Files))
	for i, f := range st.Files {
		names[i] = f.Path
	}
	fmt.Fprintf(a.stdout, "trusted %s (%s): allows %s\n", st.Dir, strings.Join(names, ", "), manifests.ServersToStart(st.Servers))
	return nil
}

// dir is the directory to trust, and whether it is read as the user's own
// configuration: DIR as mcp would read it when run there (the recipe at or
// above it, else its project files), by default the working directory
// (or --recipe), with the package.json files passed over on the way.
func (c *trustCmd) dir(a *app) (string, bool, []string, error) {
	dir := c.Dir
	if dir == "" {
		if a.recipeDir != "" {
			return a.recipeDir, false, nil, nil
		}
		dir = "."
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return "", false, nil, &usageError{msg: fmt.Sprintf("%s is not a directory", dir),
			hint: "name the recipe's directory, or the directory whose MCP files you mean to trust"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false, nil, err
	}
	loc, err := manifests.Locate(abs)
	if err != nil {
		return "", false, nil, err
	}
	return loc.Root, loc.User, loc.PassedOver, nil
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
