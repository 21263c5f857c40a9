package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/safefile"
	"github.com/mcpsh/mcp/manifests"
)

// Cache keeps each server's tool list on disk, as the server listed it (raw
// schemas included, unfiltered), so that search and list can answer without
// connecting once a server has been seen. Entries are keyed by the
// endpoint's definition and by what the connection declared to the server
// (ListKey), so two recipes that use one id for different servers never
// share an entry, and neither do two connections that a server may offer
// other tools: a list obtained with URL elicitation declared is never
// another connection's. Nothing of ours that is secret is stored: the key
// is a hash.
type Cache struct{ dir string }

// cacheFormat is the format of the entries Store writes. An entry of
// another format is as good as none, and the next list replaces it: it was
// written before the model knew fields that its tools may have (a tool's
// taskSupport), or (format 2) before a server's instructions and tools
// went without the recipe's secrets, or (format 3) before an entry said
// what its connection had declared, or (format 4) before the tools a
// connection takes were bounded (descriptions and titles cut, absurd
// schemas and tools past a server's first 10,000 left out).
const cacheFormat = 5

// CacheEntry is one server's tool list.
type CacheEntry struct {
	// Format is set by Store.
	Format  int       `json:"format,omitempty"`
	Server  string    `json:"server"`
	Fetched time.Time `json:"fetched"`
	Tools   []Tool    `json:"tools"`
	// Instructions are what the server said about how to use it.
	Instructions string `json:"instructions,omitempty"`
	// Protocol is the MCP revision the server was listed with.
	Protocol string `json:"protocol,omitempty"`
	// Capabilities are what the connection declared to the server when it
	// listed (JSON): a server may list other tools for other declarations.
	Capabilities string `json:"capabilities"`
	// TTL, when set, is how long the server said its list may be reused
	// (ttlMs of a 2026-07-28 tools/list), and Scope its cacheScope.
	TTL   *time.Duration `json:"ttl,omitempty"`
	Scope string         `json:"scope,omitempty"`
}

// DefaultCacheDir is mcp/catalog under the user's cache directory.
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "mcp", "catalog"), nil
}

// OpenCache returns a cache in dir, creating it 0700.
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Cache{dir: dir}, nil
}

// Dir is where the cache keeps its files.
func (c *Cache) Dir() string { return c.dir }

// EndpointKey identifies an endpoint definition, expanded or not.
func EndpointKey(ep manifests.Endpoint) string {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		ID  string
		Dir string
		EP  manifests.Endpoint
	}{manifests.CanonicalID(ep.ID), ep.Dir, ep})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// ListKey is the key of the tool list of an endpoint (EndpointKey) as a
// connection that declares capabilities sees it.
func ListKey(endpoint, capabilities string) string {
	h := sha256.Sum256([]byte(endpoint + "\x00" + capabilities))
	return hex.EncodeToString(h[:])[:32]
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key+".json") }

// maxCacheEntry bounds one entry of the cache: four of the largest
// messages a server may send.
const maxCacheEntry = 256 << 20

// Load returns the entry for an endpoint key, or nil when there is none or
// it cannot be read: a damaged entry is as good as none, and so is one
// that is not the user's own private file (internal/safefile), which is
// not read at all.
func (c *Cache) Load(key string) *CacheEntry {
	data, err := safefile.Options{NoSymlink: true, Own: true, Limit: maxCacheEntry}.Read(c.path(key))
	if err != nil {
		return nil
	}
	var e CacheEntry
	if json.Unmarshal(data, &e) != nil || e.Format != cacheFormat {
		return nil
	}
	return &e
}

// Store writes an entry atomically, 0600.
func (c *Cache) Store(key string, e *CacheEntry) error {
	stored := *e
	stored.Format = cacheFormat
	data, err := json.Marshal(&stored)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(c.path(key), data); err != nil {
		return fmt.Errorf("writing catalog cache: %w", err)
	}
	return nil
}

// Remove forgets an entry.
func (c *Cache) Remove(key string) error {
	if err := os.Remove(c.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
