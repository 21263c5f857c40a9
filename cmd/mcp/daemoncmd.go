package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpsh/mcp/mux"
)

type daemonCmd struct {
	Status daemonStatusCmd `cmd:"" help:"List the running multiplexers, what each serves and its upstream connections."`
	Stop   daemonStopCmd   `cmd:"" help:"Stop the multiplexer of this recipe and agent, or with --all every one outside a session.\n\n  mcp daemon stop --all"`
}

type daemonStatusCmd struct{}

type daemonStopCmd struct {
	All bool `help:"Stop every multiplexer outside a session (session stop ends a session's)."`
}

// daemons returns the sockets of the running multiplexers and their status.
func daemons(ctx context.Context) (map[string]*mux.DaemonStatus, error) {
	dir, err := mux.SocketDir()
	if err != nil {
		return nil, err
	}
	locks, _ := filepath.Glob(filepath.Join(dir, "*.sock.lock"))
	out := map[string]*mux.DaemonStatus{}
	for _, lock := range locks {
		socket := strings.TrimSuffix(lock, ".lock")
		if !mux.Running(socket) {
			continue
		}
		st, err := mux.StatusOf(ctx, socket)
		if err != nil {
			st = &mux.DaemonStatus{Label: "(not answering: " + oneLine(err) + ")"}
		}
		out[socket] = st
	}
	return out, nil
}

func (c *daemonStatusCmd) Run(a *app) error {
	ctx, cancel := a.context()
	defer cancel()
	ds, err := daemons(ctx)
	if err != nil {
		return err
	}
	sockets := make([]string, 0, len(ds))
	for s := range ds {
		sockets = append(sockets, s)
	}
	sort.Strings(sockets)
	if a.globals.JSON {
		rows := []*mux.DaemonStatus{}
		for _, s := range sockets {
			rows = append(rows, ds[s])
		}
		return writeJSON(a.stdout, rows)
	}
	if len(sockets) == 0 {
		fmt.Fprintln(a.stderr, "mcp: no multiplexer is running")
		return nil
	}
	for _, s := range sockets {
		st := ds[s]
		fmt.Fprintf(a.stdout, "pid %d  %s  (up %s, %d %s)\n", st.PID, st.Label,
			time.Since(st.Started).Round(time.Second), st.Requests, plural(int(st.Requests), "request", "requests"))
		for _, srv := range st.Servers {
			state := "connected"
			if !srv.Connected {
				state = "connecting"
			}
			fmt.Fprintf(a.stdout, "  %s  %s, %d %s", srv.ID, state, srv.Tools, plural(srv.Tools, "tool", "tools"))
			if srv.PID > 0 {
				fmt.Fprintf(a.stdout, ", pid %d", srv.PID)
			}
			fmt.Fprintln(a.stdout)
		}
	}
	return nil
}

func (c *daemonStopCmd) Run(a *app) error {
	ctx, cancel := a.context()
	defer cancel()
	var targets []string
	if c.All {
		ds, err := daemons(ctx)
		if err != nil {
			return err
		}
		for s, st := range ds {
			if st.Session == "" {
				targets = append(targets, s)
			}
		}
	} else {
		t, err := a.target()
		if err != nil {
			return err
		}
		s, err := t.Socket()
		if err != nil {
			return err
		}
		if mux.Running(s) {
			targets = append(targets, s)
		}
	}
	if len(targets) == 0 {
		fmt.Fprintln(a.stderr, "mcp: no multiplexer to stop")
		return nil
	}
	sort.Strings(targets)
	for _, s := range targets {
		if err := mux.Shutdown(ctx, s, 10*time.Second); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stderr, "mcp: stopped %d %s\n", len(targets), plural(len(targets), "multiplexer", "multiplexers"))
	return nil
}
