package manifests

// The words mcp says about project trust: what trusting a directory would
// allow, and the command that does it.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/shell"
	"github.com/mcpsh/mcp/internal/words"
)

// NothingToTrust says why the directory of st needs no trust.
func NothingToTrust(st *TrustState) string {
	if st.Home {
		return fmt.Sprintf("nothing to trust in %s: it is your home directory, and its files are your own", st.Dir)
	}
	return fmt.Sprintf("nothing to trust in %s: it has none of %s", st.Dir, strings.Join(ProjectFiles(), ", "))
}

// ServersToStart says which servers a trust allows to start.
func ServersToStart(servers []string) string {
	if len(servers) == 0 {
		return "no server to start"
	}
	return fmt.Sprintf("%d %s to start: %s", len(servers), words.Plural(len(servers), "server", "servers"), strings.Join(servers, ", "))
}

// TrustCommand is the command that trusts dir, as a person would type it.
func TrustCommand(dir string) string { return "mcp trust " + shell.Word(dir) }

// UntrustedHints are the hint lines for servers that were not started
// because their directory is not trusted: for each directory, what
// trusting it would allow, or why it cannot be trusted.
func UntrustedHints(errs []error) []string {
	var dirs []string
	servers := map[string][]string{}
	unsafe := map[string]string{}
	for _, err := range errs {
		var u *UntrustedError
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
		out = append(out, fmt.Sprintf("`%s` would allow %s", TrustCommand(d), ServersToStart(servers[d])))
	}
	return out
}

// TrustLine is the one line of mcp check about trust.
func TrustLine(st *TrustState) string {
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
			strings.Join(st.Changed, ", "), TrustCommand(st.Dir), ServersToStart(st.Servers))
	}
	return fmt.Sprintf("trust: untrusted; `%s` would allow %s", TrustCommand(st.Dir), ServersToStart(st.Servers))
}
