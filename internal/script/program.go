package script

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// The program is compiled as the body of an async function, opened on the
// program's first line so that line numbers need no mapping; only columns of
// line 1 shift, by len(wrapOpen).
const (
	wrapOpen  = "(async function () {"
	wrapClose = "\n})()"
)

// program is a compiled program and what it takes to map positions back.
type program struct {
	name  string
	src   string // the program as the user wrote it (a "#!" line blanked)
	lines int
	prg   *goja.Program
}

// compile parses src wrapped, turns its value-giving last statement into a
// return, and compiles it. Errors are *ProgramError.
func compile(name, src string) (p *program, err error) {
	if strings.HasPrefix(src, "#!") {
		src = "//" + src[2:] // same length, so columns do not move
	}
	p = &program{name: name, src: src, lines: len(splitLines(src))}
	defer func() {
		// The compiler reports some errors by panicking; a program must
		// never take the process down.
		if x := recover(); x != nil {
			p, err = nil, &ProgramError{File: name, Msg: fmt.Sprintf("SyntaxError: %v", x)}
		}
	}()
	wrapped := wrapOpen + src + wrapClose
	tree, err := parser.ParseFile(nil, name, wrapped, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			pos, msg := list[0].Position, list[0].Message
			if p.pastEnd(pos.Line, pos.Column) {
				msg = "Unexpected end of input"
			}
			return nil, p.errorAt(pos.Line, pos.Column, "SyntaxError: "+msg)
		}
		return nil, &ProgramError{File: name, Msg: "SyntaxError: " + err.Error()}
	}
	body, err := p.body(tree, len(wrapped))
	if err != nil {
		return nil, err
	}
	returnLast(body)
	prg, err := goja.CompileAST(tree, false)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) && se.File != nil {
			pos := se.File.Position(se.Offset)
			return nil, p.errorAt(pos.Line, pos.Column, "SyntaxError: "+se.Message)
		}
		return nil, &ProgramError{File: name, Msg: err.Error()}
	}
	p.prg = prg
	return p, nil
}

// body checks that the parsed program is still exactly the wrapper (a
// program that closes the wrapper's brace early is an error) and returns the
// wrapper's function body.
func (p *program) body(tree *ast.Program, n int) (*ast.BlockStatement, error) {
	if len(tree.Body) > 0 {
		if es, ok := tree.Body[0].(*ast.ExpressionStatement); ok {
			x := es.Expression
			if call, ok := x.(*ast.CallExpression); ok {
				x = call.Callee
			}
			if fn, ok := x.(*ast.FunctionLiteral); ok && fn.Async && fn.Body != nil {
				// Idx is 1-based; the wrapper's "}" is the
				// fourth-last byte of the wrapped text.
				if int(fn.Body.RightBrace) == n-3 && len(tree.Body) == 1 && x != es.Expression {
					return fn.Body, nil
				}
				pos := tree.File.Position(int(fn.Body.RightBrace) - 1)
				return nil, p.errorAt(pos.Line, pos.Column, "SyntaxError: Unexpected token }")
			}
		}
	}
	return nil, &ProgramError{File: p.name, Msg: "SyntaxError: Unexpected token }"}
}

// returnLast makes the program's value that of its last expression
// statement: trailing function declarations and empty statements are
// skipped (they have no value), anything else ends the search.
func returnLast(body *ast.BlockStatement) {
	for i := len(body.List) - 1; i >= 0; i-- {
		switch st := body.List[i].(type) {
		case *ast.FunctionDeclaration, *ast.EmptyStatement:
			continue
		case *ast.ExpressionStatement:
			body.List[i] = &ast.ReturnStatement{Return: st.Expression.Idx0(), Argument: st.Expression}
		}
		return
	}
}

// errorAt maps a position in the wrapped text to the program's source.
func (p *program) errorAt(line, col int, msg string) *ProgramError {
	line, col = p.mapPos(line, col)
	return &ProgramError{File: p.name, Line: line, Col: col, Msg: msg}
}

// pastEnd says whether a position in the wrapped text is in the wrapper's
// closing text, after the program.
func (p *program) pastEnd(line, col int) bool {
	if line != p.lines {
		return line > p.lines
	}
	if line == 1 {
		col -= len(wrapOpen)
	}
	return col > len(p.lastLine())
}

func (p *program) mapPos(line, col int) (int, int) {
	if line <= 0 {
		return 0, 0
	}
	if line == 1 {
		col -= len(wrapOpen)
		if col < 1 {
			col = 1
		}
	}
	if line > p.lines { // in the wrapper's closing text: the end of the program
		line, col = p.lines, len(p.lastLine())+1
	}
	return line, col
}

// lastLine is the program's last line, without its terminator.
func (p *program) lastLine() string {
	lines := splitLines(p.src)
	return lines[len(lines)-1]
}

// splitLines splits at the line terminators JavaScript knows: "\n",
// "\r\n", "\r", U+2028 and U+2029.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); i++ {
		n := 0
		switch {
		case s[i] == '\n':
			n = 1
		case s[i] == '\r':
			n = 1
			if i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
		case strings.HasPrefix(s[i:], "\u2028"), strings.HasPrefix(s[i:], "\u2029"):
			n = 3
		}
		if n > 0 {
			lines = append(lines, s[start:i])
			i += n - 1
			start = i + 1
		}
	}
	return append(lines, s[start:])
}

// posRE matches the end of one frame of an Error's stack property, after
// the program's name: "\tat fn (NAME:LINE:COL(PC))" or "\tat NAME:LINE:COL(PC)".
var posRE = regexp.MustCompile(`^(\d+):(\d+)\(\d+\)\)?$`)

// stackPos finds the first frame of the program in an Error's stack text.
func (p *program) stackPos(stack string) (int, int) {
	for _, l := range strings.Split(stack, "\n") {
		if !strings.HasPrefix(l, "\tat ") {
			continue
		}
		i := strings.LastIndex(l, p.name+":")
		if i < 0 {
			continue
		}
		m := posRE.FindStringSubmatch(l[i+len(p.name)+1:])
		if m == nil {
			continue
		}
		line, err1 := strconv.Atoi(m[1])
		col, err2 := strconv.Atoi(m[2])
		if err1 == nil && err2 == nil {
			return p.mapPos(line, col)
		}
	}
	return 0, 0
}

// framePos finds the first frame of the program in a Go-side stack.
func (p *program) framePos(frames []goja.StackFrame) (int, int) {
	for _, f := range frames {
		if f.SrcName() != p.name {
			continue
		}
		if pos := f.Position(); pos.Line > 0 {
			return p.mapPos(pos.Line, pos.Column)
		}
	}
	return 0, 0
}
