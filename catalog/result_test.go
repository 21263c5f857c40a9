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

func TestDecodeTool_taskSupport(t *testing.T) {
	tests := []struct {
		raw  string
		want TaskSupport
	}{
		{`{"name":"t","execution":{"taskSupport":"required"}}`, TaskRequired},
		{`{"name":"t","execution":{"taskSupport":"optional"}}`, TaskOptional},
		{`{"name":"t","execution":{"taskSupport":"forbidden"}}`, TaskForbidden},
		{`{"name":"t"}`, TaskForbidden},
		// What the protocol does not define is a plain call, and costs the
		// tool nothing else.
		{`{"name":"t","execution":{"taskSupport":"always"}}`, TaskForbidden},
		{`{"name":"t","execution":"required"}`, TaskForbidden},
		{`{"name":"t","execution":{"taskSupport":1}}`, TaskForbidden},
		{`{"name":"t","execution":null}`, TaskForbidden},
	}
	for _, tt := range tests {
		tl, err := DecodeTool("srv", json.RawMessage(tt.raw))
		if err != nil {
			t.Errorf("DecodeTool(%s): %v", tt.raw, err)
			continue
		}
		if tl.TaskSupport != tt.want {
			t.Errorf("DecodeTool(%s).TaskSupport = %q, want %q", tt.raw, tl.TaskSupport, tt.want)
		}
	}
}
