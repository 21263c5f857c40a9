// Package benchdata reads the benchmark catalog and query files that the
// search benchmarks share, and scales a catalog up for load tests.
//
// A catalog file holds one tool per line:
//
//	{"id": "server.tool", "server": "...", "name": "...", "description": "...",
//	 "inputSchema": {...}, "server_title": "...", "server_description": "..."}
//
// A query file holds one query per line: {"query": "...", "gold_groups":
// [["server.tool", ...], ...]}, where each group is one tool the query needs
// and any member of the group will do.
package benchdata

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"sort"
	"strings"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/search"
)

// Server is one server of a catalog file with its tools.
type Server struct {
	ID    string // a valid server id (see ServerID)
	Info  search.ServerInfo
	Tools []catalog.Tool
}

// Catalog is a catalog file as servers, in file order, with a map from each
// tool id of the file to the tool id the servers use.
type Catalog struct {
	Servers []*Server
	IDs     map[string]string // file id → server.tool with a valid server id
}

// Query is one labelled query.
type Query struct {
	Query      string     `json:"query"`
	GoldGroups [][]string `json:"gold_groups"`
}

type record struct {
	ID                string          `json:"id"`
	Server            string          `json:"server"`
	Name              string          `json:"name"`
	Title             string          `json:"title"`
	Description       string          `json:"description"`
	InputSchema       json.RawMessage `json:"inputSchema"`
	ServerTitle       string          `json:"server_title"`
	ServerDescription string          `json:"server_description"`
}

// LoadCatalog reads a catalog file.
func LoadCatalog(path string) (*Catalog, error) {
	var recs []record
	if err := readLines(path, func(line []byte) error {
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if r.Server == "" || r.Name == "" {
			return fmt.Errorf("record without server or name")
		}
		recs = append(recs, r)
		return nil
	}); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, r := range recs {
		names[r.Server] = true
	}
	ids := ServerIDs(names)
	c := &Catalog{IDs: map[string]string{}}
	byID := map[string]*Server{}
	for _, r := range recs {
		id := ids[r.Server]
		s := byID[id]
		if s == nil {
			s = &Server{ID: id, Info: search.ServerInfo{Title: r.ServerTitle, Description: r.ServerDescription}}
			byID[id] = s
			c.Servers = append(c.Servers, s)
		}
		t := catalog.Tool{Server: id, Name: r.Name, Title: r.Title, Description: r.Description, InputSchema: r.InputSchema}
		s.Tools = append(s.Tools, t)
		fileID := r.ID
		if fileID == "" {
			fileID = r.Server + "." + r.Name
		}
		c.IDs[fileID] = t.ID()
	}
	return c, nil
}

// Tools returns every tool of the catalog.
func (c *Catalog) Tools() []catalog.Tool {
	var out []catalog.Tool
	for _, s := range c.Servers {
		out = append(out, s.Tools...)
	}
	return out
}

// ServerIDs maps server names to valid server ids ([A-Za-z0-9_-]{1,64}):
// a valid name stays as it is; any other character becomes "_"; and when two
// names would then be the same server (ids compare with "-" and "_" equal),
// each of the names that changed gets a suffix from a hash of the name. The
// mapping depends only on the set of names.
func ServerIDs(names map[string]bool) map[string]string {
	out := map[string]string{}
	taken := map[string]int{}
	for n := range names {
		id := sanitize(n)
		out[n] = id
		taken[canonical(id)]++
	}
	for n, id := range out {
		if id != n && taken[canonical(id)] > 1 {
			h := fnv.New32a()
			h.Write([]byte(n))
			suffix := fmt.Sprintf("_%08x", h.Sum32())
			if len(id)+len(suffix) > 64 {
				id = id[:64-len(suffix)]
			}
			out[n] = id + suffix
		}
	}
	return out
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() == 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

func canonical(id string) string { return strings.ReplaceAll(id, "-", "_") }

// LoadQueries reads a query file, rewriting gold ids with c.IDs. A gold id
// the catalog does not hold is an error: the labels would be wrong.
func LoadQueries(path string, c *Catalog) ([]Query, error) {
	var qs []Query
	err := readLines(path, func(line []byte) error {
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		for _, g := range q.GoldGroups {
			for i, id := range g {
				mapped, ok := c.IDs[id]
				if !ok {
					return fmt.Errorf("gold tool %q is not in the catalog", id)
				}
				g[i] = mapped
			}
		}
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

func readLines(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if err := fn([]byte(line)); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}

// Scale returns n servers' worth of tools made from c by deterministic
// variation: copy k of every server is a new server (its id with a "-k"
// suffix) whose tools keep their names and get a description with a few
// words taken from other tools of the catalog, so that copies are not
// identical documents. Copy 0 is the catalog itself. The result has exactly
// n tools (the last copy may be partial).
func (c *Catalog) Scale(n int) []*Server {
	base := c.Tools()
	if len(base) == 0 || n <= 0 {
		return nil
	}
	words := vocabulary(base)
	var out []*Server
	count := 0
	for k := 0; count < n; k++ {
		for _, s := range c.Servers {
			if count >= n {
				break
			}
			id := s.ID
			if k > 0 {
				suffix := fmt.Sprintf("-%d", k)
				if len(id)+len(suffix) > 64 {
					id = id[:64-len(suffix)]
				}
				id += suffix
			}
			ns := &Server{ID: id, Info: s.Info}
			for i, t := range s.Tools {
				if count >= n {
					break
				}
				t.Server = id
				if k > 0 {
					t.Description = vary(t.Description, words, k*7919+i*104729)
				}
				ns.Tools = append(ns.Tools, t)
				count++
			}
			out = append(out, ns)
		}
	}
	return out
}

// vocabulary returns the distinct words of the tool descriptions, sorted.
func vocabulary(tools []catalog.Tool) []string {
	set := map[string]bool{}
	for _, t := range tools {
		for _, w := range strings.Fields(t.Description) {
			w = strings.Trim(w, ".,;:()[]{}\"'`")
			if len(w) > 2 {
				set[strings.ToLower(w)] = true
			}
		}
	}
	words := make([]string, 0, len(set))
	for w := range set {
		words = append(words, w)
	}
	sort.Strings(words)
	return words
}

func vary(desc string, words []string, seed int) string {
	if len(words) == 0 {
		return desc
	}
	x := uint32(seed)*2654435761 + 1
	extra := make([]string, 4)
	for i := range extra {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		extra[i] = words[int(x%uint32(len(words)))]
	}
	return desc + " " + strings.Join(extra, " ")
}
