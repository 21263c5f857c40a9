package manifests

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpsh/mcp/internal/exit"
)

// Error is one problem in one configuration file. Its message reads
//
//	FILE:LINE:COL: FIELD: "VALUE" MSG; HINT
//
// where each part is left out when unknown or empty. Value only ever holds
// names (server ids, tool names, keys, modes, types), never an env or header
// value, an argument or a URL, which may be secrets.
type Error struct {
	Pos   Pos
	Field string // dotted path of the value, e.g. mcp.servers.contacts.include[0]
	Value string // the offending name as written, quoted in the message
	Msg   string // what is wrong
	Hint  string // what would be valid
	Err   error  // the underlying cause (I/O errors), if any
}

func (e *Error) ExitCode() int { return exit.Config }

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(printable(s))
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(printable(e.Field))
		b.WriteString(": ")
	}
	if e.Value != "" {
		b.WriteString(strconv.Quote(e.Value))
		b.WriteString(" ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// printable escapes what could rewrite a terminal (a field path can hold a
// key as written, such as an env variable's name).
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) && utf8.ValidString(s) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// String formats a position as FILE:LINE:COL, leaving out what is unknown.
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		if s != "" {
			s += ":"
		}
		s += strconv.Itoa(p.Line)
		if p.Col > 0 {
			s += ":" + strconv.Itoa(p.Col)
		}
	}
	return s
}

// Errors is every problem found while loading, in file order. It is returned
// whole so that one run shows all that needs fixing.
type Errors []*Error

func (es Errors) ExitCode() int { return exit.Config }

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As and errors.Is look at each problem.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// err returns es as an error, or nil when it is empty.
func (es Errors) err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// sortStable orders problems by file, then line and column, keeping the
// order of problems at the same place.
func (es Errors) sortStable() {
	slices.SortStableFunc(es, func(a, b *Error) int {
		return cmp.Or(
			cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col),
		)
	})
}

// asErrors turns err into Errors: Errors stay as they are, an *Error becomes
// a list of one, anything else is wrapped with file as its position.
func asErrors(err error, file string) Errors {
	switch e := err.(type) {
	case nil:
		return nil
	case Errors:
		return e
	case *Error:
		return Errors{e}
	default:
		return Errors{{Pos: Pos{File: file}, Msg: e.Error(), Err: err}}
	}
}

// MissingVarError is a ${VAR} reference whose variable is not set and that
// has no default. Its message names the variable, the server and the field,
// never a value.
type MissingVarError struct {
	Server string // server id as written
	Var    string // variable name
	Field  string // e.g. "env.API_TOKEN", "args[2]", "url"
	Pos    Pos    // of the server entry
}

func (e *MissingVarError) ExitCode() int { return exit.Config }

func (e *MissingVarError) Error() string {
	prefix := ""
	if s := e.Pos.String(); s != "" {
		prefix = s + ": "
	}
	return fmt.Sprintf("%sserver %q: %s: variable %s is not set; set it, or write ${%s:-default}",
		printable(prefix), e.Server, printable(e.Field), e.Var, e.Var)
}

// Summary says the cause in a few words.
func (e *MissingVarError) Summary() string {
	return fmt.Sprintf("not configured: $%s (in %s) is not set", e.Var, e.Field)
}
