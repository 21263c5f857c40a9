package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpsh/mcp/catalog"
)

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// renderResult prints a tool result: structured content as JSON, text as
// is, images, audio and blobs saved to files whose paths are printed.
// --json prints the whole result. Text output over --max-output is cut and
// saved whole to a file.
func renderResult(a *app, target string, res *catalog.Result) error {
	if a.globals.JSON {
		return writeJSON(a.stdout, res.Raw)
	}
	var out bytes.Buffer
	if len(res.Structured) > 0 && !bytes.Equal(bytes.TrimSpace(res.Structured), []byte("null")) {
		_ = writeJSON(&out, res.Structured)
	}
	for _, it := range res.Items() {
		switch it.Type {
		case "text":
			// With structured content, a text item that is its JSON
			// serialization (as the spec recommends sending) is not repeated.
			if out.Len() > 0 && json.Valid([]byte(it.Text)) {
				continue
			}
			out.WriteString(it.Text)
			ensureNewline(&out)
		case "image", "audio":
			line, err := saveBlob(target, it.Type, it.MimeType, it.Data)
			if err != nil {
				return err
			}
			out.WriteString(line + "\n")
		case "resource":
			if it.Resource == nil {
				continue
			}
			if it.Resource.Blob != "" {
				line, err := saveBlob(target, "resource "+it.Resource.URI, it.Resource.MimeType, it.Resource.Blob)
				if err != nil {
					return err
				}
				out.WriteString(line + "\n")
			} else {
				out.WriteString(it.Resource.Text)
				ensureNewline(&out)
			}
		case "resource_link":
			fmt.Fprintf(&out, "[resource link: %s%s]\n", it.URI, optional(" ", it.Name))
		default:
			out.Write(it.Raw)
			out.WriteByte('\n')
		}
	}
	return writeBudgeted(a, target, out.Bytes())
}

func optional(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + "(" + s + ")"
}

func ensureNewline(b *bytes.Buffer) {
	if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
		b.WriteByte('\n')
	}
}

// writeBudgeted writes out, or its first --max-output bytes with the whole
// saved to a file, and says so on stderr.
func writeBudgeted(a *app, target string, out []byte) error {
	budget := int(a.globals.MaxOutput)
	if budget <= 0 || len(out) <= budget {
		_, err := a.stdout.Write(out)
		return err
	}
	path, err := saveFile(target, ".txt", out)
	if err != nil {
		return err
	}
	cut := out[:budget]
	for len(cut) > 0 && !utf8.RuneStart(out[len(cut)]) {
		cut = cut[:len(cut)-1] // never split a character
	}
	if i := bytes.LastIndexByte(cut, '\n'); i > budget/2 {
		cut = cut[:i+1]
	}
	if _, err := a.stdout.Write(cut); err != nil {
		return err
	}
	if len(cut) > 0 && cut[len(cut)-1] != '\n' {
		fmt.Fprintln(a.stdout)
	}
	fmt.Fprintf(a.stderr, "mcp: output cut at %s of %s; the whole output is in %s\n",
		formatSize(int64(len(cut))), formatSize(int64(len(out))), path)
	return nil
}

// saveBlob decodes base64 content and saves it, returning the line to print.
func saveBlob(target, kind, mimeType, data string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return fmt.Sprintf("[%s: content is not valid base64; use --json to see it]", kind), nil
	}
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		ext = exts[len(exts)-1]
	}
	path, err := saveFile(target, ext, raw)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("[%s saved to %s (%s, %s)]", kind, path, orUnknown(mimeType), formatSize(int64(len(raw)))), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

// outputDir is a 0700 directory for saved outputs, one per user.
func outputDir() (string, error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("mcp-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%s is not a private directory", dir)
		}
	}
	return dir, nil
}

func saveFile(target, ext string, data []byte) (string, error) {
	dir, err := outputDir()
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
