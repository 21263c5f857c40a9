package catalog

import (
	"slices"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Policy names and tool names. A call reaches a tool by a name that is the
// same but for "-" and "_" (MatchTool), and servers list one name in
// several spellings (delete_all, delete-all, Delete_All), which many of
// them dispatch to one handler after changing its case. So a policy's
// exclusion covers a tool's name when, "-" read as "_", one case mapping
// a server may dispatch by makes them the same: lower or upper case, by
// the simple mappings (Go's strings) or the full ones (JavaScript's and
// Python's: "ß" is "SS"), or Unicode's full case folding. An exclusion
// covers every spelling of its name, and no spelling of an excluded name
// is left for a call to reach. An include is exact: it authorizes the
// spelling it names and no other, so that nothing a recipe did not write
// is reached through it, and an exclusion always wins over it.

// nameKeys are a name, "-" read as "_", under each case mapping: lower
// and upper (simple), lower and upper (full), and folded.
type nameKeys [5]string

func keysOf(name string) nameKeys {
	n := toolKey(name)
	if ascii(n) {
		// Every mapping of ASCII is its lower or its upper case.
		l, u := strings.ToLower(n), strings.ToUpper(n)
		return nameKeys{l, u, l, u, l}
	}
	// A Caser keeps state between calls: new ones for each name.
	return nameKeys{strings.ToLower(n), strings.ToUpper(n),
		cases.Lower(language.Und).String(n), cases.Upper(language.Und).String(n), cases.Fold().String(n)}
}

// meets says whether one mapping makes the two names the same.
func (k *nameKeys) meets(o *nameKeys) bool {
	for i := range k {
		if k[i] == o[i] {
			return true
		}
	}
	return false
}

// asciiSame says whether two ASCII names are the same but for "-" and
// "_" and for case, without building either's keys.
func asciiSame(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiKey(a[i]) != asciiKey(b[i]) {
			return false
		}
	}
	return true
}

func asciiKey(c byte) byte {
	switch {
	case c >= 'A' && c <= 'Z':
		return c + 'a' - 'A'
	case c == '-':
		return '_'
	}
	return c
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Covers reports whether the policy name rule (an exclusion) covers the
// tool name tool: they are the same but for "-" and "_" and for case.
func Covers(rule, tool string) bool {
	if rule == tool {
		return true
	}
	if ascii(rule) && ascii(tool) {
		return asciiSame(rule, tool)
	}
	r, t := keysOf(rule), keysOf(tool)
	return r.meets(&t)
}

// covered reports whether any of rules covers tool.
func covered(rules []string, tool string) bool {
	if len(rules) == 0 {
		return false
	}
	if ascii(tool) && !slices.ContainsFunc(rules, func(r string) bool { return !ascii(r) }) {
		return slices.ContainsFunc(rules, func(r string) bool { return asciiSame(r, tool) })
	}
	t := keysOf(tool)
	return slices.ContainsFunc(rules, func(r string) bool {
		k := keysOf(r)
		return k.meets(&t)
	})
}

// CoveredBy are the names of listed (what a server lists) that rule
// covers, sorted.
func CoveredBy(rule string, listed []string) []string {
	var out []string
	for _, n := range listed {
		if Covers(rule, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, strings.Compare)
	return out
}
