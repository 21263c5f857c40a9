package manifests

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CanonicalID returns the form of a server id under which ids are compared:
// "-" and "_" are the same character, so "dev-radius" and "dev_radius" name
// one server. It replaces "-" with "_" and keeps case.
func CanonicalID(id string) string {
	return strings.ReplaceAll(id, "-", "_")
}

// ValidServerID reports whether id is 1–64 characters from [A-Za-z0-9_-].
func ValidServerID(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// ValidToolName reports whether name is a usable tool name: valid UTF-8,
// 1–128 characters, with no whitespace (any Unicode space) and, so that a
// name can never rewrite a terminal, no control characters.
func ValidToolName(name string) bool {
	if name == "" || !utf8.ValidString(name) {
		return false
	}
	if utf8.RuneCountInString(name) > 128 {
		return false
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// patternChars are glob and regular-expression metacharacters. A tool name
// holding any of them (other than the lone "*") is taken for a pattern.
const patternChars = `*?[]{}()|^$+\`

func isPattern(name string) bool {
	return strings.ContainsAny(name, patternChars)
}

const toolNameHint = "tool names are 1-128 characters without whitespace or control characters"
const serverIDHint = "server ids are 1-64 characters from A-Z, a-z, 0-9, _ and -"
