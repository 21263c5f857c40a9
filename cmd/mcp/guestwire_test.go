//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsh/mcp/internal/exit"
	"github.com/mcpsh/mcp/mux"
)

// wireV is the version of the socket protocol the raw requests speak.
const wireV = "4"

// guestPackage excludes a tool, whose name a guest must never learn.
const guestPackage = `{"name": "muxtest", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "fake", "tools": {"include": ["*"], "exclude": ["drop_table"]}},
  {"id": "other", "tools": {"include": ["echo"]}}]}}}`

// shareSession starts a session for agent that guest may use, and returns
// its id and socket.
func (g *guestEnv) shareSession(agent string, guest *localUser) (id, socket string) {
	g.t.Helper()
	r := g.run([]string{"TMPDIR=" + g.shared}, "session", "start", "--agent", agent, "--user", guest.Name)
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		g.t.Fatalf("session start --user: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	id, socket = sessionParts(g.t, env)
	g.t.Cleanup(func() { g.run(nil, "session", "stop", id) })
	return id, socket
}

// rawReplies sends each request as guest, each on a connection of its own,
// and returns the multiplexer's last line for each.
func (g *guestEnv) rawReplies(guest *localUser, socket string, reqs []string) []string {
	g.t.Helper()
	file := filepath.Join(guest.home, "requests")
	writeFile(g.t, file, strings.Join(reqs, "\n")+"\n")
	guest.Chown(g.t, file)
	r := g.as(guest, nil, "guest-probe-many", socket, file)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != len(reqs) {
		g.t.Fatalf("guest-probe-many: exit %d, %d replies to %d requests\nstdout: %s\nstderr: %s", r.code, len(lines), len(reqs), r.stdout, r.stderr)
	}
	return lines
}

// wireFields are a value of every field a request may carry, beside v,
// env and session.
var wireFields = map[string]string{
	"server": `"fake"`, "tool": `"echo"`, "args": `{"message":"hi"}`, "input": `{"pairs":["message=hi"]}`,
	"listing": `1`, "search": `{"text":"echo"}`, "logs": `true`, "progress": `true`,
}

// wireOps are the operations a guest may send, and the fields each takes.
var wireOps = map[string][]string{
	"catalog": {"listing"},
	"tools":   {"server"},
	"tool":    {"server", "tool"},
	"call":    {"server", "tool", "args", "logs", "progress"},
	"invoke":  {"server", "tool", "input", "logs", "progress"},
	"search":  {"search"},
}

// wireRequired are the fields each operation must carry.
var wireRequired = map[string][]string{
	"tools": {"server"}, "tool": {"server", "tool"}, "call": {"server", "tool"},
	"invoke": {"server", "tool"}, "search": {"search"},
}

// rawRequest is a request of op for session id with the fields given.
func rawRequest(id, op string, fields ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"v":%s,"session":"%s","op":"%s"`, wireV, id, op)
	for _, f := range fields {
		fmt.Fprintf(&b, `,"%s":%s`, f, wireFields[f])
	}
	return b.String() + "}"
}

// A guest's raw requests are held to the protocol: each operation takes
// its own fields and nothing else, unknown fields (the index directory a
// search once took among them) are refused, values are checked, and what
// is refused is said in words, not in this program's types. Nothing the
// guest names is created or removed, and the multiplexer goes on serving.
func TestGuestRawRequests(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)

	// Where a search request once said to keep its index: a directory of
	// the guest's, and through a link of the guest's, one of the host's
	// that the guest cannot even list.
	probe := filepath.Join(guest.home, "probe")
	g.as(guest, nil, "mkdir", probe)
	hostDir := filepath.Join(g.root, "private")
	writeFile(t, filepath.Join(hostDir, "store", "keep"), "host data")
	writeFile(t, filepath.Join(hostDir, "index_meta.json"), "{}")
	link := filepath.Join(guest.home, "link")
	g.as(guest, nil, "ln", "-s", hostDir, link)

	type check struct{ req, want string }
	var checks []check
	for op, takes := range wireOps {
		for f := range wireFields {
			if !slices.Contains(takes, f) {
				checks = append(checks, check{rawRequest(id, op, append(slices.Clone(takes), f)...), op + ` takes no \"` + f + `\"`})
			}
		}
		for _, f := range wireRequired[op] {
			rest := slices.DeleteFunc(slices.Clone(takes), func(s string) bool { return s == f })
			checks = append(checks, check{rawRequest(id, op, rest...), op + ` needs \"` + f + `\"`})
		}
	}
	head := `{"v":` + wireV + `,"session":"` + id + `",`
	for _, dir := range []string{probe, link} {
		checks = append(checks,
			check{head + `"op":"search","search":{"text":"echo","Dir":"` + dir + `"}}`, `does not know: \"Dir\"`},
			check{head + `"op":"search","search":{"text":"echo"},"dir":"` + dir + `"}`, `does not know: \"dir\"`})
	}
	checks = append(checks,
		check{head + `"op":"call","server":"fake","tool":"echo","args":{},"cwd":"/"}`, `does not know: \"cwd\"`},
		check{head + `"op":"invoke","server":"fake","tool":"echo","input":{"pairs":[],"command":"sh"}}`, `does not know: \"command\"`},
		check{`{"v":"` + wireV + `","op":"catalog"}`, `\"v\" must be a number, not a JSON string`},
		check{head + `"op":"tools","server":["fake"]}`, `\"server\" must be a string, not a JSON array`},
		check{head + `"op":"catalog","listing":7}`, `listing 7 is not a way of listing`},
		check{head + `"op":"search","search":{"text":"echo","limit":-1}}`, `the search limit must be 0 to 10000`},
		check{head + `"op":"call","server":"fake","tool":"echo","args":["hi"]}`, `must be a JSON object`},
		check{head + `"op":"tool","server":"fake","tool":"` + strings.Repeat("e", 300) + `"}`, `\"tool\" is not a name`},
		check{head + `"op":"status","env":"x"}`, `is for the user who started the session`},
		check{head + `"op":"catalog","env":"0123"}`, `takes no environment`},
		check{head + `"op":"drop"}`, `\"drop\" is not an operation`},
		check{`[1,2]`, `it must be a JSON object`},
		check{`{"v":4,}`, `it is not JSON (at byte 8)`},
		check{`not json`, `it is not JSON`},
		check{head + `"op":"call","server":"fake","tool":"echo","args":{"message":"still served"}}`, `still served`},
	)
	reqs := make([]string, len(checks))
	for i, c := range checks {
		reqs[i] = c.req
	}
	for i, reply := range g.rawReplies(guest, socket, reqs) {
		c := checks[i]
		if !strings.Contains(reply, c.want) || strings.Contains(reply, "Go ") || strings.Contains(reply, "struct") {
			t.Errorf("as the guest, %s:\n  reply %s\n  want it to hold %s, in words", c.req, reply, c.want)
		}
	}
	// The refusals are in the host's log at most once per 10 s.
	if log, err := os.ReadFile(socket + ".log"); err != nil || strings.Count(string(log), "refused a request") > 2 {
		t.Errorf("%d refusals wrote %d lines to the multiplexer's log (%v)", len(checks)-1, strings.Count(string(log), "refused a request"), err)
	}
	if entries, _ := os.ReadDir(probe); len(entries) > 0 {
		t.Errorf("a guest's search request made the multiplexer write into the guest's directory: %v", entries)
	}
	for _, f := range []string{filepath.Join(hostDir, "store", "keep"), filepath.Join(hostDir, "index_meta.json")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a guest's search request removed the host's %s: %v", f, err)
		}
	}
	if entries, _ := os.ReadDir(hostDir); len(entries) != 2 {
		t.Errorf("a guest's search request wrote into the host's directory: %v", entries)
	}
}

// What a guest reads on the socket is what the CLI prints for it: the
// catalog names no tool outside the surface, no agent and no part of the
// host's recipe, and an untrusted recipe is said to be untrusted without
// naming where it lives.
func TestGuestReadsWhatTheCLIPrints(t *testing.T) {
	g := newGuestEnv(t)
	writeFile(t, filepath.Join(g.root, "package.json"), guestPackage)
	writeFile(t, filepath.Join(g.root, "agents", "wide.yaml"), "mcp:\n  servers:\n    fake:\n      include: [\"*\"]\n")
	g.trust()
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("wide", guest)

	catalog := rawRequest(id, "catalog")
	call := rawRequest(id, "call", "server", "tool", "args")
	replies := g.rawReplies(guest, socket, []string{catalog, rawRequest(id, "tools", "server")})
	for _, reply := range replies {
		for _, secret := range []string{"drop_table", "exclude", "wide", g.root} {
			if strings.Contains(reply, secret) {
				t.Errorf("the guest's raw reply holds %q:\n%s", secret, reply)
			}
		}
	}
	if !strings.Contains(replies[1], `"name":"echo"`) {
		t.Errorf("the guest's tools reply lists no echo: %s", replies[1])
	}
	// A raw call of a name the server does not list is not sent, and is
	// answered as the excluded tool is: the guest cannot tell them apart.
	var calls []string
	names := []string{"drop_table", "zzz_nothing", "DROP_TABLE", "drop-table"}
	for _, name := range names {
		calls = append(calls, `{"v":`+wireV+`,"session":"`+id+`","op":"call","server":"fake","tool":"`+name+`","args":{}}`)
	}
	for i, reply := range g.rawReplies(guest, socket, calls) {
		want := `"kind":"not_available"`
		if !strings.Contains(reply, want) || strings.Contains(reply, "DROPPED") || strings.Contains(reply, "not found") {
			t.Errorf("the guest's raw call of fake.%s: %s", names[i], reply)
		}
	}

	// The host edits the recipe: its servers start no more until the host
	// trusts it again, and the guest is told so without the path.
	writeFile(t, filepath.Join(g.root, "mcp.json"), strings.Replace(muxManifest, `"other": {"command": "fake-server",`, `"other": {"command": "fake-server", "args": [],`, 1))
	var last []string
	if !eventually(10*time.Second, func() bool {
		last = g.rawReplies(guest, socket, []string{catalog, call})
		return strings.Contains(last[1], "cannot be used")
	}) {
		t.Fatalf("the session's multiplexer did not notice the changed recipe: %v", last)
	}
	for _, reply := range last {
		if strings.Contains(reply, g.root) || strings.Contains(reply, "mcp.json") {
			t.Errorf("the guest's raw reply names the host's recipe:\n%s", reply)
		}
	}
	in := []string{"MCP_SESSION=" + sessionEnv(id, socket)}
	if r := g.as(guest, in, "mcp", "list"); r.code != 0 || !strings.Contains(r.stdout, "fake  untrusted") || strings.Contains(r.stdout+r.stderr, g.root) {
		t.Errorf("the guest's list with an untrusted server: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r := g.as(guest, in, "mcp", "call", "fake.echo", "message=hi")
	if r.code != exit.Config || !strings.Contains(r.stderr, "server fake cannot be used: its recipe is not trusted as it is now; the user who started the session can fix that") ||
		strings.Contains(r.stderr, g.root) {
		t.Errorf("the guest's call of an untrusted server: exit %d, stderr %q", r.code, r.stderr)
	}
}

// One request cannot grow the host's multiplexer: a request over 4 MiB is
// refused before it is read whole, with an answer that says so.
func TestGuestLargeRequest(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)
	pid := g.status(socket).PID
	before := peakRSS(t, pid)
	r := g.as(guest, nil, "guest-probe-big", socket, id, strconv.Itoa(256<<20))
	if !strings.Contains(r.stdout, "the multiplexer refused the request: it is larger than 4 MiB") {
		t.Errorf("a 256 MiB request: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	// Read whole, it took the multiplexer's peak up by 1.5 GiB; bounded, by
	// a few times 4 MiB (more under the race detector).
	if grew := peakRSS(t, pid) - before; grew > 64<<20 {
		t.Errorf("a 256 MiB request took the multiplexer's peak memory up by %d MiB", grew>>20)
	}
	r = g.as(guest, []string{"MCP_SESSION=" + sessionEnv(id, socket)}, "mcp", "call", "fake.echo", "message=after")
	if r.code != 0 || r.stdout != "after\n" {
		t.Errorf("a call after the large request: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// The CLI does not send what the multiplexer would refuse.
	big := filepath.Join(guest.home, "big.json")
	writeFile(t, big, `{"message":"`+strings.Repeat("x", 5<<20)+`"}`)
	_ = os.Chown(big, guest.UID, guest.GID)
	r = g.as(guest, []string{"MCP_SESSION=" + sessionEnv(id, socket)}, "mcp", "call", "fake.echo", "--args", "@"+big)
	if r.code != exit.Usage || !strings.Contains(r.stderr, "mcp: error: the request is 5.0 MiB, and the multiplexer takes at most 4 MiB") {
		t.Errorf("a call with 5 MiB of arguments: exit %d, stderr %.300q", r.code, r.stderr)
	}
}

// A request costs the host's multiplexer a bounded multiple of its size,
// whatever its shape: four calls of the excluded tool, each with 4 MiB of
// [0,0,…] (every bound kept), are refused as any call of it is, and take
// the multiplexer's peak memory up by tens of MiB. Each once cost it a
// GiB (its member names were checked on a tree of all of it), 2.1 to
// 2.5 GiB for the four, and kept.
func TestGuestRequestCostIsBounded(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)
	pid := g.status(socket).PID
	before := peakRSS(t, pid)
	head := `{"v":` + wireV + `,"session":"` + id + `","op":"call","server":"fake","tool":"drop_table","args":{"a":[`
	call := head + strings.Repeat("0,", (mux.MaxRequest-len(head)-16)/2) + "0]}}"
	reqs := []string{call, call, call, call}
	for i, reply := range g.rawReplies(guest, socket, reqs) {
		if !strings.Contains(reply, `"kind":"not_available"`) {
			t.Errorf("call %d of fake.drop_table with 4 MiB of zeros: %.300s", i, reply)
		}
	}
	// What the race detector adds to each copy counts here too.
	grew := peakRSS(t, pid) - before
	t.Logf("peak memory up by %d MiB", grew>>20)
	if grew > 256<<20 {
		t.Errorf("four requests of 4 MiB took the multiplexer's peak memory up by %d MiB", grew>>20)
	}
}

// peakRSS is the most memory process pid has held (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM for pid %d", pid)
	return 0
}

// session stop closes the guest's connections at once: a guest holding
// connections it sends nothing on neither delays the stop nor is answered
// after it.
func TestSessionStopClosesGuestConnections(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)

	cmd, lines := g.hold(guest, socket, 8)
	defer cmd.Wait()
	start := time.Now()
	if r := g.run(nil, "session", "stop", id); r.code != 0 {
		t.Fatalf("session stop: exit %d, %q", r.code, r.stderr)
	}
	// Before, the stop waited out each idle connection's 10 s.
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("session stop took %v with the guest's idle connections open", took.Round(time.Millisecond))
	}
	if !lines.Scan() || lines.Text() != "closed" {
		t.Errorf("the guest's connections after session stop: %q", lines.Text())
	}
}

// hold has guest open n connections to socket and send nothing on them
// (guest-probe-hold), and returns the probe, once it has said "open",
// with the rest of what it says.
func (g *guestEnv) hold(guest *localUser, socket string, n int) (*exec.Cmd, *bufio.Scanner) {
	g.t.Helper()
	cmd := exec.Command(g.bin, socket, strconv.Itoa(n))
	cmd.Args[0] = "guest-probe-hold"
	cmd.Dir, cmd.Env = guest.home, []string{"HOME=" + guest.home}
	cmd.SysProcAttr = guest.SysProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		g.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		g.t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "open" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		g.t.Fatalf("guest-probe-hold: %q", lines.Text())
	}
	return cmd, lines
}

// A guest holds at most 32 connections at once: one more is answered so
// and closed, and once the guest lets some go, it is served again.
func TestGuestConnectionBound(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)
	cmd, _ := g.hold(guest, socket, 32)
	call := rawRequest(id, "call", "server", "tool", "args")
	if reply := g.rawReplies(guest, socket, []string{call})[0]; !strings.Contains(reply, "the session's guest has 32 connections open already") {
		t.Errorf("a 33rd connection of the guest: %s", reply)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	var reply string
	if !eventually(10*time.Second, func() bool {
		reply = g.rawReplies(guest, socket, []string{call})[0]
		return strings.Contains(reply, `"result"`)
	}) {
		t.Errorf("a call once the guest let its connections go: %s", reply)
	}
	if r := g.as(guest, []string{"MCP_SESSION=" + sessionEnv(id, socket)}, "mcp", "call", "fake.echo", "message=hi"); r.code != 0 {
		t.Errorf("the guest's mcp call after: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A server that cannot start reaches the guest as unavailable, and no
// more: not the host's path it could not run, nor what it wrote on stderr.
func TestGuestUnavailableServer(t *testing.T) {
	g := newGuestEnv(t)
	writeFile(t, filepath.Join(g.root, "package.json"), `{"name": "muxtest", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "fake", "tools": {"include": ["*"]}},
  {"id": "broken", "tools": {"include": ["*"]}},
  {"id": "crash", "tools": {"include": ["*"]}}]}}}`)
	writeFile(t, filepath.Join(g.root, "mcp.json"), `{"mcpServers": {
  "fake": {"command": "fake-server"},
  "broken": {"command": "/host-only/secret-dir/server-bin"},
  "crash": {"command": "fake-server", "env": {"FAKE_EXIT_AT_START": "1"}}}}`)
	g.trust()
	guest := newLocalUser(t, filepath.Dir(g.shared))
	r := g.run([]string{"TMPDIR=" + g.shared}, "session", "start", "--user", guest.Name)
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start: exit %d, %q", r.code, r.stderr)
	}
	defer g.run(nil, "session", "stop", env)
	id, socket := sessionParts(t, env)
	hostOnly := []string{"/host-only", "secret-dir", "cannot open database", g.root}
	replies := g.rawReplies(guest, socket, []string{rawRequest(id, "catalog"),
		`{"v":` + wireV + `,"session":"` + id + `","op":"tools","server":"broken"}`,
		`{"v":` + wireV + `,"session":"` + id + `","op":"tools","server":"crash"}`})
	for _, reply := range replies {
		for _, h := range hostOnly {
			if strings.Contains(reply, h) {
				t.Errorf("the guest's raw reply holds %q: %s", h, reply)
			}
		}
	}
	if !strings.Contains(replies[1], "it could not be started or reached") {
		t.Errorf("the guest's tools of a server that cannot start: %s", replies[1])
	}
	in := []string{"MCP_SESSION=" + env}
	for _, args := range [][]string{{"list"}, {"list", "broken"}, {"call", "crash.echo", "message=hi"}} {
		r := g.as(guest, in, append([]string{"mcp"}, args...)...)
		if r.code != exit.Upstream {
			t.Errorf("as the guest, mcp %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, h := range hostOnly {
			if strings.Contains(r.stdout+r.stderr, h) {
				t.Errorf("as the guest, mcp %v prints %q: stdout %q, stderr %q", args, h, r.stdout, r.stderr)
			}
		}
	}
}

// fire sends each request as guest, all at once, reads nothing for wait,
// and returns what became of each (guest-probe-fire).
func (g *guestEnv) fire(guest *localUser, socket string, reqs []string, wait time.Duration) []string {
	g.t.Helper()
	file := filepath.Join(guest.home, "fire")
	writeFile(g.t, file, strings.Join(reqs, "\n")+"\n")
	if err := os.Chown(file, guest.UID, guest.GID); err != nil {
		g.t.Fatal(err)
	}
	r := g.as(guest, nil, "guest-probe-fire", socket, file, strconv.Itoa(int(wait/time.Second)))
	if r.code != 0 {
		g.t.Fatalf("guest-probe-fire: exit %d, stderr %q", r.code, r.stderr)
	}
	return strings.Fields(r.stdout)
}

// A guest's requests in flight hold at most 16 MiB of the host's
// multiplexer together: of 32 calls of almost 4 MiB each, all made at once
// to a tool that takes its time, at most 4 are taken and the others are
// refused at once. Before, all 32 were taken, and held the multiplexer's
// memory for as long as the calls lasted.
func TestGuestRequestsInFlightAreBounded(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("sleeper", guest)
	pid := g.status(socket).PID
	before := peakRSS(t, pid)
	call := `{"v":` + wireV + `,"session":"` + id + `","op":"call","server":"fake","tool":"sleep","args":{"ms":300000,"pad":"` + strings.Repeat("x", mux.MaxRequest-200) + `"}}`
	reqs := make([]string, 32)
	for i := range reqs {
		reqs[i] = call
	}
	// The probe waits 30 s for each answer: the refusals come as soon as
	// the multiplexer has read what it takes; calls taken are still
	// sleeping then, and end when it hangs up.
	got := g.fire(guest, socket, reqs, 30*time.Second)
	count := map[string]int{}
	for _, s := range got {
		count[s]++
	}
	if count["refused"] < 28 || count["answered"] > 0 {
		t.Errorf("32 calls of 4 MiB at once: %v", count)
	}
	// The bound is on what the guest's requests hold; what the race
	// detector adds to each copy of them counts here too (65 MiB without
	// it, 288 MiB with it; 837 MiB with it and no bound).
	grew := peakRSS(t, pid) - before
	t.Logf("peak memory up by %d MiB", grew>>20)
	if grew > 512<<20 {
		t.Errorf("the guest's calls took the multiplexer's peak memory up by %d MiB", grew>>20)
	}
	// Once the guest has hung up, its calls end and the budget is free.
	var r result
	if !eventually(20*time.Second, func() bool {
		r = g.as(guest, []string{"MCP_SESSION=" + sessionEnv(id, socket)}, "mcp", "call", "fake.sleep", "ms=1")
		return r.code == 0 && r.stdout == "slept\n"
	}) {
		t.Errorf("a call after: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A request stuck beneath a call (written to a server that reads no more)
// does not hold up session stop: the server is closed under it, and the
// stop is orderly, not the kill that follows a multiplexer that does not
// stop.
func TestSessionStopWithAStuckServer(t *testing.T) {
	g := newGuestEnv(t)
	if err := os.Symlink(g.bin, filepath.Join(filepath.Dir(g.bin), "stall-server")); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(g.root, "stall.pid")
	writeFile(t, filepath.Join(g.root, "package.json"), `{"name": "muxtest", "pi": {"mcp": {"manifests": ["mcp.json"], "servers": [
  {"id": "stall", "tools": {"include": ["*"]}}]}}}`)
	writeFile(t, filepath.Join(g.root, "mcp.json"), `{"mcpServers": {"stall": {"command": "`+filepath.Join(filepath.Dir(g.bin), "stall-server")+`", "env": {"STALL_PID_FILE": "`+pidFile+`"}}}}`)
	g.trust()
	guest := newLocalUser(t, filepath.Dir(g.shared))
	r := g.run([]string{"TMPDIR=" + g.shared}, "session", "start", "--user", guest.Name)
	env, ok := strings.CutPrefix(strings.TrimSpace(r.stdout), "export MCP_SESSION=")
	if r.code != 0 || !ok {
		t.Fatalf("session start: exit %d, %q", r.code, r.stderr)
	}
	id, socket := sessionParts(t, env)
	pad := strings.Repeat("p", 1<<20)
	call := `{"v":` + wireV + `,"session":"` + id + `","op":"call","server":"stall","tool":"stall","args":{"pad":"` + pad + `"}}`
	g.fire(guest, socket, []string{call, call}, 3*time.Second)
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	server, _ := strconv.Atoi(string(data))
	start := time.Now()
	r = g.run(nil, "session", "stop", env)
	took := time.Since(start)
	if r.code != 0 {
		t.Fatalf("session stop: exit %d, %q", r.code, r.stderr)
	}
	// Before, the stop waited 10 s for the multiplexer, then sent it
	// SIGTERM and 5 s later SIGKILL.
	if took > 8*time.Second {
		t.Errorf("session stop took %v with a call stuck beneath the guest's requests", took.Round(time.Millisecond))
	}
	if !eventually(5*time.Second, func() bool { return ended(server) }) {
		t.Errorf("the stuck server %d outlived the session", server)
	}
}

// ended says whether process pid has exited: it is gone, or a zombie
// nobody has reaped yet.
func ended(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return strings.HasPrefix(rest, "Z")
}

// A guest reads at most 4 requests at once: with 4 connections open and
// silent, its next request waits until one of them goes, while the host's
// own requests do not wait at all.
func TestGuestReadsAreBounded(t *testing.T) {
	g := newGuestEnv(t)
	guest := newLocalUser(t, filepath.Dir(g.shared))
	id, socket := g.shareSession("narrow", guest)
	holder, _ := g.hold(guest, socket, 4)
	answered := make(chan time.Time, 1)
	go func() {
		g.rawReplies(guest, socket, []string{rawRequest(id, "call", "server", "tool", "args")})
		answered <- time.Now()
	}()
	if r := g.run([]string{"MCP_SESSION=" + sessionEnv(id, socket)}, "call", "fake.echo", "message=host"); r.code != 0 || r.stdout != "host\n" {
		t.Errorf("the host's call while the guest's reads are taken: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	time.Sleep(time.Second)
	released := time.Now()
	_ = holder.Process.Kill()
	_ = holder.Wait()
	select {
	case at := <-answered:
		if at.Before(released) {
			t.Errorf("the guest's fifth request was read while its 4 silent connections held every slot")
		}
	case <-time.After(20 * time.Second):
		t.Error("the guest's request was not answered once its silent connections went")
	}
}
