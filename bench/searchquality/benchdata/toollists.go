package benchdata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/search"
)

// ToolListFile is the name of a pinned tool list in its server's directory:
// the server's tools/list result, as {"tools": [...]}, pages joined.
const ToolListFile = "tools.json"

// toolList is the part of a pinned tool list that is read.
type toolList struct {
	Tools []struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

// LoadToolLists reads the pinned tool lists under dir: each directory of dir
// that holds a ToolListFile is one server, its id the directory's name, with
// no title or description (mcp indexes a recipe's servers that way).
// Servers come in name order. A directory name that is not a valid server
// id is an error, and so are a tool without a name and a name given twice.
func LoadToolLists(dir string) (*Catalog, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	c := &Catalog{IDs: map[string]string{}}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name(), ToolListFile)
		if !e.IsDir() {
			continue
		}
		data, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		id := e.Name()
		if ServerIDs(map[string]bool{id: true})[id] != id {
			return nil, fmt.Errorf("%s: %q is not a server id", path, id)
		}
		var l toolList
		if err := json.Unmarshal(data, &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s := &Server{ID: id, Info: search.ServerInfo{}}
		for _, t := range l.Tools {
			tool := catalog.Tool{Server: id, Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema}
			if _, dup := c.IDs[tool.ID()]; dup || t.Name == "" {
				return nil, fmt.Errorf("%s: tool name %q empty or given twice", path, t.Name)
			}
			c.IDs[tool.ID()] = tool.ID()
			s.Tools = append(s.Tools, tool)
		}
		c.Servers = append(c.Servers, s)
	}
	if len(c.Servers) == 0 {
		return nil, fmt.Errorf("%s: no %s in any directory", dir, ToolListFile)
	}
	return c, nil
}
