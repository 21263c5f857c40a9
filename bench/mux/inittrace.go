//go:build linux

package main

import (
	"bufio"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// initLine is one line GODEBUG=inittrace=1 prints for a package's init:
//
//	init github.com/x/y @8.8 ms, 7.3 ms clock, 1701872 bytes, 21293 allocs
var initLine = regexp.MustCompile(`^init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs$`)

// pkgInit is what one package's init cost in one process.
type pkgInit struct {
	pkg    string
	at     float64 // ms since the process started
	clock  float64 // ms
	bytes  int64
	allocs int64
}

// parseInitTrace reads the init lines of one process's stderr; other lines
// are ignored.
func parseInitTrace(stderr string) ([]pkgInit, error) {
	var out []pkgInit
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		m := initLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		at, err1 := strconv.ParseFloat(m[2], 64)
		clock, err2 := strconv.ParseFloat(m[3], 64)
		bytes, err3 := strconv.ParseInt(m[4], 10, 64)
		allocs, err4 := strconv.ParseInt(m[5], 10, 64)
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return nil, fmt.Errorf("inittrace line %q: %v", sc.Text(), err)
			}
		}
		out = append(out, pkgInit{pkg: m[1], at: at, clock: clock, bytes: bytes, allocs: allocs})
	}
	return out, sc.Err()
}

// initCost is one package's init over many processes.
type initCost struct {
	pkg         string
	clock       float64 // median ms
	bytes       int64   // median
	allocs      int64   // median
	runs, total int     // processes it was seen in, of all
}

// initSummary is the inits of many processes of one binary.
type initSummary struct {
	pkgs  []initCost // most expensive first
	sum   float64    // median over processes of the clock of all inits
	end   float64    // median over processes of when the last init finished (ms)
	count int        // packages with an init
}

// summarize aggregates the traces of several processes.
func summarize(traces [][]pkgInit) initSummary {
	type acc struct{ clock, bytes, allocs []float64 }
	by := map[string]*acc{}
	var sums, ends []float64
	for _, tr := range traces {
		var sum, end float64
		for _, p := range tr {
			a := by[p.pkg]
			if a == nil {
				a = &acc{}
				by[p.pkg] = a
			}
			a.clock = append(a.clock, p.clock)
			a.bytes = append(a.bytes, float64(p.bytes))
			a.allocs = append(a.allocs, float64(p.allocs))
			sum += p.clock
			end = max(end, p.at+p.clock)
		}
		sums, ends = append(sums, sum), append(ends, end)
	}
	s := initSummary{sum: median(sums), end: median(ends), count: len(by)}
	for pkg, a := range by {
		s.pkgs = append(s.pkgs, initCost{
			pkg: pkg, clock: median(a.clock), bytes: int64(median(a.bytes)), allocs: int64(median(a.allocs)),
			runs: len(a.clock), total: len(traces),
		})
	}
	slices.SortFunc(s.pkgs, func(a, b initCost) int {
		return cmp.Or(cmp.Compare(b.clock, a.clock), cmp.Compare(b.bytes, a.bytes), strings.Compare(a.pkg, b.pkg))
	})
	return s
}
