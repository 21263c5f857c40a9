// Package contacts is a small MCP server over built-in sample data. The
// example recipe beside it runs it, so `mcp` can be tried with Go alone.
package contacts

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Contact is one entry of the sample address book.
type Contact struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Email   string `json:"email"`
	Company string `json:"company"`
	Notes   string `json:"notes,omitempty"`
}

var sample = []Contact{
	{"c1", "Ada Lovelace", "ada@analytical.example", "Analytical Engines", "Wrote the first published program."},
	{"c2", "Grace Hopper", "grace@cobol.example", "US Navy", "Popularised machine-independent languages."},
	{"c3", "Alan Turing", "alan@bletchley.example", "Bletchley Park", "Asks whether machines can think."},
	{"c4", "Katherine Johnson", "katherine@nasa.example", "NASA", "Checked the orbital calculations by hand."},
	{"c5", "Edsger Dijkstra", "edsger@eindhoven.example", "TU Eindhoven", "Prefers structured programs."},
	{"c6", "Barbara Liskov", "barbara@mit.example", "MIT", "Substitution principle."},
}

// NewServer returns the contacts MCP server.
func NewServer() *server.MCPServer {
	s := server.NewMCPServer("contacts", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("search_contacts",
		mcp.WithDescription("Search the address book by name, company or email"),
		mcp.WithString("query", mcp.Required(), mcp.Description("Words to look for")),
		mcp.WithNumber("limit", mcp.Description("Most results to return (default 5)")),
	), searchContacts)
	s.AddTool(mcp.NewTool("get_contact",
		mcp.WithDescription("Get one contact by id"),
		mcp.WithString("id", mcp.Required(), mcp.Description("Contact id, as search_contacts returns it")),
	), getContact)
	s.AddTool(mcp.NewTool("delete_contact",
		mcp.WithDescription("Delete a contact by id"),
		mcp.WithString("id", mcp.Required()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the sample address book is read-only"), nil
	})
	return s
}

func searchContacts(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query := strings.ToLower(strings.TrimSpace(req.GetString("query", "")))
	if query == "" {
		return mcp.NewToolResultError("query must not be empty"), nil
	}
	limit := req.GetInt("limit", 5)
	var found []Contact
	for _, c := range sample {
		hay := strings.ToLower(c.Name + " " + c.Company + " " + c.Email)
		if matchesAll(hay, strings.Fields(query)) && len(found) < limit {
			found = append(found, c)
		}
	}
	var lines []string
	for _, c := range found {
		lines = append(lines, fmt.Sprintf("%s  %s <%s>, %s", c.ID, c.Name, c.Email, c.Company))
	}
	if len(lines) == 0 {
		lines = []string{"no contacts match " + query}
	}
	return mcp.NewToolResultStructured(map[string]any{"contacts": found}, strings.Join(lines, "\n")), nil
}

func matchesAll(hay string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

func getContact(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.GetString("id", "")
	for _, c := range sample {
		if c.ID == id {
			return mcp.NewToolResultStructured(c, fmt.Sprintf("%s <%s>, %s. %s", c.Name, c.Email, c.Company, c.Notes)), nil
		}
	}
	return mcp.NewToolResultError("no contact with id " + id), nil
}
