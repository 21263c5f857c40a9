package catalog

import "encoding/json"

// Tool is one tool as a server described it, with the raw JSON kept whole so
// that nothing the typed structs drop ($schema, anyOf, x-*) is lost.
type Tool struct {
	Server       string          `json:"server"` // server id as declared in the recipe
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// TaskSupport is the tool's execution.taskSupport: whether it must or
	// may be called as a task.
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
	// Raw is the tool object exactly as tools/list returned it.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// ID is "server.tool".
func (t Tool) ID() string { return t.Server + "." + t.Name }

// TaskSupport says whether a tool is called as a task (MCP 2025-11-25
// execution.taskSupport).
type TaskSupport string

const (
	// TaskForbidden is a tool called plainly: execution.taskSupport is
	// absent, "forbidden", or a value this program does not know.
	TaskForbidden TaskSupport = ""
	// TaskOptional is a tool that may be called either way.
	TaskOptional TaskSupport = "optional"
	// TaskRequired is a tool that answers only a call made as a task.
	TaskRequired TaskSupport = "required"
)
