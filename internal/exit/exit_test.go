package exit

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

type coded struct {
	code int
	err  error
}

func (e *coded) Error() string { return fmt.Sprint("coded ", e.code) }
func (e *coded) ExitCode() int { return e.code }
func (e *coded) Unwrap() error { return e.err }

type many []error

func (m many) Error() string   { return "many" }
func (m many) Unwrap() []error { return m }

func TestCode(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain", errors.New("x"), ToolError},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), Upstream},
		{"canceled", context.Canceled, Upstream},
		{"coded", &coded{code: Config}, Config},
		{"wrapped", fmt.Errorf("a: %w", &coded{code: Usage}), Usage},
		{"cause wins", &coded{code: Upstream, err: &coded{code: Config}}, Config},
		{"wrapper when cause has none", &coded{code: Upstream, err: context.DeadlineExceeded}, Upstream},
		{"first of many", many{errors.New("x"), &coded{code: NotAvailable}, &coded{code: Usage}}, NotAvailable},
	} {
		if got := Code(c.err); got != c.want {
			t.Errorf("%s: Code = %d, want %d", c.name, got, c.want)
		}
	}
}
