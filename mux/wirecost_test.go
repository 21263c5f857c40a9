package mux

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/mcpsh/mcp/internal/testenv"
)

// costShapes are requests of almost MaxRequest bytes, each of a shape
// that costs a reader of JSON most for its size: tiny values, nesting as
// deep as encoding/json reads, long strings plain and escaped, many small
// objects of many members, long names, and invoke's pairs.
func costShapes() map[string]string {
	call := `{"v":4,"op":"call","server":"fake","tool":"drop_table","args":`
	invoke := `{"v":4,"op":"invoke","server":"fake","tool":"drop_table","input":`
	deep := strings.Repeat("[", 9990) + strings.Repeat("]", 9990)
	deepObj := strings.Repeat(`{"a":`, 9990) + "0" + strings.Repeat("}", 9990)
	members := `{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0,"h":0,"i":0,"j":0}`
	return map[string]string{
		"zeros":          fill(call+`{"a":[`, "0", `]}}`),
		"zeros, args":    fill(call+`[`, "0", `]}`),
		"deep arrays":    fill(call+`{"a":[`, deep, `]}}`),
		"deep objects":   fill(call+`{"a":[`, deepObj, `]}}`),
		"long string":    fill(call+`{"a":"`, "x", `"}}`),
		"escapes":        fill(call+`{"a":"`, `\u00e9`, `"}}`),
		"objects":        fill(call+`{"a":[`, members, `]}}`),
		"pairs":          fill(invoke+`{"pairs":[`, `"a"`, `]}}`),
		"pairs, objects": fill(invoke+`{"pairs":[`, `{}`, `]}}`),
		"pairs, zeros":   fill(invoke+`{"base":{"a":[`, "0", `]}}}`),
		"long name":      fill(`{"v":4,"op":"status","`, "x", `":0}`),
		"escaped server": fill(`{"v":4,"op":"tools","server":"`, `\u00e9`, `"}`),
		"search text":    fill(`{"v":4,"op":"search","search":{"text":"`, "x", `"}}`),
		"zeros, v":       fill(`{"v":[`, "0", `],"op":"status"}`),
	}
}

// fill is prefix, then unit as many times as fit in MaxRequest (apart by
// commas when unit is a value), then suffix.
func fill(prefix, unit, suffix string) string {
	sep := ","
	if unit == "x" || strings.HasPrefix(unit, `\`) {
		sep = ""
	}
	n := (MaxRequest - len(prefix) - len(suffix) - 16) / (len(unit) + len(sep))
	return prefix + strings.Repeat(unit+sep, n-1) + unit + suffix
}

// A request costs the multiplexer a bounded multiple of its size,
// whatever its shape: reading one of MaxRequest allocates less than eight
// times its size. Checking its names once built a tree of all of it, a
// GiB for a request of 4 MiB of [0,0,…].
func TestReadRequest_cost(t *testing.T) {
	for name, req := range costShapes() {
		got := testenv.Allocated(func() { _, _, _ = readRequest(strings.NewReader(req)) })
		if ratio := float64(got) / float64(len(req)); ratio >= 8 {
			t.Errorf("%s: reading a request of %d bytes allocated %d MiB, %.1f times its size", name, len(req), got>>20, ratio)
		}
	}
}

// BenchmarkReadRequest reports, for each shape of costShapes, the bytes
// one request allocates (B/op) and that as a multiple of its size.
func BenchmarkReadRequest(b *testing.B) {
	for name, req := range costShapes() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(req)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				_, _, _ = readRequest(strings.NewReader(req))
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(req)), "x-size")
		})
	}
}

// treeNames is exactNames as it was, on a tree of all of raw (hujson):
// the oracle of FuzzExactNames.
func treeNames(raw json.RawMessage, names []string, nested map[string][]string) error {
	v, err := hujson.Parse(raw)
	if err != nil {
		return nil
	}
	return treeMembers(v.Value, names, nested)
}

func treeMembers(v hujson.ValueTrimmed, names []string, nested map[string][]string) error {
	obj, ok := v.(*hujson.Object)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	for _, m := range obj.Members {
		lit, ok := m.Name.Value.(hujson.Literal)
		if !ok {
			return nil
		}
		name := lit.String()
		switch {
		case seen[name]:
			return &BadRequestError{Reason: fmt.Sprintf("it has the field %s twice", quoted(name))}
		case !slices.Contains(names, name):
			return &BadRequestError{Reason: "it has a field the protocol does not know: " + quoted(name)}
		}
		seen[name] = true
		if sub, ok := nested[name]; ok {
			if err := treeMembers(m.Value.Value, sub, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// FuzzExactNames: of any JSON text a decoder takes as a value (all that
// readRequest checks), exactNames, which reads it in place, says what
// the tree of it said (treeNames), word for word. The count of pairs is
// the decoder's count.
func FuzzExactNames(f *testing.F) {
	for _, s := range []string{
		`{"v":4,"op":"status","op":"stop"}`, `{"v":4,"op":"search","search":{"text":"x","Dir":"/"}}`,
		`{"input":{"pairs":[],"pairs":["a=1"]},"V":1}`, `{"args":{"op":1,"op":2},"\u006fp":"x","op":3}`,
		`{"search":[{"x":1}],"input":"x","ſerver":1}`, "{\"\xff\":1}", ` {"v" : [{"a":"}"}] , "x\"":0} `,
		`{"input":{"pairs":["a",{"b":[]},3],"base":{}}}`, `{"\u0069nput":{"p\u0061irs":["a"]}}`, `[{"x":1}]`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	nested := map[string][]string{"input": inputNames, "search": searchNames}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			_ = exactNames(data, requestNames, nested)
			_ = pairsIn(data)
			return
		}
		got, want := exactNames(data, requestNames, nested), treeNames(data, requestNames, nested)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: exactNames says %v, the tree %v", data, got, want)
		}
		var req struct {
			Input struct{ Pairs []json.RawMessage }
		}
		if got == nil && json.Unmarshal(data, &req) == nil && pairsIn(data) != len(req.Input.Pairs) {
			t.Fatalf("%s: %d pairs, the decoder reads %d", data, pairsIn(data), len(req.Input.Pairs))
		}
	})
}

// An invoke's pairs are bounded by their count too: each costs more than
// its bytes of JSON once decoded.
func TestReadRequest_pairs(t *testing.T) {
	invoke := func(n int) string {
		return `{"v":4,"op":"invoke","server":"a","tool":"b","input":{"pairs":[` + strings.Repeat(`"k=v",`, n-1) + `"k=v"]}}`
	}
	if req, _, err := readRequest(strings.NewReader(invoke(maxPairs))); err != nil || len(req.Input.Pairs) != maxPairs {
		t.Errorf("%d pairs: %v", maxPairs, err)
	}
	// However the names are written.
	for _, req := range []string{invoke(maxPairs + 1), strings.Replace(invoke(maxPairs+1), `"input":{"pairs"`, `"\u0069nput":{"p\u0061irs"`, 1)} {
		_, _, err := readRequest(strings.NewReader(req))
		var bad *BadRequestError
		if !errors.As(err, &bad) || bad.Reason != "its input has 10001 pairs, and the multiplexer takes at most 10000" {
			t.Errorf("%d pairs: %v (%.80s)", maxPairs+1, err, req)
		}
	}
}
