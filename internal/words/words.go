// Package words holds the small pieces of English that messages share.
package words

// Plural is one when n is 1 and many otherwise: "1 tool", "2 tools".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
