// Package shell writes words as a POSIX shell reads them: the commands and
// assignments mcp prints for a person to run or eval.
package shell

import (
	"regexp"
	"strings"
)

// plainWord is what a shell takes as it is, in an argument and in the
// value of an assignment (where a ~ after = or : would expand).
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./@%+=:,-]+$`)

// Word quotes s for a POSIX shell when it needs quoting: a path, a
// session's MCP_SESSION value.
func Word(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
