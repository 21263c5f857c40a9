package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpsh/mcp/examples/contacts"
	"github.com/mcpsh/mcp/internal/privdir"
	"github.com/mcpsh/mcp/internal/testenv"
	"github.com/mcpsh/mcp/mux"
)

// The test binary doubles as mcp itself and as the MCP servers the scripts
// talk to (the contacts example and a fake server for output and faults).
func TestMain(m *testing.M) {
	testscript.Main(scriptsMain(m), map[string]func(){
		"mcp": func() {
			// Scripts cannot unset a variable; this value stands for unset.
			if os.Getenv("MCP_SESSION") == unsetSession {
				os.Unsetenv("MCP_SESSION")
			}
			launchCopy()
			os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"contacts-server": func() {
			if err := server.ServeStdio(contacts.NewServer()); err != nil {
				os.Exit(1)
			}
		},
		"fake-server": fakeServer,
		"task-server": func() { os.Exit(testenv.ServeFake(testenv.ModeTasks)) },
		// The fake tool set with the schema shapes of popular servers.
		"shapes-server": func() { os.Exit(testenv.ServeFake(testenv.ModeShapes)) },
		// The fake tool set, speaking only MCP 2026-07-28.
		"modern-server":    func() { os.Exit(testenv.ServeFake(testenv.ModeModern)) },
		"guest-probe":      guestProbe,
		"guest-probe-many": guestProbeMany,
		"guest-probe-big":  guestProbeBig,
		"guest-probe-hold": guestProbeHold,
		"guest-probe-fire": guestProbeFire,
		"stall-server":     stallServer,
		// Where the multiplexer named by the argument listens, in this
		// process's environment.
		"socket-path": socketPath,
		// A server whose reply to one method has the wrong shape (MALFORMED).
		"malformed-server": func() { os.Exit(testenv.ServeFake(testenv.ModeMalformed + os.Getenv("MALFORMED"))) },
	})
}

// scriptsMain is what runs the tests in TestMain (windows_test.go's on
// Windows).
var scriptsMain = func(m *testing.M) testscript.TestingM { return m }

func TestScripts(t *testing.T) {
	t.Parallel()
	// Real servers nobody here wrote: server-everything over stdio, SSE and
	// streamable HTTP, server-memory and server-filesystem.
	dir := testenv.Dir(t)
	node := testenv.Node(t)
	sseURL := testenv.EverythingHTTP(t, "sse")
	httpURL := testenv.EverythingHTTP(t, "streamableHttp")
	// Servers that speak only MCP 2026-07-28.
	modernURL := testenv.ServeModern(t)
	rawModernURL := testenv.NewRawModern(t).URL
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireUniqueNames:  true,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			env.Setenv("TMPDIR", filepath.Join(env.WorkDir, ".tmp"))
			env.Setenv("NODE", node)
			env.Setenv("EVERYTHING_JS", filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
			env.Setenv("MEMORY_JS", filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js"))
			env.Setenv("FILESYSTEM_JS", testenv.FilesystemJS(t))
			for name, js := range testenv.PinnedJS(t) {
				env.Setenv(name, js)
			}
			env.Setenv("EVERYTHING_SSE_URL", sseURL)
			env.Setenv("EVERYTHING_HTTP_URL", httpURL)
			env.Setenv("MODERN_HTTP_URL", modernURL)
			env.Setenv("RAW_MODERN_URL", rawModernURL)
			if err := os.MkdirAll(filepath.Join(env.WorkDir, ".tmp"), 0o700); err != nil {
				return err
			}
			// Every multiplexer a script started ends with the script.
			env.Defer(func() { stopDaemons(t, filepath.Join(env.WorkDir, ".tmp")) })
			return os.MkdirAll(home, 0o700)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"session-env": sessionEnvCmd,
			"authserver":  authServerCmd,
			"muxlog":      muxLogCmd,
		},
	})
}

const unsetSession = "(unset)"

// launchCopy, where a test sets it, runs in every mcp this binary runs
// before Main.
var launchCopy = func() {}

// stopDaemons ends the multiplexers whose sockets are in the runtime
// directories mcp made in tmp (and those that stand in for them), and
// fails the test if one does not stop.
func stopDaemons(t *testing.T, tmp string) {
	shutdownAll(t, inRuntimeDirs(tmp, "*.sock.lock"))
	// A directory in /tmp that stood in for a runtime directory of the
	// test's goes with it, when nothing is left in it.
	for _, record := range inRuntimeDirs(tmp, privdir.ShortRecord) {
		if short, err := os.ReadFile(record); err == nil {
			_ = os.Remove(strings.TrimSpace(string(short)))
		}
	}
}

// shutdownAll ends the multiplexers whose lock files are locks, and fails
// the test if one does not stop.
func shutdownAll(t *testing.T, locks []string) {
	for _, lock := range locks {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := mux.Shutdown(ctx, strings.TrimSuffix(lock, ".lock"), 10*time.Second); err != nil {
			t.Error(err)
		}
		cancel()
	}
}

func socketPath() {
	p, err := mux.SocketPath(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(p)
}

// inRuntimeDirs is the files that match pattern in the runtime
// directories mcp made in tmp when XDG_RUNTIME_DIR is unset, and in the
// directories in /tmp that stand in for those whose path is too long for
// a socket.
func inRuntimeDirs(tmp, pattern string) []string {
	dirs, _ := filepath.Glob(filepath.Join(tmp, "mcp-"+strconv.Itoa(os.Getuid())+"*"))
	for _, dir := range dirs {
		if short, err := os.ReadFile(filepath.Join(dir, privdir.ShortRecord)); err == nil {
			dirs = append(dirs, strings.TrimSpace(string(short)))
		}
	}
	var found []string
	for _, dir := range dirs {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		found = append(found, matches...)
	}
	return found
}

// sessionEnvCmd reads `export MCP_SESSION=ID` from a file (the stdout of
// `mcp session start`) and sets it for the rest of the script, or with
// "off" unsets it.
func sessionEnvCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: session-env FILE|off")
	}
	if args[0] == "off" {
		ts.Setenv("MCP_SESSION", unsetSession)
		return
	}
	data := ts.ReadFile(args[0])
	line := strings.TrimSpace(data)
	id, ok := strings.CutPrefix(line, "export MCP_SESSION=")
	if !ok || id == "" {
		ts.Fatalf("no export line in %s: %q", args[0], line)
	}
	ts.Setenv("MCP_SESSION", id)
	ts.Setenv("MCP_SESSION_ID", id)
}

// muxLogCmd prints the logs of the multiplexers the script started.
func muxLogCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: muxlog")
	}
	logs := inRuntimeDirs(ts.Getenv("TMPDIR"), "*.sock.log")
	if len(logs) == 0 {
		ts.Fatalf("muxlog: no multiplexer log")
	}
	for _, l := range logs {
		fmt.Fprint(ts.Stdout(), ts.ReadFile(l))
	}
}

// fakeEvent appends a line to the file FAKE_EVENTS names, if any.
func fakeEvent(line string) {
	name := os.Getenv("FAKE_EVENTS")
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// tinyPNG is a 1×1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// addHostileTools gives the fake server tools whose names, descriptions,
// results and errors carry terminal escape sequences and bidi overrides.
func addHostileTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("hostile", mcp.WithDescription("hi\x1b]0;PWNED\x07\x1b[2J"),
		mcp.WithString("p", mcp.Description("param\x1b[31mred"))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("out\x1b]0;PWNED\x07\x1b]52;c;aGk=\x07"), nil
		})
	s.AddTool(mcp.NewTool("evil\u202etxt"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	s.AddTool(mcp.NewTool("hostile_fail"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("bad\x1b[2Jnews"), nil
		})
	s.AddTool(mcp.NewTool("hostile_rpc"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("rpc\x1b[2Jerror")
		})
}

// addLeakyTools gives the fake server tools that repeat credentials:
// API_KEY from its environment, the variable LEAK_ALSO names and its
// command line's arguments.
func addLeakyTools(s *server.MCPServer) {
	creds := func() string {
		return "key " + os.Getenv("API_KEY") + ", also " + os.Getenv(os.Getenv("LEAK_ALSO")) + ", args " + strings.Join(os.Args[1:], " ")
	}
	s.AddTool(mcp.NewTool("leak"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "fake: refusing "+creds())
			return nil, fmt.Errorf("denied for %s", creds())
		})
	s.AddTool(mcp.NewTool("ask_leak"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := server.ServerFromContext(ctx).RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message:         "confirm " + creds(),
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean", "default": true}}},
			}})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText("answered " + string(res.Action)), nil
		})
}

// addLoggingTools makes the fake server declare logging and gives it a
// tool that logs, as servers do during a call: a debug line, an info line
// with an escape sequence and a warning of two lines, which it sends only
// at the level it was asked for (errors, until told otherwise).
func addLoggingTools(s *server.MCPServer) {
	server.WithLogging()(s)
	s.AddTool(mcp.NewTool("chatty"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for _, m := range []struct {
				level mcp.LoggingLevel
				text  string
			}{{mcp.LoggingLevelDebug, "starting"}, {mcp.LoggingLevelInfo, "working\x1b[2J on it"}, {mcp.LoggingLevelWarning, "step 2\nof 2"}} {
				_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(m.level, "worker", m.text))
			}
			// mcp-go writes notifications from a goroutine of its own: let
			// them go out before the result does.
			time.Sleep(100 * time.Millisecond)
			return mcp.NewToolResultText("done"), nil
		})
	// loud logs its text four times, at error, which servers send unasked.
	s.AddTool(mcp.NewTool("loud", mcp.WithString("text")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for range 4 {
				_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelError, "worker", req.GetString("text", "")))
			}
			time.Sleep(100 * time.Millisecond)
			return mcp.NewToolResultText("done"), nil
		})
}

// addChangingTools gives the fake server tools that change its tool list
// while a client is connected, as servers do: add_named adds a tool of the
// name it is given (which answers its name), remove_named removes one.
// Each change notifies tools/list_changed.
func addChangingTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("add_named", mcp.WithString("name", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name := req.GetString("name", "")
			s.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(name), nil
			})
			return mcp.NewToolResultText("added " + name), nil
		})
	s.AddTool(mcp.NewTool("remove_named", mcp.WithString("name", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.DeleteTools(req.GetString("name", ""))
			return mcp.NewToolResultText("removed " + req.GetString("name", "")), nil
		})
}

// addVariantTools gives the fake server three tools whose names are one
// name as a caller or a policy may write it: delete_all, delete-all and
// Delete_All. Each records that it was called (FAKE_EVENTS) before it
// answers with its name.
func addVariantTools(s *server.MCPServer) {
	for _, name := range []string{"delete_all", "delete-all", "Delete_All"} {
		s.AddTool(mcp.NewTool(name, mcp.WithDescription("Delete every record")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fakeEvent("called " + name)
				return mcp.NewToolResultText("DELETED by " + name), nil
			})
	}
}

// fakeServer is an MCP stdio server for output and fault tests. With
// FAKE_EXTRA=1 it offers one more tool, as a server that adds tools later;
// FAKE_INSTRUCTIONS are its instructions.
func fakeServer() {
	var opts []server.ServerOption
	if text := os.Getenv("FAKE_INSTRUCTIONS"); text != "" {
		opts = append(opts, server.WithInstructions(text))
	}
	s := server.NewMCPServer("fake", "1.0.0", opts...)
	s.AddTool(mcp.NewTool("echo", mcp.WithString("message", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithNumber("bytes", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := req.GetInt("bytes", 0)
			var b strings.Builder
			for i := 0; b.Len() < n; i++ {
				fmt.Fprintf(&b, "line %06d %s\n", i, strings.Repeat("x", 40))
			}
			return mcp.NewToolResultText(b.String()[:n]), nil
		})
	s.AddTool(mcp.NewTool("image"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("a tiny picture"),
				mcp.NewImageContent(base64.StdEncoding.EncodeToString(tinyPNG), "image/png"),
			}}, nil
		})
	s.AddTool(mcp.NewTool("fail"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the fake tool failed on purpose"), nil
		})
	s.AddTool(mcp.NewTool("sleep", mcp.WithNumber("ms", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(req.GetInt("ms", 0)) * time.Millisecond):
				return mcp.NewToolResultText("slept"), nil
			case <-ctx.Done():
				fakeEvent("cancelled")
				return nil, ctx.Err()
			}
		})
	s.AddTool(mcp.NewTool("crash"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "fake: crashing on purpose")
			os.Exit(7)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("getenv", mcp.WithString("name", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(os.Getenv(req.GetString("name", ""))), nil
		})
	s.AddTool(mcp.NewTool("add_tool"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("added_at_runtime"),
				func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("added at runtime"), nil
				})
			return mcp.NewToolResultText("added"), nil
		})
	s.AddTool(mcp.NewTool("drop_table"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("DROPPED"), nil
		})
	if os.Getenv("FAKE_PAINT") == "1" {
		// A tool whose arguments name their values, for Tab.
		s.AddTool(mcp.NewTool("paint", mcp.WithString("color", mcp.Required(), mcp.Enum("red", "green", "blue")),
			mcp.WithBoolean("glossy"), mcp.WithString("note")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("painted " + req.GetString("color", "")), nil
			})
	}
	if os.Getenv("FAKE_EXTRA") == "1" {
		s.AddTool(mcp.NewTool("added_later"),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("new tool"), nil
			})
	}
	if os.Getenv("FAKE_META") == "1" {
		testenv.AddMetaTools(s)
	}
	if os.Getenv("FAKE_CHANGES") == "1" {
		addChangingTools(s)
	}
	if os.Getenv("FAKE_HOSTILE") == "1" {
		addHostileTools(s)
	}
	if os.Getenv("FAKE_LEAKY") == "1" {
		addLeakyTools(s)
	}
	if os.Getenv("FAKE_LOGS") == "1" {
		addLoggingTools(s)
	}
	if os.Getenv("FAKE_LEAKY_META") == "1" {
		addLeakyMetaTools(s)
	}
	if os.Getenv("FAKE_VARIANTS") == "1" {
		addVariantTools(s)
	}
	if os.Getenv("FAKE_JSON_TEXT") == "1" {
		// As n8n answers: JSON as one text item, no structured content.
		s.AddTool(mcp.NewTool("search_nodes", mcp.WithString("query")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(`[{"name":"Webhook"},{"name":"HTTP Request"}]`), nil
			})
	}
	if os.Getenv("FAKE_LEAKY_PARTS") == "1" {
		addLeakyPartsTools(s)
	}
	fakeEvent(fmt.Sprintf("pid %d", os.Getpid()))
	if os.Getenv("FAKE_GRANDCHILD") == "1" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err == nil {
			fakeEvent(fmt.Sprintf("grandchild %d", child.Process.Pid))
		}
	}
	if os.Getenv("FAKE_STDOUT_LOGS") == "1" {
		fmt.Println("fake server starting (a log line on stdout)")
	}
	if os.Getenv("FAKE_EXIT_AT_START") == "1" {
		fmt.Fprintln(os.Stderr, "fake: cannot open database: permission denied")
		os.Exit(3)
	}
	err := server.ServeStdio(s)
	if os.Getenv("FAKE_IGNORE_EOF") == "1" {
		// A server that outlives the end of its stdin.
		fakeEvent("stdin closed")
		select {}
	}
	if err != nil {
		os.Exit(1)
	}
}

// guestProbe is the test binary run as guest-probe SOCKET REQUEST: it sends
// one raw request to a multiplexer, as a program of the agent's own could,
// and prints what comes back.
func guestProbe() {
	conn, err := net.DialTimeout("unix", os.Args[1], 5*time.Second)
	if err != nil {
		os.Stderr.WriteString("dial: " + err.Error() + "\n")
		os.Exit(1)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = conn.Write([]byte(os.Args[2] + "\n"))
	_, _ = io.Copy(os.Stdout, conn)
	os.Exit(0)
}
