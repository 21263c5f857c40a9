// Package output keeps what mcp saves instead of printing: images, audio,
// blobs and text cut at --max-output, each in a file of its own in a
// directory private to the user.
package output

import (
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpsh/mcp/internal/privdir"
)

// Dir is the user's runtime directory, where saved outputs go:
// $XDG_RUNTIME_DIR/mcp, else a directory of a random name in $TMPDIR that
// the user's cache directory remembers (privdir.Runtime).
func Dir() (string, error) { return privdir.Runtime() }

// Save writes data to a new file of its own in Dir, named after target,
// and returns its path.
func Save(target, ext string, data []byte) (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", fmt.Errorf("saving output: %w", err)
	}
	name := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, target)
	f, err := os.CreateTemp(dir, name+"-"+time.Now().Format("20060102-150405")+"-*"+ext)
	if err != nil {
		return "", fmt.Errorf("saving output: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("saving output: %w", err)
	}
	return f.Name(), f.Close()
}

// SaveBlob decodes base64 content and saves it, returning the line to print.
func SaveBlob(target, kind, mimeType, data string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return fmt.Sprintf("[%s: content is not valid base64; use --json to see it]", kind), nil
	}
	path, err := Save(target, Ext(mimeType, ".bin"), raw)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("[%s saved to %s (%s, %s)]", kind, path, orUnknown(mimeType), FormatSize(int64(len(raw)))), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

// Size is a flag value like 50KB, 2MB or 1024, in bytes.
type Size int64

func (b *Size) UnmarshalText(text []byte) error {
	s := strings.ToUpper(strings.TrimSpace(string(text)))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"KB", 1000}, {"MB", 1000 * 1000}, {"K", 1000}, {"M", 1000 * 1000}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 || fmt.Sprint(n) != s {
		return fmt.Errorf("expected a size like 50KB, 2MB or 4096, got %q", string(text))
	}
	*b = Size(n * mult)
	return nil
}

// FormatSize is n bytes for a person: "12 bytes", "3.4 KB", "1.2 MB".
func FormatSize(n int64) string {
	switch {
	case n >= 1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}
