package catalog

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestDecodeTool(t *testing.T) {
	raw := json.RawMessage(`{"name":"t","annotations":{"title":"From annotations"},"inputSchema":{"$schema":"x","type":"object"},"outputSchema":null,"x-vendor":1}`)
	tl, err := DecodeTool("srv", raw)
	if err != nil {
		t.Fatal(err)
	}
	if tl.Title != "From annotations" || string(tl.InputSchema) != `{"$schema":"x","type":"object"}` || tl.OutputSchema != nil || !bytes.Equal(tl.Raw, raw) {
		t.Errorf("tool = %+v", tl)
	}
	for _, bad := range []string{`{}`, `{"name":""}`, `{"name":3}`, `[]`, `null`} {
		if _, err := DecodeTool("srv", json.RawMessage(bad)); err == nil {
			t.Errorf("DecodeTool(%s): no error", bad)
		}
	}
}

func FuzzDecodeTool(f *testing.F) {
	f.Add([]byte(`{"name":"echo","title":"Echo","inputSchema":{"type":"object"}}`))
	f.Add([]byte(`{"name":"x","annotations":"not an object"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		tl, err := DecodeTool("s", b)
		if err == nil && (tl.Name == "" || !bytes.Equal(tl.Raw, b)) {
			t.Errorf("DecodeTool(%s) = %+v", b, tl)
		}
	})
}
