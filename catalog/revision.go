package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsh/mcp/internal/atomicfile"
	"github.com/mcpsh/mcp/internal/safefile"
	"github.com/mcpsh/mcp/manifests"
)

// The cache also remembers, beside an endpoint's tool list, the protocol
// revision the endpoint speaks when it is not the one tried first (a
// server that refused the initialize handshake), in KEY.revision: the
// endpoint as it is connected to (expanded), so that a change of its
// definition starts over.

func (c *Cache) revisionPath(ep manifests.Endpoint) string {
	return filepath.Join(c.dir, EndpointKey(ep)+".revision")
}

// Recall is the revision remembered for an endpoint, "" when none. A
// damaged file is as good as none, and one that is not the user's own
// (internal/safefile) is not read.
func (c *Cache) Recall(ep manifests.Endpoint) string {
	data, err := safefile.Options{NoSymlink: true, Own: true, Limit: 64}.Read(c.revisionPath(ep))
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(data))
	for _, known := range manifests.ProtocolVersions {
		if rev == known {
			return rev
		}
	}
	return ""
}

// Remember records the revision an endpoint speaks, atomically and 0600;
// "" forgets it.
func (c *Cache) Remember(ep manifests.Endpoint, revision string) error {
	if revision == "" {
		if err := os.Remove(c.revisionPath(ep)); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if err := atomicfile.Write(c.revisionPath(ep), []byte(revision+"\n")); err != nil {
		return fmt.Errorf("remembering the protocol revision: %w", err)
	}
	return nil
}
