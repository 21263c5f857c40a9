package complete

import (
	"strings"
	"unicode"
)

// line is a command line up to the cursor as Tab completes it: the verb,
// the positional words after it, the word being typed, and the --recipe
// and --agent it names.
type line struct {
	verb  string
	args  []string // positional words after the verb, before the word typed
	word  string   // the word being typed ("" after a space)
	flags map[string]string
}

// parseLine reads a command line (COMP_LINE up to COMP_POINT) as the
// shells' scripts pass it: words split at spaces, the first the program's
// name. takesValue says which flags (--name or -n) take the next word as
// their value when it is not given after "=". A word after "--" is
// positional.
func parseLine(text string, takesValue func(flag string) bool) line {
	words := strings.Fields(text)
	if len(words) == 0 {
		return line{}
	}
	if text != "" && unicode.IsSpace(rune(text[len(text)-1])) {
		words = append(words, "")
	}
	l := line{word: words[len(words)-1], flags: map[string]string{}}
	if len(words) < 2 {
		return l // the program's name, being typed
	}
	rest := words[1 : len(words)-1]
	dashes := false
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case !dashes && w == "--":
			dashes = true
		case !dashes && strings.HasPrefix(w, "-") && len(w) > 1:
			name, value, inline := strings.Cut(w, "=")
			if !inline && takesValue(name) && i+1 < len(rest) {
				i++
				value = rest[i]
			}
			l.flags[name] = value
		case l.verb == "":
			l.verb = w
		default:
			l.args = append(l.args, w)
		}
	}
	return l
}
