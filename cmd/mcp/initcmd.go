package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsh/mcp/internal/recipeinit"
	"github.com/mcpsh/mcp/mux"
)

type initCmd struct {
	Dir             string   `arg:"" optional:"" default:"." help:"The recipe's directory (made when missing)." placeholder:"DIR"`
	From            string   `help:"Take the servers of this file (an editor's MCP configuration) instead of all of your own." placeholder:"FILE"`
	Server          []string `help:"Take only these servers." placeholder:"ID,..."`
	All             bool     `help:"Allow every tool of each server (*), tools it adds later too, instead of the tools it lists now."`
	Mode            string   `default:"cli" enum:"cli,tools" help:"The mode of the agents --agent names (one file each; NAME,NAME for several): cli or tools."`
	Include         []string `help:"Tools the agents start with; without it they start with none." placeholder:"SERVER.TOOL,..."`
	Force           bool     `help:"Replace files that are there."`
	PrintHostConfig string   `name:"print-host-config" help:"Print what HOST (claude-code, codex, cursor, claude-desktop) needs to run --agent's tools with mcp serve, or claude-code-skill a SKILL.md for a cli-mode agent, and write nothing." placeholder:"HOST"`
}

func (c *initCmd) Run(a *app) error {
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return err
	}
	ctx, cancel := a.context()
	defer cancel()
	open := func(ctx context.Context, t mux.Target) (mux.Backend, error) { return mux.Open(ctx, t, a.openOptions()) }
	if c.PrintHostConfig != "" {
		return initError(recipeinit.PrintHostConfig(ctx, a.stdout, c.PrintHostConfig, dir, a.agent, open))
	}
	home, _ := os.UserHomeDir()
	cfg, _ := os.UserConfigDir()
	var agents []string
	if a.agent != "" {
		agents = strings.Split(a.agent, ",")
	}
	res, err := recipeinit.Init(ctx, recipeinit.Options{Dir: dir, From: c.From, Servers: c.Server, All: c.All, Agents: agents,
		Mode: c.Mode, Include: c.Include, Force: c.Force, Home: home, ConfigDir: cfg}, open)
	a.warnAll(res.Warnings)
	if err != nil {
		return initError(err)
	}
	for _, l := range res.Lines {
		fmt.Fprintln(a.stdout, l)
	}
	return nil
}

// initError is err in the command line's voice, with its hint.
func initError(err error) error {
	var ie *recipeinit.Error
	if errors.As(err, &ie) {
		return &usageError{msg: ie.Msg, hint: ie.Hint}
	}
	return err
}
