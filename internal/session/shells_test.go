package session

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// everyChar is a value holding every character a session's value may: its
// id's hex digits, the uid's, ":" and "@", and a path of every printable
// ASCII character, the quotes PowerShell takes for ', and others.
func everyChar() string {
	var b strings.Builder
	b.WriteString("0123456789abcdef01234567:1000@")
	for c := ' '; c <= '~'; c++ {
		b.WriteRune(c)
	}
	b.WriteString("\t\u2018\u2019\u201a\u201b\u201c\u201d é 日本 \U0001f600")
	return b.String()
}

// back by PowerShell's rule gives the value.
func TestShell_SetPowerShell(t *testing.T) {
	for v, want := range map[string]string{
		"ab:-1@C:\\Users\\Ada\\AppData\\Local\\Temp\\mcp-1\\x.sock": `$env:MCP_SESSION = 'ab:-1@C:\Users\Ada\AppData\Local\Temp\mcp-1\x.sock'`,
		`C:\it's $HOME ` + "`n" + ` "x" @(1)`:                       `$env:MCP_SESSION = 'C:\it''s $HOME ` + "`n" + ` "x" @(1)'`,
		"a\u2018b\u2019c\u201ad\u201be":                             "$env:MCP_SESSION = 'a\u2018\u2018b\u2019\u2019c\u201a\u201ad\u201b\u201be'",
		"":                                                          `$env:MCP_SESSION = ''`,
	} {
		if got, err := PowerShell.Set("MCP_SESSION", v); err != nil || got != want {
			t.Errorf("Set(%q) = %s, %v; want %s", v, got, err, want)
		}
	}
	v := everyChar()
	line, err := PowerShell.Set("MCP_SESSION", v)
	if err != nil {
		t.Fatal(err)
	}
	if got := readPowerShellAssignment(t, line, "MCP_SESSION"); got != v {
		t.Errorf("PowerShell reads %q as %q, want %q", line, got, v)
	}
}

// readPowerShellAssignment reads `$env:NAME = '...'` by PowerShell's rule
// for a verbatim string: it ends at a single quote (any of four) not
// followed by another, and two in a row are one.
func readPowerShellAssignment(t *testing.T, line, name string) string {
	t.Helper()
	quote := func(r rune) bool { return strings.ContainsRune("'\u2018\u2019\u201a\u201b", r) }
	rest, ok := strings.CutPrefix(line, "$env:"+name+" = ")
	rs := []rune(rest)
	if !ok || len(rs) < 2 || !quote(rs[0]) {
		t.Fatalf("%q is not an assignment of a verbatim string", line)
	}
	var b strings.Builder
	for i := 1; i < len(rs); i++ {
		if quote(rs[i]) {
			if i+1 < len(rs) && quote(rs[i+1]) {
				b.WriteRune(rs[i])
				i++
				continue
			}
			if i != len(rs)-1 {
				t.Fatalf("%q: the string ends before the line does, at %d", line, i)
			}
			return b.String()
		}
		b.WriteRune(rs[i])
	}
	t.Fatalf("%q: the string does not end", line)
	return ""
}

// cmd's line is set's quoted form, which takes every character a Windows
// path may hold as it is.
func TestShell_SetCmd(t *testing.T) {
	v := `ab:-1@C:\Users\A&B (x)\%TEMP%\^!|<>'` + "`$é"
	line, err := Cmd.Set("MCP_SESSION", v)
	if want := `set "MCP_SESSION=` + v + `"`; err != nil || line != want {
		t.Errorf("Set(%q) = %s, %v; want %s", v, line, err, want)
	}
	line, err = Cmd.Set("MCP_SESSION", everyChar())
	if err == nil || !strings.Contains(err.Error(), "double quote") {
		t.Errorf("Set(a value with \") = %s, %v; want it refused", line, err)
	}
}

// A value a shell's line cannot carry is refused, not printed half right:
// PowerShell and cmd read the command's output a line at a time.
func TestShell_SetRefused(t *testing.T) {
	for _, c := range []struct {
		sh    Shell
		value string
		why   string
	}{
		{PowerShell, "a\nb", "a line break"},
		{PowerShell, "a\rb", "a line break"},
		{Cmd, "a\r\nb", "a line break"},
		{Cmd, `a"b`, "a double quote"},
		{Posix, "a\x00b", "a NUL"},
		{PowerShell, "a\x00b", "a NUL"},
	} {
		line, err := c.sh.Set("MCP_SESSION", c.value)
		var se *ShellError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.why) || se.ExitCode() != 2 {
			t.Errorf("%s.Set(%q) = %q, %v; want a *ShellError for %s", c.sh, c.value, line, err, c.why)
		}
	}
}

// --shell names one of three shells; none named is this system's.
func TestShell_UnmarshalText(t *testing.T) {
	for _, name := range []string{"posix", "powershell", "cmd"} {
		var sh Shell
		if err := sh.UnmarshalText([]byte(name)); err != nil || string(sh) != name {
			t.Errorf("UnmarshalText(%s) = %q, %v", name, sh, err)
		}
	}
	var sh Shell
	if err := sh.UnmarshalText([]byte("bash")); err == nil || !strings.Contains(err.Error(), "posix, powershell or cmd") {
		t.Errorf("UnmarshalText(bash) = %v; want a refusal naming the shells", err)
	}
	want := "export X=1"
	if runtime.GOOS == "windows" {
		want = "$env:X = '1'"
	}
	if got, err := Shell("").Set("X", "1"); err != nil || got != want {
		t.Errorf("the default shell's line = %q, %v; want %q", got, err, want)
	}
}
