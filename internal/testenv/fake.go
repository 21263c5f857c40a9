package testenv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpsh/mcp/manifests"
)

// fakeEnv selects the fake server's behaviour in a re-executed test binary.
const fakeEnv = "MCPSH_TESTENV_FAKE"

// Fake server modes, for FakeServer. Modes can be joined with commas.
const (
	ModeDefault   = "default"   // serve the fake tools
	ModeExit      = "exit"      // write 30 lines to stderr, then exit 7 before reading anything
	ModeSilent    = "silent"    // read stdin and never answer
	ModeStdoutLog = "stdoutlog" // print log lines on stdout, before serving and before every answer
	ModePages     = "pages"     // list tools two per page
	ModeBadCursor = "badcursor" // a hand-written server whose tools/list repeats a cursor and whose tools/call answers nested 10,001 deep
	ModeInitError = "initerror" // a hand-written server that refuses initialize, then keeps running
	ModeEnvDump   = "envdump"   // write API_KEY's value to stderr, then exit 3 before reading anything
	ModeModern    = "modern"    // speak only 2026-07-28: refuse initialize and any request without the _meta it asks for
)

// WeirdContentType is the content type the fake tool "weird" answers with.
const WeirdContentType = "hologram"

// FakeServer is an endpoint that runs the test binary itself as an MCP
// server over stdio. The package's TestMain must call FakeServerMain first.
func FakeServer(t testing.TB, mode string) manifests.Endpoint {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	// A binary built with -race sleeps a second at exit unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return manifests.Endpoint{ID: "fake", Command: exe, Env: map[string]string{fakeEnv: mode, "GORACE": gorace}}
}

// FakeServerMain turns the process into the fake server, and exits, when
// the environment asks for it; otherwise it returns at once. Call it first
// in TestMain.
func FakeServerMain() {
	mode, ok := os.LookupEnv(fakeEnv)
	if !ok {
		return
	}
	os.Exit(runFake(mode))
}

func runFake(mode string) int {
	has := func(m string) bool { return strings.Contains(","+mode+",", ","+m+",") }
	switch {
	case strings.HasPrefix(mode, ModeMalformed):
		return serveMalformed(strings.TrimPrefix(mode, ModeMalformed))
	case has(ModeExit):
		for i := 1; i <= 30; i++ {
			fmt.Fprintf(os.Stderr, "starting %d\n", i)
		}
		fmt.Fprintln(os.Stderr, "fatal: FAKE_API_KEY is not set")
		return 7
	case has(ModeEnvDump):
		fmt.Fprintf(os.Stderr, "boot: API_KEY=%s\n", os.Getenv("API_KEY"))
		return 3
	case has(ModeSilent):
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case has(ModeBadCursor), has(ModeInitError):
		return serveRaw(has(ModeInitError))
	}
	out := &fakeStdout{w: os.Stdout, chatty: has(ModeStdoutLog)}
	out.log("fake server starting")
	var opts []server.ServerOption
	if has(ModePages) {
		opts = append(opts, server.WithPaginationLimit(2))
	}
	if text := os.Getenv("FAKE_INSTRUCTIONS"); text != "" {
		opts = append(opts, server.WithInstructions(text))
	}
	if has(ModeTasks) {
		opts = append(opts, taskOptions()...)
	}
	s := FakeMCPServer(opts...)
	if has(ModeTasks) {
		addTaskTools(s)
	}
	if has(ModeMeta) {
		AddMetaTools(s)
	}
	if has(ModeShapes) {
		addShapes(s)
	}
	stdio := server.NewStdioServer(s)
	server.WithWorkerPoolSize(50)(stdio)
	ctx := context.WithValue(context.Background(), stdioKey{}, true)
	var in io.Reader = os.Stdin
	if has(ModeModern) {
		in = modernOnly(os.Stdin, out)
	}
	if err := stdio.Listen(ctx, in, out); err != nil {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		return 1
	}
	return 0
}

// stdioKey marks the context of a fake served over stdio by runFake.
type stdioKey struct{}

// fakeStdout serialises writes to stdout, optionally interleaving log lines
// (a server that logs to stdout), and rewrites the marker of the "weird"
// tool into a content type nobody knows.
type fakeStdout struct {
	mu     sync.Mutex
	w      io.Writer
	chatty bool
}

var weirdFrom, weirdTo = []byte(`{"type":"text","text":"@@weird@@"}`), []byte(`{"type":"` + WeirdContentType + `","data":"AAEC"}`)

func (o *fakeStdout) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.chatty {
		fmt.Fprintln(o.w, `{"level":"info","msg":"answering"}`)
		fmt.Fprintln(o.w, "plain text log line")
	}
	p2 := bytes.ReplaceAll(p, weirdFrom, weirdTo)
	// A big result is written here rather than built by the server, which
	// is slow at it (notably under the race detector).
	if i := bytes.Index(p2, bigMarker); i >= 0 {
		j := i + len(bigMarker) + bytes.IndexByte(p2[i+len(bigMarker):], '@')
		n, _ := strconv.Atoi(string(p2[i+len(bigMarker) : j]))
		bw := bufio.NewWriterSize(o.w, 1<<16)
		bw.Write(p2[:i])
		for chunk := bytes.Repeat([]byte("x"), 1<<16); n > 0; n -= len(chunk) {
			bw.Write(chunk[:min(n, len(chunk))])
		}
		bw.Write(p2[j+2:])
		return len(p), bw.Flush()
	}
	if _, err := o.w.Write(p2); err != nil {
		return 0, err
	}
	return len(p), nil
}

var bigMarker = []byte("@@big:")

func (o *fakeStdout) log(msg string) {
	if o.chatty {
		o.mu.Lock()
		fmt.Fprintln(o.w, msg)
		o.mu.Unlock()
	}
}

// FakeMCPServer is the fake server's tool set, for serving in-process over
// HTTP as well:
//
//	echo {message}     "Echo: message"
//	fail               a result with isError
//	rpcerr             a JSON-RPC error (the handler returns a Go error)
//	wait {mark}        blocks until cancelled, then writes "cancelled" to the file mark
//	hang               blocks until the process ends, ignoring cancellation
//	slow {ms}          answers "done" after ms milliseconds
//	crash              writes to stderr and exits 3 mid-call
//	crashorphan        spawns `sleep 300` holding stdout, then crashes
//	big {bytes}        one text item of that many bytes
//	spawn              starts `sleep 300` in the background and answers its pid
//	weird              one content item of type WeirdContentType (stdio only)
//	structured         structuredContent {"n":12345678901234567890}
//	addtool {name}     adds a tool, which notifies tools/list_changed
//	pwd, getenv {name} the working directory, an environment variable
//	schema             a tool whose input schema has $schema, anyOf and x-extra
//	log {text}         logs "LEVEL text" (logger fake-logger) at debug, info,
//	                   warning and error; the server declares logging
func FakeMCPServer(opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer("fake", "1.0.0", append([]server.ServerOption{server.WithToolCapabilities(true), server.WithLogging()}, opts...)...)
	text := mcp.NewToolResultText
	add := func(name string, h server.ToolHandlerFunc, o ...mcp.ToolOption) {
		s.AddTool(mcp.NewTool(name, o...), h)
	}
	add("echo", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("Echo: " + r.GetString("message", "")), nil
	}, mcp.WithDescription("Echoes back the input"), mcp.WithString("message", mcp.Required()))
	add("fail", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the tool failed on purpose"), nil
	})
	add("rpcerr", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("handler failed on purpose")
	})
	add("wait", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		if mark := r.GetString("mark", ""); mark != "" {
			_ = os.WriteFile(mark, []byte("cancelled"), 0o600)
		}
		return text("cancelled"), nil
	}, mcp.WithString("mark"))
	add("hang", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {}
	})
	add("slow", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(time.Duration(r.GetInt("ms", 100)) * time.Millisecond)
		return text("done"), nil
	}, mcp.WithNumber("ms"))
	add("crash", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "panic: crashing on purpose")
		os.Exit(3)
		return nil, nil
	})
	add("crashorphan", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cmd := exec.Command("sleep", "300")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		_ = cmd.Start()
		fmt.Fprintln(os.Stderr, "panic: crashing on purpose, leaving a child behind")
		os.Exit(3)
		return nil, nil
	})
	add("big", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := r.GetInt("bytes", 1<<20)
		if _, ok := ctx.Value(stdioKey{}).(bool); ok {
			return text("@@big:" + strconv.Itoa(n) + "@@"), nil
		}
		return text(strings.Repeat("x", n)), nil
	}, mcp.WithNumber("bytes"))
	add("spawn", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cmd := exec.Command("sleep", "300")
		cmd.Stderr = os.Stderr // the grandchild holds the stderr pipe too
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go func() { _ = cmd.Wait() }()
		return text(strconv.Itoa(cmd.Process.Pid)), nil
	})
	add("weird", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("@@weird@@"), nil
	})
	add("structured", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := text(`{"n":12345678901234567890}`)
		res.RawStructuredContent = json.RawMessage(`{"n":12345678901234567890}`)
		return res, nil
	})
	add("addtool", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := r.GetString("name", "added")
		s.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(name), nil
		})
		return text("added " + name), nil
	}, mcp.WithString("name"))
	add("pwd", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		wd, err := os.Getwd()
		return text(wd), err
	})
	add("getenv", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(os.Getenv(r.GetString("name", ""))), nil
	}, mcp.WithString("name"))
	add("log", func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, level := range []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelWarning, mcp.LoggingLevelError} {
			n := mcp.NewLoggingMessageNotification(level, "fake-logger", string(level)+" "+r.GetString("text", "message"))
			_ = s.SendLogMessageToClient(ctx, n)
		}
		// mcp-go writes notifications from a goroutine of its own: let
		// them go out before the result does.
		time.Sleep(100 * time.Millisecond)
		return text("logged"), nil
	}, mcp.WithString("text"))
	s.AddTool(mcp.NewToolWithRawSchema("schema", "A tool with a rich schema", json.RawMessage(
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","description":"top-level description",`+
			`"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"x-extra":true}`)),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })
	return s
}

// serveRaw is a minimal hand-written server whose tools/list sends tool "a"
// with cursor "c1", then tool "b" with cursor "c1" again. With initError it
// answers initialize with an error instead.
func serveRaw(initError bool) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
				Name   string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue
		}
		var result string
		switch req.Method {
		case "initialize":
			if initError {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unsupported protocol version"}}`+"\n", req.ID)
				continue
			}
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"badcursor","version":"1"}}`
		case "tools/list":
			name := "a"
			if req.Params.Cursor != "" {
				name = "b"
			}
			result = `{"tools":[{"name":"` + name + `","inputSchema":{"type":"object"}}],"nextCursor":"c1"}`
		case "tools/call":
			if req.Params.Name == "leak" {
				// An error that echoes the server's credential.
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"denied for key %s","data":{"key":%q}}}`+"\n",
					req.ID, os.Getenv("API_KEY"), os.Getenv("API_KEY"))
				continue
			}
			// Any other tool answers with structured content nested deeper
			// than a JSON decoder reads.
			const depth = 10001
			result = `{"content":[],"structuredContent":` + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + `}`
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`+"\n", req.ID)
			continue
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
	return 0
}
