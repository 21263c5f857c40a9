package shell

import "testing"

func TestWord(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/a-b_c.d":        "/tmp/a-b_c.d",
		"ID:1000@/run/x.sock": "ID:1000@/run/x.sock",
		"a b":                 "'a b'",
		"it's":                `'it'\''s'`,
		"~/x":                 "'~/x'",
		"":                    "''",
	} {
		if got := Word(in); got != want {
			t.Errorf("Word(%q) = %s, want %s", in, got, want)
		}
	}
}
