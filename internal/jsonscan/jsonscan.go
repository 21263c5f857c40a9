// Package jsonscan reads JSON text in place, without building a tree of
// it: the members of an object, the elements of an array, where a value
// ends, each literal, and a string as encoding/json decodes it. Skipping
// a value costs nothing however deep or long it is, so that what a reader
// checks of a text costs a bounded multiple of what it checks, not of the
// text's size.
//
// It is for text a decoder has found valid (a json.RawMessage it
// decoded): of other text it says nothing useful, but it never panics,
// and every walk ends.
package jsonscan

import "iter"

// Space is the index of the first byte of data at or after i that is not
// JSON white space (len(data) if none is).
func Space(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// End is the index just after the value that starts at data[i], or -1
// when data holds no whole value there.
func End(data []byte, i int) int {
	if i < 0 || i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		return nestEnd(data, i)
	}
	return literalEnd(data, i)
}

// stringEnd is the index just after the string that starts at data[i].
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// nestEnd is the index just after the array or object that starts at
// data[i], strings skipped: a count of what is open, not a stack of it.
func nestEnd(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			if i = stringEnd(data, i); i < 0 {
				return -1
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

// literalEnd is the index just after the number, true, false or null
// that starts at data[i].
func literalEnd(data []byte, i int) int {
	j := i
	for j < len(data) && !isSpace(data[j]) && !isDelim(data[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func isDelim(c byte) bool {
	switch c {
	case ',', ':', '[', ']', '{', '}', '"':
		return true
	}
	return false
}

// Members yields the name (as written, quoted) and the value of each
// member of the object data holds (white space around it allowed), in
// order, twice when written twice. Of data that holds no object it yields
// nothing.
func Members(data []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(name, value []byte) bool) {
		i := Space(data, 0)
		if i >= len(data) || data[i] != '{' {
			return
		}
		for i = Space(data, i+1); i < len(data) && data[i] == '"'; {
			end := stringEnd(data, i)
			if end < 0 {
				return
			}
			name := data[i:end]
			if i = Space(data, end); i >= len(data) || data[i] != ':' {
				return
			}
			i = Space(data, i+1)
			if end = End(data, i); end < 0 || !yield(name, data[i:end]) {
				return
			}
			if i = Space(data, end); i >= len(data) || data[i] != ',' {
				return
			}
			i = Space(data, i+1)
		}
	}
}

// Elements yields each element of the array data holds (white space
// around it allowed), in order. Of data that holds no array it yields
// nothing.
func Elements(data []byte) iter.Seq[[]byte] {
	return func(yield func(elem []byte) bool) {
		i := Space(data, 0)
		if i >= len(data) || data[i] != '[' {
			return
		}
		for i = Space(data, i+1); i < len(data) && data[i] != ']'; {
			end := End(data, i)
			if end < 0 || !yield(data[i:end]) {
				return
			}
			if i = Space(data, end); i >= len(data) || data[i] != ',' {
				return
			}
			i = Space(data, i+1)
		}
	}
}

// Literals yields where each literal of data lies, data[start:end], in
// order: each string (the names of members too, and with its quotes),
// number, true, false and null.
func Literals(data []byte) iter.Seq2[int, int] {
	return func(yield func(start, end int) bool) {
		for i := 0; i < len(data); {
			c := data[i]
			if isSpace(c) || (isDelim(c) && c != '"') {
				i++
				continue
			}
			end := End(data, i)
			if end < 0 || !yield(i, end) {
				return
			}
			i = end
		}
	}
}
