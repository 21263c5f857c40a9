package mux

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
)

// EnvStamp names the environment variables of a multiplexer and digests
// their values. A multiplexer outside a session expands ${VAR} with the
// environment it started in, and every server it starts inherits it, so a
// client whose environment differs should not use it.
type EnvStamp struct {
	Names  []string `json:"names,omitempty"`
	Digest string   `json:"digest,omitempty"`
}

// readyEnv marks a multiplexer started by Ensure.
const readyEnv = "MCP_MUX_READY_FD"

// shellEnv are variables a shell or terminal changes on its own, which no
// server should depend on.
var shellEnv = []string{
	"PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES", "TERM", "COLORTERM", "TERM_PROGRAM",
	"TERM_PROGRAM_VERSION", "TMUX_PANE", "WINDOWID", "SSH_TTY", "PS1", "PS2", "PROMPT_COMMAND",
	readyEnv,
}

// StampEnv stamps this process's environment, leaving out the shell's own
// variables and those in ignore (which only say which multiplexer to run).
func StampEnv(ignore ...string) EnvStamp {
	names := envNames(nil, ignore)
	return EnvStamp{Names: names, Digest: envDigest(names, ignore)}
}

// envNames adds this environment's variable names, but the shell's and
// ignore, to names, sorted and without repeats.
func envNames(names, ignore []string) []string {
	out := slices.Clone(names)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(shellEnv, k) && !slices.Contains(ignore, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func envDigest(names, ignore []string) string {
	h := sha256.New()
	for _, n := range envNames(names, ignore) {
		v, ok := os.LookupEnv(n)
		fmt.Fprintf(h, "%s\x00%v\x00%s\x00", n, ok, v)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
