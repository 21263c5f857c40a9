// Package search ranks the tools of a session's catalog for a text query.
//
// An Index holds exactly the tools its caller gives it, server by server,
// and nothing else: the caller feeds it the authorized surface only. It is a
// bleve index, in memory (OpenMem) or persisted in a directory (Open,
// OpenReadOnly), so that a short-lived CLI process can answer a query without
// connecting to any server.
//
// # Who opens the directory
//
// A persisted index is one bbolt file guarded by a file lock. One process at
// a time may hold it open for writing (Open), and while it does, nobody else
// can open it at all, not even for reading. Readers (OpenReadOnly) share the
// lock with each other and exclude writers. Neither kind of opener waits
// longer than LockWait: past it, Open and OpenReadOnly fail with ErrLocked
// instead of hanging. So a writer (the process that refreshes the catalog)
// opens, replaces what changed and closes at once; a CLI process opens
// read-only, runs its query and closes. Both retry or fall back on
// ErrLocked.
package search

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/mcpsh/mcp/catalog"
)

// formatVersion names the analysis and document format. Change it whenever
// the tokenizer, the fields or what goes into them change: an index built
// with another version is rebuilt empty by Open.
const formatVersion = "mcp-search-1"

// LockWait bounds how long Open and OpenReadOnly wait for another process
// that holds the index directory.
var LockWait = 500 * time.Millisecond

// batchSize is how many documents go into one bleve batch: bigger batches
// index no faster and cost much more memory.
const batchSize = 1000

// Errors of Open and OpenReadOnly.
var (
	// ErrLocked means another process holds the index directory.
	ErrLocked = errors.New("search: index is in use by another process")
	// ErrStale means a read-only open found an index that is missing,
	// unreadable or of another format: a writer must rebuild it.
	ErrStale = errors.New("search: index must be rebuilt")
)

// Internal (non-document) keys of a bleve index.
var (
	keyVersion = []byte("mcp.version")
	keyServers = []byte("mcp.servers")
)

// Index is a search index over tools. Its methods are safe for concurrent
// use; writes (Replace, RemoveServer) are serialized.
type Index struct {
	bi       bleve.Index
	readOnly bool
	rebuilt  bool
	ranking  Ranking
	fields   map[string]bool        // the fields ranking searches: ranking.fields()
	bridge   [2]map[string][]string // ranking.Bridge's things and actions, by word

	mu      sync.Mutex            // serializes writes; guards the fields below
	servers map[string]serverMeta // what was indexed for each server
	pending *bleve.Batch          // changes not yet applied to bi
	touched map[string]bool       // servers with changes in pending
}

// serverMeta is what the index records about one server besides its
// documents.
type serverMeta struct {
	Fingerprint string     `json:"fp"`
	Stats       fieldStats `json:"stats"`
}

// OpenMem returns an empty index in memory that ranks with DefaultRanking.
func OpenMem() (*Index, error) { return OpenMemWith(DefaultRanking()) }

// OpenMemWith returns an empty index in memory that ranks with r. Indexes
// in a directory always rank with DefaultRanking, which their format
// (formatVersion) records.
func OpenMemWith(r Ranking) (*Index, error) {
	m, err := newMapping(r)
	if err != nil {
		return nil, err
	}
	// scorch, the index type of Open, not bleve.NewMemOnly's.
	bi, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, err
	}
	return newIndex(bi, false, false, r)
}

// Open opens the index persisted in dir for writing, creating it if dir
// holds none. An index that cannot be read, or that another version of this
// package built, is replaced by an empty one and Rebuilt reports true: the
// caller must feed it every server again. Open fails with ErrLocked when
// another process holds dir (see the package documentation).
//
// Rebuilding removes only what bleve keeps in dir (index_meta.json and
// store/); other files in dir are left alone.
func Open(dir string) (*Index, error) {
	bi, err := bleve.OpenUsing(dir, lockConfig(false))
	if err == nil {
		if v, _ := bi.GetInternal(keyVersion); string(v) == formatVersion {
			return newIndex(bi, false, false, DefaultRanking())
		}
		_ = bi.Close()
	} else if isLocked(err) {
		return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
	}
	existed := err == nil || !errors.Is(err, bleve.ErrorIndexPathDoesNotExist)
	if existed {
		for _, name := range []string{"index_meta.json", "index_meta.json_temp", "store"} {
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("search: rebuilding index: %w", err)
			}
		}
	}
	m, err := newMapping(DefaultRanking())
	if err != nil {
		return nil, err
	}
	bi, err = bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		if isLocked(err) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("search: creating index: %w", err)
	}
	if err := bi.SetInternal(keyVersion, []byte(formatVersion)); err != nil {
		_ = bi.Close()
		return nil, err
	}
	return newIndex(bi, false, existed, DefaultRanking())
}

// OpenReadOnly opens the index persisted in dir for searching only, sharing
// it with other readers. It never creates or repairs anything: a missing,
// unreadable or outdated index fails with ErrStale, and one held by a
// writer with ErrLocked.
func OpenReadOnly(dir string) (*Index, error) {
	bi, err := bleve.OpenUsing(dir, lockConfig(true))
	if err != nil {
		if isLocked(err) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("%w: %v", ErrStale, err)
	}
	if v, _ := bi.GetInternal(keyVersion); string(v) != formatVersion {
		_ = bi.Close()
		return nil, fmt.Errorf("%w: %s was built by another version", ErrStale, dir)
	}
	return newIndex(bi, true, false, DefaultRanking())
}

func lockConfig(readOnly bool) map[string]interface{} {
	c := map[string]interface{}{"bolt_timeout": LockWait.String()}
	if readOnly {
		c["read_only"] = true
	}
	return c
}

func isLocked(err error) bool { return errors.Is(err, bolterrors.ErrTimeout) }

func newIndex(bi bleve.Index, readOnly, rebuilt bool, r Ranking) (*Index, error) {
	ix := &Index{
		bi: bi, readOnly: readOnly, rebuilt: rebuilt, ranking: r, fields: r.fields(),
		bridge:  [2]map[string][]string{bridgeMap(r.Bridge.Things), bridgeMap(r.Bridge.Actions)},
		servers: map[string]serverMeta{}, pending: bi.NewBatch(), touched: map[string]bool{},
	}
	if raw, err := bi.GetInternal(keyServers); err != nil {
		_ = bi.Close()
		return nil, err
	} else if len(raw) > 0 {
		if err := json.Unmarshal(raw, &ix.servers); err != nil {
			_ = bi.Close()
			return nil, fmt.Errorf("%w: server list: %v", ErrStale, err)
		}
	}
	return ix, nil
}

// Ranking returns the choices the index ranks with.
func (ix *Index) Ranking() Ranking {
	r := ix.ranking
	r.Clauses = append([]Clause(nil), r.Clauses...)
	return r
}

// Rebuilt reports whether Open replaced an unreadable or outdated index with
// an empty one, so that the caller must feed it every server again.
func (ix *Index) Rebuilt() bool { return ix.rebuilt }

// Close applies pending changes and releases the index and, for a persisted
// index, its lock. Writes are durable once Close returns.
func (ix *Index) Close() error {
	ix.mu.Lock()
	err := ix.flush()
	ix.mu.Unlock()
	if cerr := ix.bi.Close(); err == nil {
		err = cerr
	}
	return err
}

// totals sums the field statistics of every server.
func (ix *Index) totals() fieldStats {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	t := fieldStats{Len: map[string]int{}}
	for _, m := range ix.servers {
		t.Docs += m.Stats.Docs
		t.Servers += m.Stats.Servers
		t.add(m.Stats.Len)
	}
	return t
}

// Servers returns each indexed server with the fingerprint of what it was
// given (see Fingerprint), so that a caller can skip unchanged servers.
func (ix *Index) Servers() map[string]string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	out := make(map[string]string, len(ix.servers))
	for k, v := range ix.servers {
		out[k] = v.Fingerprint
	}
	return out
}

var serverIDRule = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// maxToolName is the longest tool name the policy allows.
const maxToolName = 128

// Fingerprint identifies what Replace indexes for one server: the server's
// info and each tool's name, title, description and input schema, in any
// order. Equal fingerprints mean Replace would change nothing.
func Fingerprint(info ServerInfo, tools []catalog.Tool) string {
	type entry struct {
		Name, Title, Description string
		InputSchema              json.RawMessage `json:",omitempty"`
	}
	es := make([]entry, len(tools))
	for i, t := range tools {
		es[i] = entry{t.Name, t.Title, t.Description, nil}
		if len(t.InputSchema) > 0 && json.Valid(t.InputSchema) {
			es[i].InputSchema = t.InputSchema
		}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	b, _ := json.Marshal(struct {
		Info  ServerInfo
		Tools []entry
	}{info, es})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// Replace makes tools the whole indexed tool list of server, replacing what
// was indexed for it before; info is optional. Every tool must belong to
// server. Other servers are untouched. Changes are applied in batches of
// about a thousand documents, at the latest by the next Search or Close.
func (ix *Index) Replace(server string, info ServerInfo, tools []catalog.Tool) error {
	if err := ix.checkWrite(server); err != nil {
		return err
	}
	keep := make(map[string]bool, len(tools))
	for _, t := range tools {
		if t.Server != server {
			return fmt.Errorf("search: tool %q belongs to server %q, not %q", t.Name, t.Server, server)
		}
		if t.Name == "" || len(t.Name) > maxToolName || strings.IndexFunc(t.Name, unicode.IsSpace) >= 0 {
			return fmt.Errorf("search: invalid tool name %q of server %q", t.Name, server)
		}
		keep[t.ID()] = true
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old, err := ix.begin(server)
	if err != nil {
		return err
	}
	for _, id := range old {
		if !keep[id] && id != server {
			if err := ix.del(id); err != nil {
				return err
			}
		}
	}
	m := ix.bi.Mapping()
	stats := fieldStats{Len: map[string]int{}}
	lens := map[string]int{}
	sib := ""
	if ix.fields[FieldSib] {
		sib = siblingText(tools)
	}
	for _, t := range tools {
		doc := toolDoc(t, info, sib, ix.fields)
		stats.add(measure(m, doc, lens))
		stats.Docs++
		if err := ix.index(t.ID(), doc); err != nil {
			return err
		}
	}
	if len(tools) > 0 && ix.fields[fieldSDoc] {
		doc := serverDoc(server, info, tools, ix.ranking.ServerDocDesc, ix.fields)
		stats.add(measure(m, doc, lens))
		stats.Servers++
		if err := ix.index(server, doc); err != nil {
			return err
		}
	} else if err := ix.del(server); err != nil {
		return err
	}
	ix.servers[server] = serverMeta{Fingerprint(info, tools), stats}
	return nil
}

// RemoveServer removes server and all its tools from the index.
func (ix *Index) RemoveServer(server string) error {
	if err := ix.checkWrite(server); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	old, err := ix.begin(server)
	if err != nil {
		return err
	}
	for _, id := range old {
		if err := ix.del(id); err != nil {
			return err
		}
	}
	return nil
}

func (ix *Index) checkWrite(server string) error {
	if ix.readOnly {
		return errors.New("search: index is open read-only")
	}
	if !serverIDRule.MatchString(server) {
		return fmt.Errorf("search: invalid server id %q", server)
	}
	return nil
}

// serverDocs returns the ids of every document of server.
func (ix *Index) serverDocs(server string) ([]string, error) {
	n, err := ix.bi.DocCount()
	if err != nil || n == 0 {
		return nil, err
	}
	q := query.NewTermQuery(server)
	q.SetField(fieldServer)
	req := bleve.NewSearchRequestOptions(q, int(n), 0, false)
	req.Score = "none"
	res, err := ix.bi.Search(req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// Writes are buffered: Replace and RemoveServer add their changes to a
// pending batch, applied when it holds batchSize changes, before a search
// and on Close. Every applied batch also records the server list as it is
// at that moment, without the server being written if its changes are
// split across batches, so a write cut short leaves that server without a
// fingerprint and the caller feeds it again.

// begin starts changing server (with ix.mu held): it returns the ids of the
// server's applied documents and forgets its fingerprint.
func (ix *Index) begin(server string) ([]string, error) {
	if ix.touched[server] {
		if err := ix.flush(); err != nil {
			return nil, err
		}
	}
	ix.touched[server] = true
	delete(ix.servers, server)
	return ix.serverDocs(server)
}

func (ix *Index) del(id string) error {
	ix.pending.Delete(id)
	return ix.flushIfFull()
}

func (ix *Index) index(id string, doc map[string]interface{}) error {
	if err := ix.pending.Index(id, doc); err != nil {
		return err
	}
	return ix.flushIfFull()
}

func (ix *Index) flushIfFull() error {
	if ix.pending.Size() < batchSize {
		return nil
	}
	return ix.flush()
}

// flush applies the pending batch (with ix.mu held).
func (ix *Index) flush() error {
	if ix.readOnly || (ix.pending.Size() == 0 && len(ix.touched) == 0) {
		return nil
	}
	b, _ := json.Marshal(ix.servers)
	ix.pending.SetInternal(keyServers, b)
	err := ix.bi.Batch(ix.pending)
	if err != nil {
		for s := range ix.touched {
			delete(ix.servers, s)
		}
	}
	// A new batch, not Reset: bleve may still be reading the old one's map
	// in a goroutine when Batch returns.
	ix.pending = ix.bi.NewBatch()
	clear(ix.touched)
	return err
}
