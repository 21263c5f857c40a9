package complete

import (
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux"
)

// candidates are what Tab offers for the word being typed in l, from cat
// (the surface's servers with the tools they were last seen with):
//
//   - a tool's place (call's and list's first word): without a dot each
//     server as "server.", with one that server's tools as "server.tool";
//   - after call's tool, its argument keys as "key=", those given already
//     left out but for an array's; after "key=", the values the schema
//     names for it (an enum's, true and false).
//
// Each candidate starts with the part of the word after its last "=", as
// the shells replace it (bash breaks words there) and as kong-completion
// filters them. What a shell would have to quote is not offered.
func candidates(l line, cat *mux.Catalog) []string {
	if cat == nil || cat.Surface == nil {
		return nil
	}
	switch {
	case (l.verb == "call" || l.verb == "list") && len(l.args) == 0:
		return places(l.word, cat)
	case l.verb == "call":
		t, ok := findTool(l.args[0], cat)
		if !ok {
			return nil
		}
		return arguments(l.word, l.args[1:], catalog.ArgKeys(t.InputSchema))
	}
	return nil
}

// places are the servers as "server.", or a server's tools.
func places(word string, cat *mux.Catalog) []string {
	server, _, dotted := strings.Cut(word, ".")
	var out []string
	for _, s := range cat.Servers {
		if !dotted {
			out = append(out, s.ID+".")
			continue
		}
		if manifests.CanonicalID(s.ID) != manifests.CanonicalID(server) {
			continue
		}
		for _, t := range s.Tools {
			out = append(out, server+"."+t.Name)
		}
	}
	return out
}

// findTool is the tool a call names, as the surface spells it or with
// "-" for "_" or the other way round.
func findTool(target string, cat *mux.Catalog) (catalog.Tool, bool) {
	server, name, _ := strings.Cut(target, ".")
	for _, s := range cat.Servers {
		if manifests.CanonicalID(s.ID) != manifests.CanonicalID(server) {
			continue
		}
		if match, ok := catalog.MatchTool(name, catalog.Names(s.Tools)); ok {
			name = match
		}
		for _, t := range s.Tools {
			if t.Name == name {
				return t, true
			}
		}
	}
	return catalog.Tool{}, false
}

// arguments are the keys not given yet as "key=", or after "key=" the
// key's values.
func arguments(word string, given []string, keys []catalog.ArgKey) []string {
	if key, typed, ok := strings.Cut(word, "="); ok {
		if strings.HasSuffix(key, ":") {
			return nil // key:=JSON
		}
		cut := strings.LastIndex(word, "=") + 1 - len(key) - 1
		var out []string
		for _, k := range keys {
			if k.Name != key {
				continue
			}
			for _, v := range k.Values {
				if strings.HasPrefix(v, typed) && plain(v) {
					out = append(out, v[cut:])
				}
			}
		}
		return out
	}
	seen := map[string]bool{}
	for _, g := range given {
		k, _, _ := strings.Cut(g, "=")
		seen[strings.TrimSuffix(k, ":")] = true
	}
	var out []string
	for _, k := range keys {
		if (k.Repeats || !seen[k.Name]) && plain(k.Name) && !strings.ContainsAny(k.Name, "=:") {
			out = append(out, k.Name+"=")
		}
	}
	return out
}

// plain says whether a shell takes s as one word as it is.
func plain(s string) bool { return s != "" && shell.Word(s) == s }
