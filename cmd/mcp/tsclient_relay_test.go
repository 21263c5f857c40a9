package main

import (
	"strings"
	"testing"

	"github.com/mcpsh/mcp/mux/upstream"
)

// TestTSClient_Relay: server-everything's request for input reaches a
// TypeScript SDK client that declared elicitation, its message after the
// server's id, and its answer the tool; a client without the capability gets the old rule (declined, as
// the form needs a name it has no default for). After setLevel the
// server's log messages reach the client under the server's id.
func TestTSClient_Relay(t *testing.T) {
	t.Parallel()
	f := runTSClient(t, serveEnv(t), "relay", "--recipe", serveRecipe(t), "serve", "--agent", "relay")
	var logging bool
	var asked []struct {
		Message  string   `json:"message"`
		Required []string `json:"required"`
	}
	var elicited, declined tsCall
	var firstLog *struct {
		Level  string `json:"level"`
		Logger string `json:"logger"`
		Data   any    `json:"data"`
	}
	f.get(t, "logging", &logging)
	f.get(t, "asked", &asked)
	f.get(t, "elicited", &elicited)
	f.get(t, "firstLog", &firstLog)
	f.get(t, "declined", &declined)
	if !logging {
		t.Error("mcp serve does not declare logging")
	}
	if len(asked) != 1 || asked[0].Message != "everything: Please provide inputs for the following fields:" || strings.Join(asked[0].Required, ",") != "name" {
		t.Errorf("the client was asked %+v", asked)
	}
	for _, want := range []string{"User provided the requested information", "Name: Ada Lovelace", "Favorite Integer: 7"} {
		if elicited.IsError || !strings.Contains(elicited.Text, want) {
			t.Errorf("elicitation result lacks %q: %+v", want, elicited)
		}
	}
	if firstLog == nil || firstLog.Logger != "everything" || !upstream.ValidLogLevel(firstLog.Level) {
		t.Errorf("first log message = %+v, want one from everything", firstLog)
	} else if s, _ := firstLog.Data.(string); !strings.Contains(s, "essage") {
		t.Errorf("first log message data = %v", firstLog.Data)
	}
	if declined.IsError || !strings.Contains(declined.Text, "User declined") {
		t.Errorf("without elicitation: %+v, want the server to see a decline", declined)
	}
}
