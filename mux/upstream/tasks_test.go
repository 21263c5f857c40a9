package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/testenv"
)

// statuses collects the progress a call reports.
type statuses struct {
	mu   sync.Mutex
	got  []Progress
	seen chan struct{} // closed at the first report
	once sync.Once
}

func newStatuses() *statuses { return &statuses{seen: make(chan struct{})} }

func (s *statuses) on(p Progress) {
	s.mu.Lock()
	s.got = append(s.got, p)
	s.mu.Unlock()
	s.once.Do(func() { close(s.seen) })
}

func (s *statuses) messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, p := range s.got {
		if p.Progress != float64(i+1) {
			return append(out, "progress does not count the reports")
		}
		out = append(out, p.Message)
	}
	return out
}

// taskCall calls a tool that requires a task, with hooks that collect its
// statuses.
func taskCall(ctx context.Context, u Conn, name, args string, st *statuses) (*catalog.Result, error) {
	ctx = WithCallHooks(WithTaskSupport(ctx, catalog.TaskRequired), &CallHooks{OnProgress: st.on})
	return u.CallTool(ctx, name, json.RawMessage(args))
}

func TestCallTool_taskEverything(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.EverythingStdio(t), Options{})
	tool := listTools(t, u)["simulate-research-query"]
	if tool.TaskSupport != catalog.TaskRequired {
		t.Fatalf("simulate-research-query: TaskSupport = %q, want required", tool.TaskSupport)
	}
	// Called plainly, the server refuses it.
	plain := call(t, u, "simulate-research-query", `{"topic":"tides"}`)
	if !plain.IsError || !strings.Contains(text(t, plain), "requires task augmentation") {
		t.Fatalf("plain call = %s, want the server's refusal", plain.Raw)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := newStatuses()
	res, err := taskCall(ctx, u, "simulate-research-query", `{"topic":"tides"}`, st)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	if got := text(t, res); !strings.HasPrefix(got, "# Research Report: tides") || res.IsError {
		t.Errorf("result = %.80q (isError %v)", got, res.IsError)
	}
	if strings.Contains(string(res.Raw), relatedTaskKey) {
		t.Errorf("the result still names the task: %.200s", res.Raw)
	}
	msgs := st.messages()
	for _, want := range []string{"working: Gathering sources...", "working: Generating report..."} {
		if !slices.Contains(msgs, want) {
			t.Errorf("statuses %q lack %q", msgs, want)
		}
	}
	if last := msgs[len(msgs)-1]; !strings.HasPrefix(last, "completed") {
		t.Errorf("last status = %q, want completed", last)
	}
}

// Cancelling the call cancels the task: server-everything lists it as
// cancelled.
func TestCallTool_taskCancelEverything(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.EverythingStdio(t), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	st := newStatuses()
	go func() {
		<-st.seen
		cancel()
	}()
	_, err := taskCall(ctx, u, "simulate-research-query", `{"topic":"tides"}`, st)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool = %v, want context.Canceled", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, err := u.request(context.Background(), "tasks/list", map[string]any{})
		if err != nil {
			t.Fatalf("tasks/list: %v", err)
		}
		var list struct{ Tasks []task }
		_ = json.Unmarshal(raw, &list)
		if len(list.Tasks) == 1 && list.Tasks[0].Status == taskCancelled {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks after the cancel: %s", raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCallTool_taskFake(t *testing.T) {
	t.Parallel()
	u := connect(t, testenv.FakeServer(t, testenv.ModeTasks), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	st := newStatuses()
	res, err := taskCall(ctx, u, "taskecho", `{"message":"hi"}`, st)
	if err != nil || text(t, res) != "Echo: hi" {
		t.Fatalf("taskecho = %v, %v", res, err)
	}
	if msgs := st.messages(); msgs[0] != "working" || msgs[len(msgs)-1] != "completed" {
		t.Errorf("statuses = %q", msgs)
	}

	// A task that fails with an error is that error.
	_, err = taskCall(ctx, u, "taskfail", `{}`, newStatuses())
	var rpc *RPCError
	if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "the task failed on purpose") {
		t.Errorf("taskfail = %v, want the server's error", err)
	}
	// A result with isError is a result.
	res, err = taskCall(ctx, u, "taskiserror", `{}`, newStatuses())
	if err != nil || !res.IsError || text(t, res) != "the task reported an error on purpose" {
		t.Errorf("taskiserror = %v, %v", res, err)
	}
}

// A call whose deadline passes cancels its task with tasks/cancel, and the
// connection stays usable.
func TestCallTool_taskDeadlineCancels(t *testing.T) {
	t.Parallel()
	ep := testenv.FakeServer(t, testenv.ModeTasks)
	mark := filepath.Join(t.TempDir(), "mark")
	ep.Env["FAKE_TASK_MARK"] = mark
	u := connect(t, ep, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := taskCall(ctx, u, "taskwait", `{}`, newStatuses())
	if ue := asUnavailable(t, err); !errors.Is(ue, context.DeadlineExceeded) {
		t.Fatalf("CallTool = %v, want a deadline", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, _ := os.ReadFile(mark); string(b) == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server's task was never cancelled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := text(t, call(t, u, "echo", `{"message":"after"}`)); got != "Echo: after" {
		t.Errorf("echo after the cancel = %q", got)
	}
}

func TestTask_interval(t *testing.T) {
	ms := func(n float64) *float64 { return &n }
	for _, tt := range []struct {
		poll *float64
		want time.Duration
	}{
		{nil, time.Second},
		{ms(250), 250 * time.Millisecond},
		{ms(0), minPollInterval},
		{ms(-5), minPollInterval},
		{ms(1 << 62), maxPollInterval},
		{ms(1e300), maxPollInterval},
		{ms(1500.5), 1500500 * time.Microsecond},
	} {
		if got := (&task{PollInterval: tt.poll}).interval(); got != tt.want {
			t.Errorf("interval(%v) = %v, want %v", tt.poll, got, tt.want)
		}
	}
}

// A status notification reaches the call following its task, the latest
// replacing one not yet read, and nothing blocks for a task nobody follows.
func TestTaskWatch_deliver(t *testing.T) {
	var w taskWatch
	note := func(fields map[string]any) mcp.JSONRPCNotification {
		n := mcp.JSONRPCNotification{}
		n.Method = mcp.MethodNotificationTasksStatus
		n.Params.AdditionalFields = fields
		return n
	}
	ch := w.watch("t1")
	w.deliver(note(map[string]any{"taskId": "t1", "status": "working", "statusMessage": "one"}))
	w.deliver(note(map[string]any{"taskId": "t1", "status": "working", "statusMessage": "two"}))
	w.deliver(note(map[string]any{"taskId": "other", "status": "completed"}))
	w.deliver(note(map[string]any{"taskId": "t1"})) // no status: ignored
	w.deliver(note(map[string]any{"taskId": 7, "status": "completed"}))
	select {
	case got := <-ch:
		if got.StatusMessage != "two" {
			t.Errorf("got %+v, want the latest", got)
		}
	default:
		t.Fatal("nothing delivered")
	}
	select {
	case got := <-ch:
		t.Errorf("delivered again: %+v", got)
	default:
	}
	w.unwatch("t1")
	w.deliver(note(map[string]any{"taskId": "t1", "status": "completed"}))
}

// A task that needs input gets it through tasks/result (over HTTP, on the
// stream of its response), answered by the connection's rule:
// server-everything's form has no defaults, so it is declined and the
// task goes on with its own fallback.
func TestCallTool_taskInputRequiredEverything(t *testing.T) {
	t.Parallel()
	for _, tt := range everythingTransports {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asked []Elicitation
			var mu sync.Mutex
			u := connect(t, tt.ep(t), Options{OnElicitation: func(e Elicitation) {
				mu.Lock()
				asked = append(asked, e)
				mu.Unlock()
			}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st := newStatuses()
			res, err := taskCall(ctx, u, "simulate-research-query", `{"topic":"python","ambiguous":true}`, st)
			if err != nil {
				t.Fatalf("CallTool: %v", err)
			}
			if got := text(t, res); !strings.Contains(got, "# Research Report: python (User declined - using default interpretation)") {
				t.Errorf("result = %.300q", got)
			}
			if !slices.ContainsFunc(st.messages(), func(m string) bool { return strings.HasPrefix(m, "input_required: ") }) {
				t.Errorf("statuses %q lack input_required", st.messages())
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0].Action != "decline" {
				t.Errorf("requests for input = %+v, want one, declined", asked)
			}
		})
	}
}

// A task started for a caller of its own counts as a call in flight until
// it ends, so that the requests for input it makes are not ended by other
// calls that end before it.
func TestStartTask_inFlightUntilEnded(t *testing.T) {
	t.Parallel()
	ep := testenv.FakeServer(t, testenv.ModeTasks)
	ep.Env["FAKE_TASK_MARK"] = filepath.Join(t.TempDir(), "mark")
	u := connect(t, ep, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, id, err := u.StartTask(ctx, "taskwait", nil, nil)
	if err != nil || id == "" {
		t.Fatalf("StartTask = %q, %v", id, err)
	}
	quiet := u.calls.quiet()
	if quiet == nil {
		t.Fatal("no call in flight while the task runs")
	}
	if got := text(t, call(t, u, "echo", `{"message":"meanwhile"}`)); got != "Echo: meanwhile" {
		t.Errorf("echo = %q", got)
	}
	select {
	case <-quiet:
		t.Fatal("a call that ended while the task runs left no call in flight")
	default:
	}
	if _, err := u.TaskRequest(ctx, "tasks/cancel", id); err != nil {
		t.Fatal(err)
	}
	select {
	case <-quiet:
	case <-time.After(5 * time.Second):
		t.Error("the cancelled task still counts as a call in flight")
	}
}

// A task whose end is seen before it is kept (its terminal status came
// before the answer that created it) is released at once when kept.
func TestTaskWatch_endedBeforeKept(t *testing.T) {
	var w taskWatch
	w.ended("t1")
	released := false
	w.keep("t1", nil, func() { released = true })
	if !released {
		t.Error("a task that had ended is held")
	}
	held := false
	w.keep("t2", nil, func() { held = true })
	if held {
		t.Error("a running task was released")
	}
	w.ended("t2")
	if !held {
		t.Error("an ended task is still held")
	}
	for i := range maxEarly + 10 {
		w.ended("x" + strconv.Itoa(i))
	}
	if len(w.early) != maxEarly {
		t.Errorf("%d early ends remembered, want at most %d", len(w.early), maxEarly)
	}
}
