// Package manifests reads and validates the files a recipe is made of:
// package.json (key pi.mcp), the endpoint manifests it names, agents/NAME.yaml
// (or .yml, or .md with YAML front matter), .pi/mcp.local.json bindings and,
// outside a recipe, the user's own MCP configuration files.
//
// It checks each file's shape and names; deciding what an agent may reach
// (package ∩ agent) is the catalog's job.
package manifests

// Pos is where a value was written.
type Pos struct {
	File string // relative to the recipe root (Load), or as named to a parser
	Line int    // 1-based; 0 when unknown (JSON files report the line of the key)
	Col  int
}

// Transport is how an endpoint is reached.
type Transport string

const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http" // streamable HTTP
	TransportSSE   Transport = "sse"
	TransportAuto  Transport = "auto" // a url without type: streamable HTTP, falling back to SSE
)

// Endpoint says where one server lives and how to reach it: an entry of an
// mcpServers map. Values may hold ${VAR} and ${VAR:-default}; Expand resolves
// them.
type Endpoint struct {
	ID      string            `json:"-"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// PassEnv names the host variables a stdio server gets as they are,
	// beside the base set (BaseEnv) and Env: names, or prefixes ending in
	// "*" ("AWS_*").
	PassEnv []string          `json:"passEnv,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Type    string            `json:"type,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// OAuth configures the OAuth client for a url server; nil means
	// discover and register one.
	OAuth *OAuth `json:"oauth,omitempty"`
	// ProtocolVersion pins the MCP revision spoken to the server (one of
	// ProtocolVersions); empty means negotiate.
	ProtocolVersion string `json:"protocolVersion,omitempty"`

	// Dir is the directory relative commands and cwd resolve against: the
	// directory of the file the entry came from.
	Dir string `json:"-"`
	// Pos is where the entry was written.
	Pos Pos `json:"-"`
	// Untrusted, when set, says the entry comes from a project directory
	// that is not trusted: nothing may start or reach it (see Refusal).
	Untrusted *UntrustedError `json:"-"`
}

// OAuth is an endpoint's OAuth client: a client registered with the
// authorization server beforehand (ClientID, ClientSecret, AuthMethod,
// RedirectURI), or a client id metadata document (a ClientID that is an
// https URL), and the scopes to ask for instead of the ones the server
// suggests. Every field is optional. ClientID and ClientSecret may hold
// ${VAR}.
type OAuth struct {
	ClientID     string   `json:"clientId,omitempty"`
	ClientSecret string   `json:"clientSecret,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// AuthMethod is how the client authenticates at the token endpoint:
	// "client_secret_basic", "client_secret_post" or "none".
	AuthMethod string `json:"authMethod,omitempty"`
	// RedirectURI is the loopback URI registered for the client, such as
	// http://127.0.0.1:8765/callback; empty means any free port.
	RedirectURI string `json:"redirectUri,omitempty"`
}

// ServerPolicy is one entry of pi.mcp.servers: the package boundary for one server.
type ServerPolicy struct {
	ID       string
	Required bool
	// Include holds exact tool names, or the single entry "*". A nil Include
	// (the key absent) authorizes nothing.
	Include []string
	Exclude []string
	Pos     Pos // of the entry's id (of the entry when it has none)

	// IncludePos and ExcludePos hold where each entry of Include and
	// Exclude was written (same length and order).
	IncludePos []Pos
	ExcludePos []Pos
}

// Package is the pi.mcp block of package.json.
type Package struct {
	File      string   // path of package.json (Load: absolute; positions name it relative to the root)
	Manifests []string // as written, relative to the package root
	Servers   []ServerPolicy

	Pos          Pos   // of the pi.mcp key
	ManifestsPos []Pos // where each entry of Manifests was written
}

// AgentServer is one server entry of an agent's mcp block.
type AgentServer struct {
	ID      string
	Include []string // exact names or "*" (everything the package permits)
	Exclude []string
	Defer   []string // exact names or "*"; only valid in tools mode
	Eager   []string // exact names; only valid in tools mode
	Pos     Pos      // of the server's key

	// Where each list entry was written (same length and order as the list).
	IncludePos, ExcludePos, DeferPos, EagerPos []Pos
}

// AgentMCP is an agent's mcp block. Declared, it replaces the inherited block whole.
type AgentMCP struct {
	Mode    string // "", "cli" or "tools" as written
	Servers []AgentServer
	Pos     Pos // of the mcp key
	ModePos Pos // of the mode value, when present
}

// Agent is one file under agents/.
type Agent struct {
	Name    string   // file name without extension
	File    string   // path of the agent file (Load: absolute)
	Extends string   // parent agent name, "" if none
	Tools   []string // the agent's ordinary (non-MCP) tools, as written
	MCP     *AgentMCP
	Pos     Pos // of the extends key, when present
}

// Recipe is everything read for one run.
type Recipe struct {
	// Root is the directory that holds package.json; for a user
	// configuration it is the working directory.
	Root string
	// Package is the boundary. Nil outside a recipe: then User is true and
	// every server in Endpoints is authorized whole (the user is the admin).
	Package *Package
	User    bool
	// Endpoints by canonical server id (see CanonicalID), after local
	// bindings replaced manifest entries.
	Endpoints map[string]Endpoint
	// Agents by name.
	Agents map[string]*Agent
	// AgentErrors are the problems of the agent files that could not be
	// read, by agent name: that agent's, and those of agents extending it,
	// not the recipe's (catalog.Resolve reports them for such an agent).
	AgentErrors map[string]Errors
	// Files is every configuration file that was read, for reload watching,
	// the files that would be read if they appeared (in a directory that
	// exists), and the trust store, followed by the existing directories
	// whose entries decide what is read (so that a file appearing there is
	// noticed) and the trust store's: absolute paths, files first, each
	// part sorted.
	Files []string
	// Warnings are problems that did not stop loading: entries of imported
	// editor files that were skipped, a project file that fails the
	// ownership rule, a trust store that cannot be used. One line each,
	// never holding a secret.
	Warnings []string
	// Trust is what trust the project files read need and have.
	Trust TrustState
	// Sources are the files of a user configuration that were found, in
	// the order they were read, and what came of each (nil for a recipe).
	Sources []Source
	// Editors are, by canonical server id, the other programs' files of
	// the user's own (editor configurations, such as "~/.claude.json",
	// which need no trust) that the servers of a user configuration came
	// from. A server of pi's own files, of a project's files (which start
	// nothing untrusted) or of a recipe has none.
	Editors map[string]string
}
