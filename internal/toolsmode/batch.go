package toolsmode

import (
	"encoding/json"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/mcpsh/mcp/internal/jsondepth"
)

// batchesGone is the first revision without JSON-RPC batches.
const batchesGone = "2025-06-18"

// batchGuard stands in front of the client's input and refuses a batch
// once a revision without batches is negotiated. The SDK's stdio
// connection does that itself, but learns the revision through a method
// of its own that the task relay's connection, wrapping it, cannot pass on.
// The refusal is what the SDK's is: the input fails, ending the connection.
type batchGuard struct {
	r       io.Reader
	version atomic.Pointer[string] // set once batches are refused
	err     error
	scan    jsondepth.Scanner
}

// negotiated records the revision an initialize result names.
func (g *batchGuard) negotiated(result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) == nil && r.ProtocolVersion >= batchesGone {
		g.version.Store(&r.ProtocolVersion)
	}
}

// Read passes the input on up to a refused batch, and then fails.
func (g *batchGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for i := range n {
		if !g.batchAt(p[i]) {
			continue
		}
		g.err = fmt.Errorf("JSON-RPC batching is not supported in %s and later (revision %s)", batchesGone, *g.version.Load())
		if i == 0 {
			return 0, g.err
		}
		return i, nil
	}
	return n, err
}

// batchAt reads one byte and says whether it begins a batch, a top-level
// array, that is refused.
func (g *batchGuard) batchAt(b byte) bool {
	top := g.scan.Depth() == 0
	return g.scan.Step(b) && b == '[' && top && g.version.Load() != nil
}
