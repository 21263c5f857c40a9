package mux

import (
	"fmt"
	"io"
	"time"

	"github.com/mcpsh/mcp/internal/words"
)

// WriteText writes the status as `mcp daemon status` prints it: a line
// for the multiplexer (its pid, what it serves, its age at now and its
// requests), why it is a multiplexer of its own when it says, then a line
// for each upstream connection, which counts the
// tools the surface authorizes of those the server lists ("3 of 14
// tools authorized": the server offers the other 11 to nobody here).
func (st *Status) WriteText(w io.Writer, now time.Time) {
	fmt.Fprintf(w, "pid %d  %s  (up %s, %d %s)\n", st.PID, st.Label,
		now.Sub(st.Started).Round(time.Second), st.Requests, words.Plural(int(st.Requests), "request", "requests"))
	if st.Why != "" {
		fmt.Fprintf(w, "  (%s)\n", st.Why)
	}
	for _, srv := range st.Servers {
		state := "connected"
		if !srv.Connected {
			state = "connecting"
		}
		if srv.Authorized != nil {
			fmt.Fprintf(w, "  %s  %s, %d of %d %s authorized", srv.ID, state, *srv.Authorized, srv.Tools, words.Plural(srv.Tools, "tool", "tools"))
		} else {
			fmt.Fprintf(w, "  %s  %s, %d %s listed", srv.ID, state, srv.Tools, words.Plural(srv.Tools, "tool", "tools"))
		}
		if srv.PID > 0 {
			fmt.Fprintf(w, ", pid %d", srv.PID)
		}
		if srv.Protocol != "" {
			fmt.Fprintf(w, ", MCP %s", srv.Protocol)
		}
		fmt.Fprintln(w)
	}
}
