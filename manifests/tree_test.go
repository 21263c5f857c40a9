package manifests

import (
	"strings"
	"testing"
)

// minified is a file at the size limit that is one line of many values.
func minified() string {
	var b strings.Builder
	b.WriteString(`{"other": [`)
	for b.Len() < maxFileSize-100 {
		b.WriteString(`"é",1,`)
	}
	b.WriteString(`0], "mcpServers": {"a": {"command": "x"}}}`)
	return b.String()
}

// A minified file must be read in time linear in its size: positions are
// counted on from the previous value, not from the start of the line. (A
// quadratic count would make this test run for minutes.)
func TestParseServers_LongLine(t *testing.T) {
	src := minified()
	eps, err := readServers(strings.NewReader(src), "min.json", "mcpServers")
	if err != nil || len(eps) != 1 {
		t.Fatalf("%v %v", eps, err)
	}
	want := len([]rune(src[:strings.Index(src, `"a"`)])) + 1
	if p := eps[0].Pos; p.Line != 1 || p.Col != want {
		t.Errorf("pos %v, want 1:%d", p, want)
	}
}

func TestParseJSON_Positions(t *testing.T) {
	src := "{\r\n\t\"ä\": [1,\n  {\"k\" :\"v\"}],\n\"n\": null}"
	n, err := parseJSON([]byte(src), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	list := n.members[0].val
	obj := list.items[1]
	got := []Pos{n.pos("f.json"), n.members[0].pos("f.json"), list.pos("f.json"), list.items[0].pos("f.json"),
		obj.pos("f.json"), obj.members[0].pos("f.json"), obj.members[0].val.pos("f.json"), n.members[1].pos("f.json")}
	want := []string{"f.json:1:1", "f.json:2:2", "f.json:2:7", "f.json:2:8", "f.json:3:3", "f.json:3:4", "f.json:3:9", "f.json:4:1"}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("value %d at %s, want %s", i, got[i], want[i])
		}
	}
}

func TestParseJSON_Depth(t *testing.T) {
	src := strings.Repeat("[", maxDepth+5) + strings.Repeat("]", maxDepth+5)
	_, err := parseJSON([]byte(src), "d.json")
	wantErrs(t, err, "d.json:1:202: values are nested more than 200 deep")
}

func BenchmarkParseServers_Minified(b *testing.B) {
	src := minified()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := readServers(strings.NewReader(src), "min.json", "mcpServers"); err != nil {
			b.Fatal(err)
		}
	}
}
