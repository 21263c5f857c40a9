package manifests

import (
	"slices"
	"strings"
)

// ProtocolVersions are the MCP revisions an endpoint's protocolVersion may
// pin, newest first. The newest is spoken without the initialize
// handshake; the others use it.
var ProtocolVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// protocolVersion reads an entry's protocolVersion into ep: a known
// revision, else an error naming the value.
func (c *checker) protocolVersion(ep *Endpoint, f map[string]*member, field string) {
	m := f["protocolVersion"]
	if m == nil {
		return
	}
	fld := field + "." + m.name()
	s, ok := c.str(m.val, fld)
	if !ok {
		return
	}
	ep.ProtocolVersion = s
	switch {
	case !slices.Contains(ProtocolVersions, s):
		c.at(m.val, fld, s, "is not a known MCP revision", "protocolVersion is one of "+strings.Join(ProtocolVersions, ", ")+", or left out to negotiate")
	case s == ProtocolVersions[0] && transportTypes[ep.Type] == TransportSSE:
		c.at(m.val, fld, s, "is not spoken over SSE", `2026-07-28 is spoken over streamable HTTP ("type": "http") or stdio`)
	}
}
