package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"plain text\n\twith tab":          "plain text\n\twith tab",
		"hi\x1b]0;PWNED\x07\x1b[2J":       `hi\x1b]0;PWNED\x07\x1b[2J`,
		"out\x1b]52;c;aGk=\x07":           `out\x1b]52;c;aGk=\x07`,
		"cr\r and del\x7f":                `cr\x0d and del\x7f`,
		"c1 \u0085 \u009b":                `c1 \u0085 \u009b`,
		"evil\u202etxt.exe \u2066x\u2069": `evil\u202etxt.exe \u2066x\u2069`,
		"bad \xff\xfe utf-8":              `bad \xff\xfe utf-8`,
		"ünïcødé, 日本語, emoji 🙂 stay":      "ünïcødé, 日本語, emoji 🙂 stay",
	} {
		if got := str(in); got != want {
			t.Errorf("str(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	n, err := w.Write([]byte("a\x1bb"))
	if err != nil || n != 3 {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if out.String() != `a\x1bb` {
		t.Errorf("wrote %q", out.String())
	}
}

// JSON text stays valid JSON with the same values: bidi characters that
// encoding/json leaves raw become JSON's own escapes.
func TestEscaped_keepsJSON(t *testing.T) {
	raw, _ := json.Marshal(map[string]string{"name": "evil\u202etxt", "c1": "\u0085"})
	safe := str(string(raw))
	var a, b map[string]string
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(safe), &b); err != nil {
		t.Fatalf("escaped JSON %s is not JSON: %v", safe, err)
	}
	if a["name"] != b["name"] || a["c1"] != b["c1"] {
		t.Errorf("values changed: %q vs %q", a, b)
	}
}

func FuzzEscaped(f *testing.F) {
	f.Add("hi\x1b]0;x\x07 \u202e \xff ok")
	f.Fuzz(func(t *testing.T, s string) {
		got := str(s)
		if !utf8.ValidString(got) {
			t.Fatalf("str(%q) = %q is not UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || unsafeRune(r) {
				t.Fatalf("str(%q) = %q keeps %U", s, got, r)
			}
		}
		if firstUnsafe([]byte(s)) < 0 && got != s {
			t.Fatalf("String changed safe text %q to %q", s, got)
		}
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("str(%q) changed its lines", s)
		}
	})
}

// str is escaped for strings.
func str(s string) string { return string(escaped([]byte(s))) }

func TestString(t *testing.T) {
	if got := String("step\x1b]0;x\x07 \u202edone"); got != `step\x1b]0;x\x07 \u202edone` {
		t.Errorf("String = %q", got)
	}
}
