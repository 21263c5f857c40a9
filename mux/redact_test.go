package mux

import (
	"bytes"
	"errors"
	"io"
	"log"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/redact"
	"github.com/mcpsh/mcp/manifests"
	"github.com/mcpsh/mcp/mux/upstream"
)

// The multiplexer's log holds no secret, whatever logged it: its own
// messages and attributes, and the default loggers it is installed as.
func TestNewLog(t *testing.T) {
	var s redact.Set
	s.Add(`sk-log "123456"`)
	var buf bytes.Buffer
	l := newLog(&buf, &s)
	l.Warn("configuration not reloaded", "err", errors.New(`bad value sk-log "123456"`))
	l.Info(`server x asked for input ("sk-log "123456"")`)
	defer func(d *slog.Logger, w io.Writer, flags int) {
		slog.SetDefault(d)
		log.SetOutput(w)
		log.SetFlags(flags)
	}(slog.Default(), log.Writer(), log.Flags())
	slog.SetDefault(l)
	log.Printf("a library says sk-log %q", "123456")
	if out := buf.String(); strings.Contains(out, "123456") || strings.Count(out, redact.Mask) != 3 {
		t.Errorf("log = %s", out)
	}
}

// An engine's set holds the secrets of every endpoint before any connects,
// and of those a reload brings.
func TestEngine_secrets(t *testing.T) {
	env := map[string]string{"KEY": "sk-env-123456", "TOKEN": "tok-arg-123456"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s := &catalog.Surface{Mode: catalog.ModeCLI, Servers: []*catalog.ServerSurface{{ID: "a", All: true}}}
	shared := new(redact.Set)
	e := NewEngine(s, map[string]manifests.Endpoint{"a": {ID: "a", Command: "a", Env: map[string]string{"API_KEY": "${KEY}"}}},
		lookup, upstream.Options{Secrets: shared})
	defer e.Close()
	if got := shared.Text("sk-env-123456 tok-arg-123456"); got != "[redacted] tok-arg-123456" {
		t.Errorf("before the reload: %q", got)
	}
	e.Reconfigure(s, map[string]manifests.Endpoint{"a": {ID: "a", Command: "a", Args: []string{"--token", "${TOKEN}"}}})
	if got := shared.Text("sk-env-123456 tok-arg-123456"); got != "[redacted] [redacted]" {
		t.Errorf("after the reload: %q", got)
	}
}
