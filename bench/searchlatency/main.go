// Command searchlatency measures what `mcp search` costs at scale:
//
//   - build: indexing N tools (made from a catalog file by deterministic
//     variation) into a persisted index, one Replace per server, then Close;
//   - cold query: a fresh process that opens the persisted index read-only,
//     runs one query and closes it, timed from outside by exec'ing this same
//     binary, as the CLI will run;
//   - noop: a fresh process of this binary that does nothing, the floor under
//     the cold query (exec plus the package initialization of everything
//     linked, bleve included);
//   - warm query: one query on an index already open.
//
// It prints the medians as JSON, with the CPU time of the fresh processes
// beside their wall time (on a busy machine only the wall time grows) and the
// fastest build beside the median.
//
//	go run ./bench/searchlatency --catalog bench/data/livemcpbench/catalog.jsonl --tools 10000 --runs 50
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/mcpsh/mcp/bench/searchquality/benchdata"
	"github.com/mcpsh/mcp/search"
)

// Modes of the child process.
const (
	modeQuery = "query"
	modeNoop  = "noop"
)

var queries = []string{
	"stock price today",
	"convert docx to pdf",
	"Find the earliest available high-speed train from Beijing to Shanghai for tomorrow and save the result to /root/markdown/train.md",
	"weather forecast for a city",
	"list files in a directory",
	"wether forcast for tomorow in a city", // misspelt words: the back-off path
}

func main() {
	if len(os.Args) > 1 && (os.Args[1] == modeQuery || os.Args[1] == modeNoop) {
		os.Exit(child(os.Args[1], os.Args[2:]))
	}
	catalogPath := flag.String("catalog", "", "catalog file (JSON lines, one tool a line)")
	tools := flag.Int("tools", 10000, "number of tools to index")
	runs := flag.Int("runs", 50, "fresh processes per measurement")
	builds := flag.Int("builds", 3, "index builds to time")
	dir := flag.String("dir", "", "where to put the index (default: a new temporary directory)")
	flag.Parse()
	if *catalogPath == "" {
		fmt.Fprintln(os.Stderr, "searchlatency: --catalog is required")
		os.Exit(2)
	}
	if err := run(*catalogPath, *dir, *tools, *runs, *builds); err != nil {
		fmt.Fprintln(os.Stderr, "searchlatency:", err)
		os.Exit(1)
	}
}

// child runs one measured process: open, one query, close (or nothing).
func child(mode string, args []string) int {
	if mode == modeNoop {
		return 0
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: searchlatency query DIR TEXT")
		return 2
	}
	ix, err := search.OpenReadOnly(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hits, err := ix.Search(args[1], search.Options{Limit: 10})
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	if err != nil || len(hits) == 0 {
		fmt.Fprintln(os.Stderr, "no hits:", err)
		return 1
	}
	return 0
}

type result struct {
	Tools         int     `json:"tools"`
	BuildMedianMS float64 `json:"build_median_ms"`
	BuildMinMS    float64 `json:"build_min_ms"`
	IndexBytes    int64   `json:"index_bytes"`
	ColdQueryMS   float64 `json:"cold_open_query_close_median_ms"`
	ColdQueryP90  float64 `json:"cold_open_query_close_p90_ms"`
	ColdQueryCPU  float64 `json:"cold_open_query_close_cpu_median_ms"`
	NoopMS        float64 `json:"noop_process_median_ms"`
	NoopCPU       float64 `json:"noop_process_cpu_median_ms"`
	WarmQueryMS   float64 `json:"warm_query_median_ms"`
	Runs          int     `json:"runs"`
}

func run(catalogPath, dir string, n, runs, builds int) error {
	c, err := benchdata.LoadCatalog(catalogPath)
	if err != nil {
		return err
	}
	servers := c.Scale(n)
	if dir == "" {
		tmp, err := os.MkdirTemp("", "searchlatency")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	res := result{Tools: n, Runs: runs}
	var buildTimes []float64
	var indexDir string
	for b := 0; b < builds; b++ {
		indexDir = filepath.Join(dir, fmt.Sprintf("index%d", b))
		start := time.Now()
		ix, err := search.Open(indexDir)
		if err != nil {
			return err
		}
		for _, s := range servers {
			if err := ix.Replace(s.ID, s.Info, s.Tools); err != nil {
				ix.Close()
				return err
			}
		}
		if err := ix.Close(); err != nil {
			return err
		}
		buildTimes = append(buildTimes, ms(time.Since(start)))
	}
	res.BuildMedianMS, res.BuildMinMS = median(buildTimes), percentile(buildTimes, 0)
	res.IndexBytes = dirSize(indexDir)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	var cold, coldCPU, noop, noopCPU []float64
	for i := 0; i < runs; i++ {
		d, cpu, err := timeExec(self, modeQuery, indexDir, queries[i%len(queries)])
		if err != nil {
			return err
		}
		cold, coldCPU = append(cold, d), append(coldCPU, cpu)
		if d, cpu, err = timeExec(self, modeNoop); err != nil {
			return err
		}
		noop, noopCPU = append(noop, d), append(noopCPU, cpu)
	}
	res.ColdQueryMS, res.ColdQueryP90 = median(cold), percentile(cold, 0.9)
	res.ColdQueryCPU = median(coldCPU)
	res.NoopMS, res.NoopCPU = median(noop), median(noopCPU)

	ix, err := search.OpenReadOnly(indexDir)
	if err != nil {
		return err
	}
	defer ix.Close()
	var warm []float64
	for i := 0; i < runs; i++ {
		start := time.Now()
		if _, err := ix.Search(queries[i%len(queries)], search.Options{Limit: 10}); err != nil {
			return err
		}
		warm = append(warm, ms(time.Since(start)))
	}
	res.WarmQueryMS = median(warm)

	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// timeExec runs this binary with args and returns how long it took and the
// CPU time (user and system) it used: on a busy machine the wall time
// includes waiting for a CPU, the CPU time does not.
func timeExec(self string, args ...string) (wall, cpu float64, err error) {
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %w", args, err)
	}
	wall = ms(time.Since(start))
	return wall, ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 { return percentile(xs, 0.5) }

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
