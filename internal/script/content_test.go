package script

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/catalog"
)

// mediaHost is a session whose one tool answers with text and every kind
// of content that is not text.
func mediaHost() *fakeHost {
	content := []json.RawMessage{
		json.RawMessage(`{"type":"text","text":"here it is"}`),
		json.RawMessage(`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`),
		json.RawMessage(`{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`),
		json.RawMessage(`{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"application/octet-stream","blob":"AAEC"}}`),
		json.RawMessage(`{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"a note"}}`),
		json.RawMessage(`{"type":"resource_link","uri":"file:///big.log","name":"big log"}`),
	}
	return &fakeHost{
		ToolsFunc: func() map[string][]string { return map[string][]string{"shots": {"take"}} },
		CallFunc: func(ctx context.Context, server, tool string, args json.RawMessage) (*catalog.Result, error) {
			return &catalog.Result{Content: content}, nil
		},
	}
}

// What a tool answers besides text is not dropped: images, audio and
// embedded resources are saved to files, as mcp call saves them, and each
// is named on stderr with the tool that returned it; a resource link is
// named there too. The program's value is the text, as before; callRaw
// still gives the whole result and saves nothing.
func TestRun_SavesContentThatIsNotText(t *testing.T) {
	var stderr strings.Builder
	v, err := Run(context.Background(), mediaHost(), "prog.js", `await shots.take({})`, Limits{Timeout: 10 * time.Second}, &stderr)
	if err != nil || string(v) != `"here it is"` {
		t.Fatalf("Run = %s, %v", v, err)
	}
	lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	saved := regexp.MustCompile(`^shots\.take: \[(image|audio|resource file:///a\.bin|resource file:///notes\.txt) saved to (\S+) \(([^,]+), (\d+ bytes)\)\]$`)
	want := []struct{ kind, mime, size, data string }{
		{"image", "image/png", "8 bytes", "\x89PNG\r\n\x1a\n"},
		{"audio", "audio/wav", "4 bytes", "RIFF"},
		{"resource file:///a.bin", "application/octet-stream", "3 bytes", "\x00\x01\x02"},
		{"resource file:///notes.txt", "text/plain", "6 bytes", "a note"},
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("stderr has %d lines, want %d:\n%s", len(lines), len(want)+1, stderr.String())
	}
	for i, w := range want {
		m := saved.FindStringSubmatch(lines[i])
		if m == nil || m[1] != w.kind || m[3] != w.mime || m[4] != w.size {
			t.Errorf("line %d = %q, want the %s saved (%s, %s)", i, lines[i], w.kind, w.mime, w.size)
			continue
		}
		if data, err := os.ReadFile(m[2]); err != nil || !bytes.Equal(data, []byte(w.data)) {
			t.Errorf("%s: file %s holds %q (%v), want %q", w.kind, m[2], data, err, w.data)
		}
	}
	if got := lines[len(want)]; got != "shots.take: [resource link: file:///big.log (big log)]" {
		t.Errorf("last line = %q", got)
	}

	stderr.Reset()
	v, err = Run(context.Background(), mediaHost(), "prog.js", `(await mcp.callRaw("shots.take")).content[1].data`, Limits{Timeout: 10 * time.Second}, &stderr)
	if err != nil || string(v) != `"iVBORw0KGgo="` || stderr.Len() != 0 {
		t.Errorf("callRaw: %s, %v, stderr %q", v, err, stderr.String())
	}
}
