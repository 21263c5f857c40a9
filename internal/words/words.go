// Package words holds the small pieces of English that messages share.
package words

// Plural is one when n is 1 and many otherwise: "1 tool", "2 tools".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Distance is the optimal string alignment distance of a and b, by runes:
// insertions, deletions, substitutions and swaps of neighbours, each one
// edit ("lsit" is one from "list"). Words over 64 runes are 1<<10 apart
// from anything: no typo is that long.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	if len(s) > 64 || len(t) > 64 {
		return 1 << 10
	}
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
