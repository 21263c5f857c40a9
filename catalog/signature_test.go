package catalog_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// A signature shows every branch of a union at every depth, the
// properties of an object, and a const as its value, on the shapes of
// real servers' tools (testenv.Shapes).
func TestSignature_unionsAndObjects(t *testing.T) {
	t.Parallel()
	tests := []struct{ tool, want string }{
		// mongodb: not only $vectorSearch stages.
		{"aggregate", `aggregate(collection: string, database: string, pipeline: ({$vectorSearch}|object)[])`},
		// github: the {path, line, body} form too.
		{"create_pull_request_review", `create_pull_request_review(event: "APPROVE"|"REQUEST_CHANGES"|"COMMENT", owner: string, repo: string, comments?: ({body, path, position}|{body, line, path})[])`},
		// desktop-commander: the delete operation too; a branch of a
		// union shows the properties it requires.
		{"write_pdf", `write_pdf(content: string|({pageIndex, type, …}|{pageIndexes, type})[], path: string)`},
		// git: an object's properties.
		{"git_commit", `git_commit(message: string, repo_path: string, author?: {email, name})`},
		// n8n: four values of seven in one line.
		{"get_node", `get_node(nodeType: string, mode?: "info"|"docs"|"search_properties"|"versions"|… = "info")`},
	}
	for _, tt := range tests {
		got := catalog.Tool{Name: tt.tool, InputSchema: json.RawMessage(testenv.Shapes[tt.tool])}.Signature()
		if got != tt.want {
			t.Errorf("signature\n got %s\nwant %s", got, tt.want)
		}
	}
	// Enum literals from several branches go together, once, where the
	// first of those branches is, null last.
	nullFirst := catalog.Tool{Name: "t", InputSchema: json.RawMessage(`{"properties":{"x":{"anyOf":[{"const":null},{"type":"integer"},{"enum":["a","b"]},{"const":"c"}]}}}`)}
	if got, want := nullFirst.Signature(), `t(x?: "a"|"b"|"c"|integer|null)`; got != want {
		t.Errorf("signature %q, want %q", got, want)
	}
	zero := catalog.Tool{Name: "t", InputSchema: json.RawMessage(`{"properties":{"a":{"type":"string","default":""},"b":{"type":"boolean","default":false},"c":{"type":"integer","default":0}}}`)}
	if got, want := zero.Signature(), "t(a?: string, b?: boolean, c?: integer = 0)"; got != want {
		t.Errorf("signature %s, want %s (\"\" and false go without saying)", got, want)
	}
}

// The detailed view (mcp list SERVER.TOOL) shows every enum value, the
// properties of each object with their types, one level deeper for each
// level of the schema, each branch of a union under a line of its own, a
// description of several lines indented under its parameter, and the
// description written beside a $ref, not the one it refers to.
func TestWriteText_detail(t *testing.T) {
	t.Parallel()
	tests := []struct{ tool, want string }{
		{"aggregate", `s.aggregate(collection: string, database: string, pipeline: ({$vectorSearch}|object)[])
  collection: string  Collection name
  database: string  Database name
  pipeline: ({$vectorSearch}|object)[]  An array of aggregation stages to execute.

      If the user has asked for a vector search, ` + "`" + `$vectorSearch` + "`" + ` **MUST** be the first stage
      of the pipeline.
    {$vectorSearch}:
      $vectorSearch: {index, path, limit?}
        index: string
        path: string
        limit?: integer = 10
`},
		{"create_pull_request_review", `s.create_pull_request_review(event: "APPROVE"|"REQUEST_CHANGES"|"COMMENT", owner: string, repo: string, comments?: ({body, path, position}|{body, line, path})[])
  event: "APPROVE"|"REQUEST_CHANGES"|"COMMENT"
  owner: string
  repo: string
  comments?: ({body, path, position}|{body, line, path})[]  Comments to post as part of the review (specify either position or line, not both)
    {body, path, position}:
      body: string
      path: string
      position: number
    {body, line, path}:
      body: string
      line: number
      path: string
`},
		{"write_pdf", `s.write_pdf(content: string|({pageIndex, type, …}|{pageIndexes, type})[], path: string)
  content: string|({pageIndex, type, …}|{pageIndexes, type})[]
    {pageIndex, type, markdown?}:
      pageIndex: number
      type: "insert"
      markdown?: string
    {pageIndexes, type}:
      pageIndexes: number[]
      type: "delete"
  path: string
`},
		{"git_commit", `s.git_commit(message: string, repo_path: string, author?: {email, name})
  message: string
  repo_path: string
  author?: {email, name}
    email: string  Author email
    name: string  Author name
`},
		{"get_node", `s.get_node(nodeType: string, mode?: "info"|"docs"|"search_properties"|"versions"|… = "info")
  nodeType: string
  mode?: "info"|"docs"|"search_properties"|"versions"|"compare"|"breaking"|"migrations" = "info"  Operation mode
`},
		{"sequentialthinking", `s.sequentialthinking(nextThoughtNeeded: boolean, thought: string, thoughtNumber: integer, totalThoughts: integer, isRevision?: boolean, revisesThought?: integer)
  nextThoughtNeeded: boolean  Whether another thought step is needed
  thought: string
  thoughtNumber: integer
  totalThoughts: integer
  isRevision?: boolean  Whether this revises previous thinking
  revisesThought?: integer
`},
	}
	for _, tt := range tests {
		var b strings.Builder
		catalog.Tool{Server: "s", Name: tt.tool, InputSchema: json.RawMessage(testenv.Shapes[tt.tool])}.WriteText(&b)
		if b.String() != tt.want {
			t.Errorf("%s:\n got:\n%s\nwant:\n%s", tt.tool, b.String(), tt.want)
		}
	}
}

// listBytes are the bytes of mcp list SERVER for the pinned tool lists of
// bench/data, before unions, objects and consts were shown: the one-line
// signatures stay within a tenth of them.
var listBytes = map[string]int{
	"chart": 8894, "chrome-devtools": 6430, "context7": 347, "desktop-commander": 3948, "eslint": 166,
	"everything": 1781, "filesystem": 2570, "github": 4451, "kubernetes": 6130, "mastra": 1272,
	"memory": 1068, "mongodb": 4900, "n8n": 2277, "notion": 3229, "playwright": 3886, "sequential-thinking": 359,
}

func TestLine_bytesOfRealServers(t *testing.T) {
	t.Parallel()
	lists, err := filepath.Glob(filepath.Join("..", "bench", "data", "*", "tools.json"))
	if err != nil || len(lists) != len(listBytes) {
		t.Fatalf("%d tool lists (%v), want %d", len(lists), err, len(listBytes))
	}
	for _, path := range lists {
		id := filepath.Base(filepath.Dir(path))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var l struct{ Tools []catalog.Tool }
		if err := json.Unmarshal(data, &l); err != nil || len(l.Tools) == 0 {
			t.Fatalf("%s: %d tools, %v", path, len(l.Tools), err)
		}
		n := 0
		for _, tl := range l.Tools {
			tl.Server = id
			n += len(tl.Line()) + 1
		}
		if before := listBytes[id]; before == 0 || n*10 > before*11 {
			t.Errorf("mcp list %s: %d bytes, %d before: more than a tenth more", id, n, before)
		}
	}
}
