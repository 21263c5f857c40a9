package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/internal/testenv"
)

// redactShapes are tools of about 4 MiB of JSON, each of a shape that
// costs a reader of JSON most for its size, each with a string that makes
// redactJSON read it whole (a secret of costSecrets, an escape).
func redactShapes() map[string]string {
	tool := func(value string) string {
		return `{"name":"t","description":"key hunter22\n","inputSchema":{"type":"object","default":` + value + `}}`
	}
	deep := strings.Repeat("[", 9990) + strings.Repeat("]", 9990)
	members := `{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0}`
	return map[string]string{
		"zeros":                     tool(repeat("[", "0", "]")),
		"short strings":             tool(repeat("[", `"ab"`, "]")),
		"escapes":                   tool(repeat("[", `"\n"`, "]")),
		"numbers":                   tool(repeat("[", "12345", "]")),
		"deep arrays":               tool(repeat("[", deep, "]")),
		"objects":                   tool(repeat("[", members, "]")),
		"long string":               tool(`"` + strings.Repeat(`x\u00e9`, 4<<20/7) + `"`),
		"secret strings":            tool(repeat("[", `"hunter22"`, "]")),
		"secrets":                   `{"name":"t","description":"` + strings.Repeat("hunter22 ", 4<<20/9) + `"}`,
		"secret overlapping itself": `{"name":"t","description":"` + strings.Repeat("a", 4<<20) + `"}`,
	}
}

// repeat is unit, apart by commas, in about 4 MiB between open and end.
func repeat(open, unit, end string) string {
	n := (4 << 20) / (len(unit) + 1)
	return open + strings.Repeat(unit+",", n-1) + unit + end
}

func costSecrets() *redact.Set {
	s := new(redact.Set)
	s.Add("hunter22", "987654321", "aaaa")
	return s
}

// Taking secrets out of a tool's JSON costs a bounded multiple of its
// size, less than eight times, whatever its shape and however often it
// holds a secret: a tree of a 4 MiB array of zeros once took a GiB, and
// each occurrence of a secret (one at each byte of "aaaa…") a few hundred
// bytes.
func TestRedactJSON_cost(t *testing.T) {
	s := costSecrets()
	for name, tool := range redactShapes() {
		raw := json.RawMessage(tool)
		got := testenv.Allocated(func() { _, _ = redactJSON(raw, s) })
		if ratio := float64(got) / float64(len(raw)); ratio >= 8 {
			t.Errorf("%s: redacting %d bytes of a tool's JSON allocated %d MiB, %.1f times its size", name, len(raw), got>>20, ratio)
		}
	}
}

// BenchmarkRedactJSON reports, for each shape of redactShapes, the bytes
// redacting one tool allocates (B/op) and that as a multiple of its size.
func BenchmarkRedactJSON(b *testing.B) {
	s := costSecrets()
	for name, tool := range redactShapes() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			raw := json.RawMessage(tool)
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				_, _ = redactJSON(raw, s)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(raw)), "x-size")
		})
	}
}

// treeRedactJSON is redactJSON as it was, on a tree of all of raw
// (hujson): the oracle of FuzzRedactJSON_tree.
func treeRedactJSON(raw json.RawMessage, text func(string) string) (json.RawMessage, error) {
	if !bytes.ContainsRune(raw, '\\') && text(string(raw)) == string(raw) {
		return raw, nil
	}
	v, err := hujson.Parse(raw)
	if err != nil {
		return nil, err
	}
	for item := range v.All() {
		lit, ok := item.Value.(hujson.Literal)
		if !ok {
			continue
		}
		s := lit.String()
		if r := text(s); r != s {
			item.Value = hujson.String(r)
		}
	}
	out := v.Pack()
	if text(string(out)) != string(out) {
		return nil, errSecretInJSON
	}
	return out, nil
}

// FuzzRedactJSON_tree: of any JSON a server sends and whatever the
// secrets, redactJSON, which reads it a literal at a time, gives what the
// tree of it gave (treeRedactJSON), byte for byte, and refuses what it
// refused.
func FuzzRedactJSON_tree(f *testing.F) {
	f.Add(`{"d": "key hunter22", "n": 987654321}`, "hunter22", "987654321")
	f.Add(`{"d": "key abcd", "e": "f"}`, `abcd"`, "")
	f.Add(` ["\u0068unter22", "x\nhunter22", {"hunter22" : [true, null, -1.5e3]}] `, "hunter22", `"x`)
	f.Add(`{"enum":[12345678,"ab"]}`, `12345678,"ab`, "")
	f.Add("{\"\\ud800\xff\":\"\\/\\u00e9\"}", "\ufffd\ufffd", "/é")
	f.Fuzz(func(t *testing.T, raw, a, b string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		var s redact.Set
		s.Add(a, b)
		got, err := redactJSON(json.RawMessage(raw), &s)
		want, werr := treeRedactJSON(json.RawMessage(raw), s.Text)
		if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("redactJSON(%s) = %s, %v; the tree gave %s, %v", raw, got, err, want, werr)
		}
	})
}

// A tool's JSON that holds the recipe's secrets more than
// maxSecretsInJSON times is not taken: no real tool does, and each costs
// a few hundred bytes to take out. Up to that, each is taken out.
func TestRedactJSON_manySecrets(t *testing.T) {
	s := costSecrets()
	tool := func(n int) json.RawMessage {
		return json.RawMessage(`{"name":"t","enum":[` + strings.Repeat(`"hunter22",`, n-1) + `"hunter22"]}`)
	}
	got, err := redactJSON(tool(maxSecretsInJSON), s)
	if err != nil || strings.Count(string(got), redact.Mask) != maxSecretsInJSON || strings.Contains(string(got), "hunter22") {
		t.Errorf("%d secrets: %.100s…, %v", maxSecretsInJSON, got, err)
	}
	if got, err := redactJSON(tool(maxSecretsInJSON+1), s); !errors.Is(err, errSecretsInJSON) {
		t.Errorf("%d secrets: %.100s…, %v", maxSecretsInJSON+1, got, err)
	}
	escaped := json.RawMessage(`{"d":"` + strings.Repeat(`\u0068unter22 `, maxSecretsInJSON+1) + `"}`)
	if got, err := redactJSON(escaped, s); !errors.Is(err, errSecretsInJSON) {
		t.Errorf("%d escaped secrets: %.100s…, %v", maxSecretsInJSON+1, got, err)
	}
}
