package mux

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/mcpsh/mcp/manifests"
)

// A multiplexer outside a session is what its servers see: it is named by
// the recipe, the agent, the binary (Target.Key) and the digest of the
// variables that reach its servers, that its configuration's ${VAR}s
// read, or that mcp itself reads (envIdentity). A terminal's, a tab's, a
// window's or an SSH login's variables are none of these, so every
// terminal of a user shares one warm multiplexer; two environments that
// really differ get one each, side by side.

// readyEnv marks a multiplexer started by Ensure.
const readyEnv = "MCP_MUX_READY_FD"

// ownEnv are the variables mcp itself reads in a multiplexer: where its
// trust store, tokens, catalog cache and index live. Variables named
// MCP_* (its idle times, auto-follow) count too, but those that only say
// which multiplexer to run (selectorEnv) and readyEnv.
var ownEnv = []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"}

// envIdentity is the digest of what of environ a multiplexer serving eps
// depends on, whatever order a shell exported its variables in.
func envIdentity(eps map[string]manifests.Endpoint, environ []string) string {
	environ = slices.Sorted(slices.Values(environ))
	h := sha256.New()
	for _, kv := range manifests.IdentityEnv(eps, environ) {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	h.Write([]byte{1})
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if mcpOwn(k) {
			h.Write([]byte(kv))
			h.Write([]byte{0})
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}

// mcpOwn says whether the variable k is one mcp reads in a multiplexer.
func mcpOwn(k string) bool {
	if slices.Contains(ownEnv, k) {
		return true
	}
	return strings.HasPrefix(k, "MCP_") && !slices.Contains(selectorEnv, k) && k != readyEnv
}
