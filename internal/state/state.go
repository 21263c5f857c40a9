// Package state names every place mcp writes on this system, as the code
// that writes each names it: what `mcp check --paths` prints and
// docs/state.md lists per system.
package state

import (
	"fmt"
	"io"

	"github.com/mcpsh/mcp/auth"
	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/session"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/search"
)

// Place is one place mcp writes.
type Place struct {
	What string `json:"what"`
	Path string `json:"path,omitempty"`
	// Config says it is under the user's configuration directory, not
	// the cache directory (the runtime directory is under neither).
	Config bool   `json:"config,omitempty"`
	Err    string `json:"error,omitempty"`
}

// places are the places and the function that names each.
var places = []struct {
	what   string
	path   func() (string, error)
	config bool
}{
	{"trust store", manifests.TrustStorePath, true},
	{"tokens", auth.DefaultDir, true},
	{"catalog cache", catalog.DefaultCacheDir, false},
	{"search index", search.DefaultIndexDir, false},
	{"session state", session.Dir, false},
	{"runtime directory's record", privdir.RecordDir, false},
	{"runtime directory", privdir.Runtime, false},
}

// Places are every place mcp writes, on this system for this user. Naming
// a directory makes it, private, where mcp would on first use.
func Places() []Place {
	out := make([]Place, len(places))
	for i, p := range places {
		out[i] = Place{What: p.what, Config: p.config}
		if path, err := p.path(); err != nil {
			out[i].Err = err.Error()
		} else {
			out[i].Path = path
		}
	}
	return out
}

// WriteText writes one line a place: what it is, then where, or why it
// cannot be had; then where the page that says how to remove them is.
func WriteText(w io.Writer, places []Place) {
	for _, p := range places {
		where := p.Path
		if p.Err != "" {
			where = "cannot be had: " + p.Err
		}
		fmt.Fprintf(w, "%-27s %s\n", p.What, where)
	}
	fmt.Fprintln(w, "(the runtime directory holds the sockets, logs and saved outputs; docs/state.md says how to remove it all)")
}
