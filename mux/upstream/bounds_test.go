package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/manifests"
)

// boundsServerEnv makes the test binary an mcp-go stdio server whose
// metadata is too large: a long description and title, a huge schema,
// and as many more tools as the variable says.
const boundsServerEnv = "MCPSH_BOUNDS_SERVER"

func init() {
	n, err := strconv.Atoi(os.Getenv(boundsServerEnv))
	if err != nil {
		return
	}
	s := server.NewMCPServer("bounds", "1.0.0", server.WithToolCapabilities(true))
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	long := mcp.NewTool("a_long", mcp.WithDescription(strings.Repeat("describe ", 1<<17)), mcp.WithTitleAnnotation(strings.Repeat("T", 5000)))
	long.Title = strings.Repeat("t", 5000)
	s.AddTool(long, ok)
	big := map[string]any{}
	for i := range 20000 {
		big[fmt.Sprintf("p%05d", i)] = map[string]any{"type": "string"}
	}
	s.AddTool(mcp.NewToolWithRawSchema("a_schema", "", mustJSON(map[string]any{"type": "object", "properties": big})), ok)
	s.AddTool(mcp.Tool{Name: "a_output", InputSchema: mcp.ToolInputSchema{Type: "object"}, RawOutputSchema: mustJSON(map[string]any{"type": "object", "properties": big})}, ok)
	s.AddTool(mcp.NewTool("a_small"), ok)
	for i := range n {
		s.AddTool(mcp.NewTool(fmt.Sprintf("t%06d", i)), ok)
	}
	if err := server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// What a connection takes from tools/list is bounded: descriptions and
// titles are cut, a tool with an absurd schema is not offered (with one
// warning naming it), and a server's tools beyond maxTools are left out
// with one warning.
func TestListTools_bounded(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ep := manifests.Endpoint{ID: "bounds", Command: exe,
		Env: map[string]string{boundsServerEnv: "10050", "GORACE": strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")}}
	var warns journal[string]
	u := connect(t, ep, Options{OnWarning: warns.add})
	tools := listTools(t, u)
	if len(tools) != 10000 {
		t.Errorf("%d tools taken, want 10000", len(tools))
	}
	long, ok := tools["a_long"]
	if !ok {
		t.Fatal("a_long is not listed")
	}
	if n := utf8.RuneCountInString(long.Description); n > 8<<10 || !strings.HasSuffix(long.Description, "…") {
		t.Errorf("the description has %d runes, want at most %d, cut with …", n, 8<<10)
	}
	if n := utf8.RuneCountInString(long.Title); n > 256 {
		t.Errorf("the title has %d runes, want at most 256", n)
	}
	if len(long.Raw) > 20<<10 {
		t.Errorf("the tool's JSON is %d bytes, want what it says cut as its fields are", len(long.Raw))
	}
	var raw struct {
		Description string `json:"description"`
		Title       string `json:"title"`
		Annotations struct {
			Title string `json:"title"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(long.Raw, &raw); err != nil || raw.Description != long.Description || raw.Title != long.Title || utf8.RuneCountInString(raw.Annotations.Title) > 256 {
		t.Errorf("the tool's JSON does not hold the cut fields (%v): %.300s", err, long.Raw)
	}
	for _, name := range []string{"a_schema", "a_output"} {
		if _, ok := tools[name]; ok {
			t.Errorf("%s, whose schema is %d KiB, is offered", name, 20000*27>>10)
		}
	}
	if _, ok := tools["a_small"]; !ok {
		t.Error("a_small is not listed")
	}
	// Listing again warns no more.
	listTools(t, u)
	got := strings.Join(warns.all(), "\n")
	for _, want := range []string{
		"bounds.a_schema is not offered: its input schema is 527 KiB of JSON, more than 256 KiB",
		"bounds.a_output is not offered: its output schema is 527 KiB of JSON, more than 256 KiB",
		"bounds: the server lists more than 10000 tools; only the first 10000 are offered",
	} {
		if strings.Count(got, want) != 1 {
			t.Errorf("the warnings should hold %q once:\n%s", want, got)
		}
	}
	if n := len(warns.all()); n != 3 {
		t.Errorf("%d warnings, want 3:\n%s", n, got)
	}
}
