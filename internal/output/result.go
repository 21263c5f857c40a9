package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/clip"
)

// WriteJSON writes v as indented JSON, without HTML escapes, in one write.
func WriteJSON(w io.Writer, v any) error {
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

// Result is the text of a tool result: structured content as JSON, text as
// is, images, audio and blobs saved to files whose paths are printed.
// Structured content that is one string field which a text item repeats
// (server-filesystem's {"content": "the file's text"}) is that text.
func Result(target string, res *catalog.Result) ([]byte, error) {
	var out bytes.Buffer
	structured := len(res.Structured) > 0 && !bytes.Equal(bytes.TrimSpace(res.Structured), []byte("null"))
	only, hasOnly := onlyString(res.Structured)
	asText := structured && hasOnly && soleField(res.Structured) && repeatsText(res, only)
	if structured && !asText {
		_ = WriteJSON(&out, res.Structured)
	}
	for _, it := range res.Items() {
		line, saved, err := SaveMedia(target, it)
		if err != nil {
			return nil, err
		}
		if saved {
			out.WriteString(line + "\n")
			continue
		}
		switch it.Type {
		case "text":
			// With structured content, a text item that is its JSON
			// serialization (as the spec recommends sending), or that
			// repeats its only string field, is not printed again.
			if asText && it.Text == only {
				asText = false // printed once
			} else if structured && (json.Valid([]byte(it.Text)) || hasOnly && it.Text == only) {
				continue
			}
			out.WriteString(it.Text)
			ensureNewline(&out)
		case "resource":
			if it.Resource != nil {
				out.WriteString(it.Resource.Text)
				ensureNewline(&out)
			}
		case "resource_link":
			out.WriteString(LinkLine(it) + "\n")
		default:
			out.Write(it.Raw)
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

// onlyString is the value of the one field of a structured content object
// whose value is a string, when it has exactly one such field
// (server-filesystem's {"content": "the file's text"}).
func onlyString(structured json.RawMessage) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(structured, &obj) != nil {
		return "", false
	}
	found, n := "", 0
	for _, v := range obj {
		var s string
		if bytes.HasPrefix(v, []byte(`"`)) && json.Unmarshal(v, &s) == nil {
			found, n = s, n+1
		}
	}
	return found, n == 1
}

// soleField says whether structured content is an object of one field.
func soleField(structured json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(structured, &obj) == nil && len(obj) == 1
}

// repeatsText says whether a text item of res is s.
func repeatsText(res *catalog.Result, s string) bool {
	for _, it := range res.Items() {
		if it.Type == "text" && it.Text == s {
			return true
		}
	}
	return false
}

func ensureNewline(b *bytes.Buffer) {
	if b.Len() > 0 && b.Bytes()[b.Len()-1] != '\n' {
		b.WriteByte('\n')
	}
}

// WriteBudgeted writes out to stdout, or its first budget bytes (cut at a
// line's end when there is one) with the whole saved to a file, and says so
// on stderr. A budget of 0 writes it all.
func WriteBudgeted(stdout, stderr io.Writer, target string, out []byte, budget int) error {
	if budget <= 0 || len(out) <= budget {
		_, err := stdout.Write(out)
		return err
	}
	path, err := Save(target, ".txt", out)
	if err != nil {
		return err
	}
	cut, lines := clip.Lines(out, budget)
	if _, err := stdout.Write(cut); err != nil {
		return err
	}
	if len(cut) > 0 && cut[len(cut)-1] != '\n' {
		fmt.Fprintln(stdout)
	}
	size := FormatSize(int64(len(cut))) + " of " + FormatSize(int64(len(out)))
	if lines > 0 {
		total := bytes.Count(out, []byte("\n"))
		if out[len(out)-1] != '\n' {
			total++
		}
		size = fmt.Sprintf("after line %d of %d (%s)", lines, total, size)
	} else {
		size = "at " + size
	}
	fmt.Fprintf(stderr, "mcp: output cut %s; the whole output is in %s\n", size, path)
	return nil
}
