// Package jsondepth follows how deep a stream of JSON text is in arrays
// and objects, byte by byte and across reads, without parsing it: what a
// guard in front of a decoder needs to refuse a message by its shape
// before the decoder sees it.
package jsondepth

// Scanner is the state of the stream: its zero value is the start of a
// text.
type Scanner struct {
	depth    int
	inString bool
	escaped  bool // just after a backslash in a string
}

// Step takes the next byte and says whether it opens an array or object
// ('[' or '{' outside a string). Depth is then the nesting it opened.
// A close with nothing open leaves the depth at 0.
func (s *Scanner) Step(b byte) (opens bool) {
	switch {
	case s.escaped:
		s.escaped = false
	case s.inString:
		s.escaped = b == '\\'
		s.inString = b != '"'
	case b == '"':
		s.inString = true
	case b == '{', b == '[':
		s.depth++
		return true
	case b == '}', b == ']':
		if s.depth > 0 {
			s.depth--
		}
	}
	return false
}

// Depth is how many arrays and objects are open.
func (s *Scanner) Depth() int { return s.depth }
