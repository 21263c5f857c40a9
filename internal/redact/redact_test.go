package redact

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestSet_Text(t *testing.T) {
	for _, c := range []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"none", nil, "token abcd", "token abcd"},
		{"one", []string{"abcd"}, "token abcd here abcd", "token [redacted] here [redacted]"},
		{"short values stay", []string{"abc", "1", ""}, "abc 1 x", "abc 1 x"},
		{"longest first", []string{"abcd", "abcdefgh"}, "key=abcdefgh", "key=[redacted]"},
		{"inside another, either order", []string{"abcdefgh", "cdef"}, "key=abcdefgh cdef", "key=[redacted] [redacted]"},
		{"overlapping", []string{"abcdef", "defghi"}, "x abcdefghi y", "x [redacted] y"},
		{"touching", []string{"abcd", "efgh"}, "abcdefgh", "[redacted]"},
		{"repeated overlap", []string{"aaaa"}, "aaaaaa b", "[redacted] b"},
		{"query escaped", []string{"p@ss word"}, "url ?k=p%40ss+word", "url ?k=[redacted]"},
		{"path escaped", []string{"p@ss word"}, "/p@ss%20word/", "/[redacted]/"},
		{"json escaped", []string{`a"b<c>`}, `{"k":"a\"b\u003cc\u003e"} {"k":"a\"b<c>"}`, `{"k":"[redacted]"} {"k":"[redacted]"}`},
		{"go quoted", []string{"tab\there"}, `msg="tab\there"`, `msg="[redacted]"`},
		{"white space run together", []string{"two\n  lines"}, "err: two lines", "err: [redacted]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s Set
			s.Add(c.secrets...)
			if got := s.Text(c.in); got != c.want {
				t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestSet_AddHeader(t *testing.T) {
	var s Set
	s.AddHeader("Bearer tok-123456")
	basic := base64.StdEncoding.EncodeToString([]byte("ada:hunter22"))
	s.AddHeader("Basic " + basic)
	for in, want := range map[string]string{
		"got Bearer tok-123456":         "got [redacted]",
		"token tok-123456 refused":      "token [redacted] refused",
		"Authorization: Basic " + basic: "Authorization: [redacted]",
		"bad credentials ada:hunter22":  "bad credentials [redacted]",
		"password hunter22":             "password [redacted]",
	} {
		if got := s.Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSet_AddBasic(t *testing.T) {
	var s Set
	s.AddBasic("client 1", "s3cr+t/=")
	plain := base64.StdEncoding.EncodeToString([]byte("client 1:s3cr+t/="))
	form := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape("client 1") + ":" + url.QueryEscape("s3cr+t/=")))
	for _, in := range []string{"s3cr+t/=", "Basic " + plain, "Basic " + form, "client_secret=" + url.QueryEscape("s3cr+t/=")} {
		if got := s.Text(in); strings.Contains(got, "s3cr") || strings.Contains(got, plain) || strings.Contains(got, form) || !strings.Contains(got, Mask) {
			t.Errorf("Text(%q) = %q", in, got)
		}
	}
	var short Set
	short.AddBasic("user", "abc")
	if got := short.Text("abc " + base64.StdEncoding.EncodeToString([]byte("user:abc"))); strings.Contains(got, Mask) {
		t.Errorf("a short password was taken as a secret: %q", got)
	}
}

func TestSet_nil(t *testing.T) {
	var s *Set
	if got := s.Text("abcd"); got != "abcd" {
		t.Errorf("nil Text = %q", got)
	}
	err := errors.New("abcd")
	if got := s.Error(err); got != err {
		t.Errorf("nil Error = %v", got)
	}
}

func TestSet_Error(t *testing.T) {
	var s Set
	s.Add("hunter22")
	base := &fs.PathError{Op: "open", Path: "/x/hunter22", Err: fs.ErrNotExist}
	err := s.Error(fmt.Errorf("reading: %w", base))
	if err.Error() != "reading: open /x/[redacted]: file does not exist" {
		t.Errorf("Error() = %q", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the chain is lost: %v", err)
	}
	clean := errors.New("nothing secret")
	if s.Error(clean) != clean {
		t.Error("an error without a secret was wrapped")
	}
	if s.Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
}

// A slog handler writing through Writer logs no secret, however its
// attributes are quoted.
func TestSet_Writer(t *testing.T) {
	var s Set
	s.Add(`sk "quoted" key`)
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(s.Writer(&buf), nil))
	log.Info("got sk \"quoted\" key", "err", errors.New(`denied for sk "quoted" key`))
	if strings.Contains(buf.String(), "quoted") || strings.Count(buf.String(), Mask) != 2 {
		t.Errorf("log = %q", buf.String())
	}
	buf.Reset()
	jlog := slog.New(slog.NewJSONHandler(s.Writer(&buf), nil))
	jlog.Info("x", "v", `sk "quoted" key`)
	if strings.Contains(buf.String(), "quoted") {
		t.Errorf("json log = %q", buf.String())
	}
}

func TestSet_concurrent(t *testing.T) {
	var s Set
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := fmt.Sprintf("secret-%d", i)
			s.Add(v)
			if got := s.Text("x " + v); got != "x "+Mask {
				t.Errorf("Text = %q", got)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkSet_Text is one log line against the secrets of ten endpoints
// with three values each (every value with its escaped forms).
func BenchmarkSet_Text(b *testing.B) {
	var s Set
	for i := range 30 {
		s.Add(fmt.Sprintf("sk-%02d-0123456789abcdef", i))
	}
	line := `time=2026-01-01T00:00:00Z level=INFO msg="server notes asked for input (\"Pick a plan\"); answered with its own defaults for plan, seats"`
	b.ReportAllocs()
	for b.Loop() {
		s.Text(line)
	}
}

// Count counts what Text finds, overlapping or not and whole tokens or
// not, up to its limit; text in which it counts none Text leaves as it is.
func TestSet_Count(t *testing.T) {
	var s Set
	s.Add("hunter22", "aaaa")
	for _, c := range []struct {
		text  string
		limit int
		want  int
	}{
		{"pw hunter22, again hunter22", 10, 2},
		{"xhunter22x", 10, 1},
		{"aaaaaa", 10, 3},
		{strings.Repeat("a", 1000), 5, 5},
		{"nothing here", 10, 0},
	} {
		if got := s.Count(c.text, c.limit); got != c.want {
			t.Errorf("Count(%q, %d) = %d, want %d", c.text, c.limit, got, c.want)
		}
	}
	if got := (*Set)(nil).Count("hunter22", 10); got != 0 {
		t.Errorf("a nil set counts %d", got)
	}
	long := strings.Repeat("hunter22 ", 100)
	if n := testing.AllocsPerRun(10, func() { s.Count(long, 1000) }); n > 0 {
		t.Errorf("Count allocates %.0f times", n)
	}
}

// FuzzSet_Count: Text changes only text in which Count counts a secret.
func FuzzSet_Count(f *testing.F) {
	f.Add("pw hunter22", "hunter22")
	f.Add("aaaaaa", "aaaa")
	f.Fuzz(func(t *testing.T, text, secret string) {
		var s Set
		s.Add(secret)
		if s.Count(text, 1) == 0 && s.Text(text) != text {
			t.Fatalf("Count(%q) is 0 and Text masks %q", text, s.Text(text))
		}
	})
}
