package guide

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/mux"
)

// The guide stays a couple of kilobytes however big the surface, and its
// examples name the surface's own tools, in the form each verb takes.
func TestWriteGuide_sizeAndExamples(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"the-path":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array"}},"required":["the-path","n"]}`)
	cat := &mux.Catalog{}
	for i := range 40 {
		s := mux.ServerTools{ID: fmt.Sprintf("server-%02d-with-a-long-name", i)}
		for j := range 200 {
			s.Tools = append(s.Tools, catalog.Tool{Server: s.ID, Name: fmt.Sprintf("tool-%d", j), InputSchema: schema})
		}
		cat.Servers = append(cat.Servers, s)
	}
	var b bytes.Buffer
	Write(&b, cat, func(err error) string { return err.Error() })
	out := b.String()
	if b.Len() > 3000 {
		t.Errorf("guide of 40 servers is %d bytes:\n%s", b.Len(), out)
	}
	for _, want := range []string{
		"  … and 32 more: `mcp list` shows them all\n",
		"      mcp call server-00-with-a-long-name.tool-0 n=1 the-path=text\n",
		`      mcp run -e 'return await server_00_with_a_long_name["tool-0"]({n: 1, "the-path": "text"})'` + "\n",
		"      mcp search tool 0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("guide lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("line of %d runes: %q", n, line)
		}
	}
}
