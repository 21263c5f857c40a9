//go:build unix

package session

import (
	"os/exec"
	"strings"
	"testing"
)

// Where a POSIX shell is (unix; not Windows, where the line is not for
// the shell, nor Wine, which has none).

// A POSIX shell that evals the line has the value exactly, whatever it
// holds (a unix path may hold any byte but NUL).
func TestShell_SetPosix(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal(err)
	}
	values := []string{everyChar(), "plain:0@/tmp/x.sock", "", "a\nb\r\nc", "'", "''", `\'`, "~/x", "$(id)", "`id`", "!x", "\xff\xfe"}
	for _, v := range values {
		line, err := Posix.Set("MCP_SESSION", v)
		if err != nil {
			t.Fatalf("Set(%q): %v", v, err)
		}
		if !strings.HasPrefix(line, "export MCP_SESSION=") {
			t.Errorf("Set(%q) = %q, not an export", v, line)
		}
		out, err := exec.Command("sh", "-c", `eval "$1"; printf %s "$MCP_SESSION"`, "sh", line).Output()
		if err != nil || string(out) != v {
			t.Errorf("sh evals %q to %q (%v), want %q", line, out, err, v)
		}
	}
}

// PowerShell's line assigns a verbatim string, in which nothing expands
// ($, `, ", @) and each of the four single quotes is doubled; reading it
