package redact

import (
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/url"
	"strings"
	"unicode/utf8"
)

// A secret that is structured (a JSON credential file, a PEM key, a list
// of key=value pairs) is also a secret by its parts: a server that holds
// a service account's JSON prints its key a line at a time, or one field
// of it, never the whole value as it was given.
const (
	// maxStructured is the longest secret whose parts are taken: a
	// credential file is a few KiB.
	maxStructured = 64 << 10
	// maxParts bounds the parts of one secret.
	maxParts = 256
	// maxDepth bounds how deep parts of parts are taken: a PEM key in a
	// JSON file is two levels.
	maxDepth = 3
	// pemLine is the width of a PEM body's lines as RFC 7468 writes them.
	pemLine = 64
)

// Parts is what of v is secret on its own, at least MinLen bytes each: of
// JSON, every string value at any depth (keys are not secret); of each PEM
// block, its base64 body whole (as written, and in one line) and each of
// its lines; of a list of key=value pairs separated by ';', '&', ',',
// white space or line ends, each value (decoded too in a query string).
// The parts of those parts are taken as well, to a depth of maxDepth. A
// value longer than maxStructured has no parts; none has more than
// maxParts.
func Parts(v string) []string {
	p := &parts{seen: map[string]bool{}}
	p.of(v, 0)
	return p.out
}

type parts struct {
	out  []string
	seen map[string]bool
}

func (p *parts) full() bool { return len(p.out) >= maxParts }

// add keeps part, and takes its own parts when depth allows.
func (p *parts) add(part string, depth int) {
	part = strings.TrimSpace(part)
	if len(part) < MinLen || p.seen[part] || p.full() {
		return
	}
	p.seen[part] = true
	p.out = append(p.out, part)
	if depth < maxDepth {
		p.of(part, depth+1)
	}
}

func (p *parts) of(v string, depth int) {
	if len(v) > maxStructured || p.full() {
		return
	}
	if t := strings.TrimSpace(v); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		if p.json(t, depth) {
			return
		}
	}
	if strings.Contains(v, "-----BEGIN ") {
		p.pem(v, depth)
	}
	if strings.Contains(v, "=") {
		p.pairs(v, depth)
	}
}

// json takes the string values of v, when it is JSON.
func (p *parts) json(v string, depth int) bool {
	// Decoding puts U+FFFD for each byte that is not UTF-8: such a
	// string is not in v, and would mask nothing.
	if !utf8.ValidString(v) {
		return false
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	var tree any
	if dec.Decode(&tree) != nil || dec.More() {
		return false
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			p.add(x, depth)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(tree)
	return true
}

// pem takes the bodies of v's PEM blocks and their lines: as v writes
// them, and as the block's bytes encode in base64, which is what a program
// that parsed the key writes again.
func (p *parts) pem(v string, depth int) {
	var body []string
	in := false
	for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "-----BEGIN "):
			in, body = true, body[:0]
		case strings.HasPrefix(line, "-----END "):
			if in {
				p.body(body, depth)
			}
			in = false
		case in && !strings.Contains(line, ":"): // not a header (RFC 1421)
			body = append(body, line)
		}
	}
	rest := []byte(v)
	for !p.full() {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return
		}
		enc := base64.StdEncoding.EncodeToString(block.Bytes)
		var lines []string
		for len(enc) > pemLine {
			lines, enc = append(lines, enc[:pemLine]), enc[pemLine:]
		}
		p.body(append(lines, enc), depth)
	}
}

// body takes a PEM body: whole, in one line, and each of its lines.
func (p *parts) body(lines []string, depth int) {
	p.add(strings.Join(lines, "\n"), depth)
	p.add(strings.Join(lines, ""), depth)
	for _, l := range lines {
		p.add(l, depth)
	}
}

// pairs takes the values of v's key=value pairs. Pairs end at ';', '&',
// ',' and line ends, and at white space when it stands between pairs
// (host=db password=x) outside quotes.
func (p *parts) pairs(v string, depth int) {
	var items []string
	for _, item := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(";&,\n\r", r) }) {
		if strings.Count(item, "=") > 1 && !strings.ContainsAny(item, `"'`) {
			items = append(items, strings.Fields(item)...)
		} else {
			items = append(items, item)
		}
	}
	for _, item := range items {
		key, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || !isKey(key) {
			continue
		}
		val = strings.Trim(val, `"'`)
		p.add(val, depth)
		if strings.ContainsAny(val, "%+") {
			if dec, err := url.QueryUnescape(val); err == nil {
				p.add(dec, depth)
			}
		}
	}
}

// isKey says k can name a value of a list: letters, digits, '_', '-', '.'.
func isKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range []byte(k) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-', c == '.':
		default:
			return false
		}
	}
	return true
}
