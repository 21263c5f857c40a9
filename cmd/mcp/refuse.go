package main

import (
	"fmt"
	"strings"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/exit"
)

var refusedFlags = map[string]string{
	"--stdio": "ad-hoc transports", "--sse": "ad-hoc transports", "--http": "ad-hoc transports",
	"--transport": "ad-hoc transports", "--command": "ad-hoc transports", "--url": "URL selectors",
	"--header": "ad-hoc transports", "--env": "ad-hoc transports",
	"--config": "config overrides", "--manifest": "config overrides", "--package": "config overrides",
	"--agent": "config overrides", "--recipe": "config overrides", "--trust": "config overrides",
	"-c": "config overrides", "-C": "config overrides",
	"--save": "persistence flags", "--persist": "persistence flags",
	"--sources": "listings of the configuration's files",
}

var authVerbs = map[string]bool{"auth": true, "login": true, "logout": true}

// adminCommands are the host's commands, and those a shell user may expect
// of a tool that manages servers. Any other word in a verb's place is a
// typo, for the grammar to answer with the verb it probably meant.
var adminCommands = map[string]bool{
	"check": true, "init": true, "session": true, "trust": true, "daemon": true, "serve": true,
	"version": true, "completion": true, "man": true,
	"config": true, "add": true, "remove": true, "import": true, "install": true, "server": true, "servers": true,
}

// refusal is a request a session may not make.
type refusal struct{ what, why string }

func (r *refusal) ExitCode() int { return exit.Usage }
func (r *refusal) advice() string {
	return "ask whoever started the session for a session with the capability you need"
}

func (r *refusal) Error() string {
	return fmt.Sprintf("%s: %s are not available in a session: the session's surface is fixed when it starts", r.what, r.why)
}

// refuse checks a session's command line before anything else happens:
// nothing is read, started or connected for a refused request.
func refuse(args []string) error {
	verb := ""
	positional := 0
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if strings.HasPrefix(arg, "-") && arg != "-" {
			name, value, hasValue := strings.Cut(arg, "=")
			if why, ok := refusedFlags[name]; ok {
				return &refusal{what: name, why: why}
			}
			if hasValue && looksLikeURL(value) {
				return &refusal{what: name, why: "URL selectors"}
			}
			if !hasValue && i+1 < len(args) && looksLikeURL(args[i+1]) && strings.HasPrefix(name, "--") {
				return &refusal{what: name, why: "URL selectors"}
			}
			continue
		}
		positional++
		switch {
		case verb == "":
			verb = arg
			if authVerbs[arg] {
				return &refusal{what: "mcp " + arg, why: "interactive authentication commands"}
			}
			if adminCommands[arg] || strings.HasPrefix(arg, "__") {
				return &refusal{what: "mcp " + arg, why: "administrative commands (a session has search, list, call and run)"}
			}
		case positional == 2 && verb != "search" && looksLikeURL(arg):
			// The target of list, call or run.
			return &refusal{what: clip.Runes(arg, 49), why: "URL selectors"}
		}
	}
	return nil
}

func looksLikeURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Contains(s, "://") || strings.HasPrefix(s, "http:") || strings.HasPrefix(s, "https:")
}
