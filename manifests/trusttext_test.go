package manifests

import (
	"fmt"
	"testing"
)

// What trusting a directory would allow is said once per directory, with
// the command as a person would type it.
func TestUntrustedHints(t *testing.T) {
	errs := []error{
		&UntrustedError{Server: "a", Dir: "/p/one"},
		fmt.Errorf("wrapped: %w", &UntrustedError{Server: "b", Dir: "/p/one"}),
		&UntrustedError{Server: "c", Dir: "/p/it's", Unsafe: "x is writable by others"},
		fmt.Errorf("not untrusted"),
	}
	got := UntrustedHints(errs)
	want := []string{
		"`mcp trust /p/one` would allow 2 servers to start: a, b",
		"/p/it's cannot be trusted: x is writable by others",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("UntrustedHints = %q, want %q", got, want)
	}
	if got := TrustCommand("/p/it's"); got != `mcp trust '/p/it'\''s'` {
		t.Errorf("TrustCommand = %s", got)
	}
}
