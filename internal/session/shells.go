package session

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/internal/shell"
)

// Shell is the shell that runs the line session start prints, which sets
// MCP_SESSION in it:
//
//	posix       eval "$(mcp session start --agent NAME)"
//	powershell  mcp session start --agent NAME | Invoke-Expression
//	cmd         for /f "delims=" %i in ('mcp session start --agent NAME --shell cmd') do %i
//
// The zero Shell is this system's (DefaultShell).
type Shell string

// The shells session start writes a line for.
const (
	Posix      Shell = "posix"
	PowerShell Shell = "powershell"
	Cmd        Shell = "cmd"
)

// DefaultShell is the shell a line is for when none is named: PowerShell
// on Windows, where it is what a terminal opens (cmd's users name it),
// and a POSIX shell elsewhere. It is chosen by the system, not guessed
// from the environment: PSModulePath, which PowerShell sets, is in
// cmd's environment too on Windows.
func DefaultShell() Shell {
	if runtime.GOOS == "windows" {
		return PowerShell
	}
	return Posix
}

// UnmarshalText takes a shell's name, as --shell gives it.
func (sh *Shell) UnmarshalText(text []byte) error {
	switch s := Shell(text); s {
	case Posix, PowerShell, Cmd:
		*sh = s
		return nil
	}
	return &ShellError{msg: fmt.Sprintf("%.40q is not a shell session start writes a line for: posix, powershell or cmd", text)}
}

// ShellError refuses a shell session start writes no line for, or a value
// the shell's line cannot hold. Exit 2.
type ShellError struct{ msg string }

func (e *ShellError) Error() string { return e.msg }

// ExitCode is exit.Usage.
func (e *ShellError) ExitCode() int { return exit.Usage }

// Line is the line that sets MCP_SESSION to the session's value in sh.
// A value sh's line cannot carry exactly is a *ShellError: a line break
// in a PowerShell or cmd line (each reads the command's output a line at
// a time), a double quote in cmd's.
func (st *State) Line(sh Shell) (string, error) { return sh.Set(EnvVar, st.Env()) }

// Set is the line that sets the variable name to value when sh runs it.
func (sh Shell) Set(name, value string) (string, error) {
	if sh == "" {
		sh = DefaultShell()
	}
	switch {
	case strings.ContainsRune(value, 0):
		return "", sh.cannot(value, "a NUL")
	case sh != Posix && strings.ContainsAny(value, "\r\n"):
		return "", sh.cannot(value, "a line break")
	}
	switch sh {
	case PowerShell:
		return "$env:" + name + " = " + powerShellString(value), nil
	case Cmd:
		if strings.ContainsRune(value, '"') {
			return "", sh.cannot(value, "a double quote")
		}
		// Between quotes cmd takes & | < > ^ ( ) as they are, and set
		// drops the quotes; run by for /f, nothing in it expands.
		return `set "` + name + "=" + value + `"`, nil
	}
	return "export " + name + "=" + shell.Word(value), nil
}

func (sh Shell) cannot(value, what string) error {
	return &ShellError{msg: fmt.Sprintf("%s's line cannot set %.80q, which holds %s", sh, value, what)}
}

// powerShellString quotes s as a PowerShell verbatim string: nothing in
// it expands, and each single quote, of the four PowerShell takes for
// one (' and U+2018, U+2019, U+201A, U+201B), is doubled.
func powerShellString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '\u2018', '\u2019', '\u201a', '\u201b':
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
