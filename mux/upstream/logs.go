package upstream

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/internal/clip"
	"github.com/mcpsh/mcp/internal/registry"
)

// LogMessage is one log message a server sent (notifications/message),
// without the connection's secrets.
type LogMessage struct {
	Server string `json:"server"`
	Level  string `json:"level"`
	// Logger is the server's name for the part that logged; "" when none.
	Logger string `json:"logger,omitempty"`
	// Data is the message as the server sent it: any JSON value.
	Data json.RawMessage `json:"data,omitempty"`
}

// Text is the message's data on one line: a string as it is, anything
// else as compact JSON, cut at 1000 characters.
func (m LogMessage) Text() string {
	var s string
	if json.Unmarshal(m.Data, &s) != nil {
		s = string(m.Data)
	}
	return clip.Runes(strings.Join(strings.Fields(s), " "), 1000)
}

// logLevels are the levels of the protocol, from the lowest.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ValidLogLevel says whether level is one of the protocol's: debug, info,
// notice, warning, error, critical, alert, emergency.
func ValidLogLevel(level string) bool { return slices.Contains(logLevels, level) }

// LogLevel is the level servers are asked to log at (logging/setLevel),
// shared by the connections of one engine: a level set goes to every
// connection whose server declares logging, and to each such connection
// made later. Until one is set, servers log as they please. The zero value
// is ready to use.
type LogLevel struct {
	mu    sync.Mutex
	level string
	conns map[*conn]bool
}

// Set asks every connected server that declares logging, and each one
// connected later, to log at level and above. It does not wait for them.
func (l *LogLevel) Set(level string) {
	l.mu.Lock()
	l.level = level
	conns := make([]*conn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.sendLevel()
	}
}

// Level is the level set last; "" when none was.
func (l *LogLevel) Level() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.level
}

// join adds a connection that has finished its handshake.
func (l *LogLevel) join(u *conn) {
	l.mu.Lock()
	if l.conns == nil {
		l.conns = map[*conn]bool{}
	}
	l.conns[u] = true
	set := l.level != ""
	l.mu.Unlock()
	if set {
		u.sendLevel()
	}
}

func (l *LogLevel) leave(u *conn) {
	l.mu.Lock()
	delete(l.conns, u)
	l.mu.Unlock()
}

// setLevelTimeout bounds one logging/setLevel.
const setLevelTimeout = 10 * time.Second

// sendLevel sends the shared level to the server, when it declares
// logging, on a goroutine of the connection; sends go one at a time and
// each sends the level current then, so the last one set is the last sent.
func (u *conn) sendLevel() {
	if !u.logging {
		return
	}
	u.goOwned(func() {
		u.levelMu.Lock()
		defer u.levelMu.Unlock()
		level := u.levels.Level()
		if level == "" || level == u.levelSent {
			return
		}
		ctx, cancel := context.WithTimeout(u.life, setLevelTimeout)
		defer cancel()
		if _, err := u.request(ctx, "logging/setLevel", map[string]any{"level": level}); err != nil {
			u.log.Debug("logging/setLevel failed", "level", level, "err", err)
			return
		}
		u.levelSent = level
	})
}

// listenLevel is what a server is asked to log at for a call that listens
// to its log messages, when no level was set (LogLevel): everything.
const listenLevel = "debug"

// askForLogs makes sure a server that declares logging sends its log
// messages to a call that listens: before the first such call, when no
// level was set, it is asked for everything. Servers differ in what they
// send before they are asked (mcp-go servers send errors, go-sdk servers
// nothing); this costs the first listening call one round trip.
func (u *conn) askForLogs(ctx context.Context) {
	if !u.logging || (u.levels != nil && u.levels.Level() != "") {
		return
	}
	u.levelMu.Lock()
	defer u.levelMu.Unlock()
	if u.levelSent != "" {
		return
	}
	if _, err := u.request(ctx, "logging/setLevel", map[string]any{"level": listenLevel}); err != nil {
		u.log.Debug("logging/setLevel failed", "level", listenLevel, "err", err)
		return
	}
	u.levelSent = listenLevel
}

// logSinks are the functions that hear a connection's log messages while
// a call that asked for them runs (CallHooks.OnLog).
type logSinks struct{ registry.Set[func(LogMessage)] }

// listen adds f, when not nil, until the function returned is called.
func (s *logSinks) listen(f func(LogMessage)) (stop func()) {
	if f == nil {
		return func() {}
	}
	return s.Add(f)
}

// onLog passes a notifications/message on, without the connection's
// secrets, to Options.OnLog and to the calls listening. It runs on the
// transport's read goroutine.
func (u *conn) onLog(p mcp.NotificationParams) {
	sinks := u.sinks.All()
	if u.onLogMsg == nil && len(sinks) == 0 {
		return
	}
	var m struct {
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		Data   json.RawMessage `json:"data"`
	}
	raw, err := json.Marshal(p.AdditionalFields)
	if err != nil || json.Unmarshal(raw, &m) != nil || !ValidLogLevel(m.Level) {
		return
	}
	msg := LogMessage{Server: u.server, Level: m.Level, Logger: u.secret.Text(m.Logger)}
	if data := u.secret.Text(string(m.Data)); json.Valid([]byte(data)) {
		msg.Data = json.RawMessage(data)
	} else {
		msg.Data, _ = json.Marshal(data)
	}
	if u.onLogMsg != nil {
		u.onLogMsg(msg)
	}
	for _, f := range sinks {
		f(msg)
	}
}
