package authtest

import "slices"

// MoveTo makes the MCP server move to other's authorization server, as a
// server migrating to a new one does (SEP-2352): its protected resource
// metadata names other's issuer, and it takes other's tokens only.
func (s *Server) MoveTo(other *Server) {
	s.mu.Lock()
	s.moved = other
	s.mu.Unlock()
	other.mu.Lock()
	other.adopted = append(other.adopted, s.MCPURL)
	other.mu.Unlock()
}

// servesLocked says whether tokens for resource may be issued: the MCP
// server's own endpoint, or one that moved here. s.mu is held.
func (s *Server) servesLocked(resource string) bool {
	return resource == s.MCPURL || slices.Contains(s.adopted, resource)
}

// issuer is the authorization server the MCP server names.
func (s *Server) issuer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.moved != nil {
		return s.moved.Issuer
	}
	return s.Issuer
}

// grant is the grant of access token tok, from the authorization server
// the MCP server uses (nil when it issued no such token).
func (s *Server) grant(tok string) *grant {
	s.mu.Lock()
	as := s
	if s.moved != nil {
		as = s.moved
	}
	s.mu.Unlock()
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.access[tok]
}
