package toolsmode

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/manifests"
)

// MaxNameLen is the longest name a tool is exposed under: what common model
// APIs accept for a tool name ([A-Za-z0-9_-]{1,64}).
const MaxNameLen = 64

// hashLen is how many hex digits of SHA-256 a hashed name ends with.
const hashLen = 12

// SearchTool is the name of the tool that finds and loads deferred tools.
// It has no "__" and no "-", so no exposed tool name can equal it.
const SearchTool = "mcp_search"

// Name returns the name a server's tool is exposed under: "server__tool",
// the server's canonical id ("-" read as "_") and the tool name with "-"
// folded to "_". That plain form is used when it fits in MaxNameLen and
// names the tool unambiguously: the server id has no "__" and does not end
// in "_" (so the first "__" separates the two), and the tool name has only
// [A-Za-z0-9_-]. Otherwise the name is HashedName.
//
// Two tools of one server whose names differ only in "-" and "_" get the
// same plain name; Assign gives such tools hashed names instead.
func Name(server, tool string) string {
	s := manifests.CanonicalID(server)
	if !manifests.ValidServerID(server) || strings.Contains(s, "__") || strings.HasSuffix(s, "_") ||
		tool == "" || !isNameChars(tool) {
		return HashedName(server, tool)
	}
	plain := s + "__" + strings.ReplaceAll(tool, "-", "_")
	if len(plain) > MaxNameLen {
		return HashedName(server, tool)
	}
	return plain
}

// HashedName is the plain form with every character outside [A-Za-z0-9_]
// folded to "_", cut so that "-" and 12 hex digits of a SHA-256 of the
// canonical server id and the exact tool name fit in MaxNameLen. A plain
// name never holds "-", so a hashed name never equals one, and two tools
// share a hashed name only if the 48-bit hashes collide.
func HashedName(server, tool string) string {
	s := manifests.CanonicalID(server)
	sum := sha256.Sum256([]byte(s + "\x00" + tool))
	suffix := "-" + hex.EncodeToString(sum[:])[:hashLen]
	base := fold(s) + "__" + fold(tool)
	if room := MaxNameLen - len(suffix); len(base) > room {
		base = base[:room]
	}
	return base + suffix
}

// fold maps every byte outside [A-Za-z0-9_] to "_"; a multi-byte character
// becomes one "_".
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isWordRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}

func isNameChars(s string) bool {
	for _, r := range s {
		if !isWordRune(r) && r != '-' {
			return false
		}
	}
	return true
}

// Assign names each tool (by ID, "server.tool") with Name, and with
// HashedName each tool whose plain name another tool of the list shares.
// Tools are taken in (server, name) order, so the result depends only on
// the set. A tool whose name is still taken (two 48-bit hashes collide) is
// left out and reported in dropped.
func Assign(tools []catalog.Tool) (names map[string]string, dropped []catalog.Tool) {
	sorted := append([]catalog.Tool(nil), tools...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Name < b.Name
	})
	count := map[string]int{}
	seen := map[string]bool{}
	for _, t := range sorted {
		if !seen[t.ID()] {
			seen[t.ID()] = true
			count[Name(t.Server, t.Name)]++
		}
	}
	names = map[string]string{}
	taken := map[string]bool{SearchTool: true}
	for _, t := range sorted {
		if _, dup := names[t.ID()]; dup {
			continue
		}
		n := Name(t.Server, t.Name)
		if count[n] > 1 {
			n = HashedName(t.Server, t.Name)
		}
		if taken[n] {
			dropped = append(dropped, t)
			continue
		}
		taken[n] = true
		names[t.ID()] = n
	}
	return names, dropped
}
