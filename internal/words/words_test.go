package words

import "testing"

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "tools", 1: "tool", 2: "tools", -1: "tools"} {
		if got := Plural(n, "tool", "tools"); got != want {
			t.Errorf("Plural(%d) = %q; want %q", n, got, want)
		}
	}
}
