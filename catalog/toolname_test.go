package catalog

import (
	"slices"
	"testing"
)

func TestMatchTool(t *testing.T) {
	names := []string{"query-docs", "resolve_library_id", "list-items", "list_items", "a-b_c", "a_b-c"}
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"query-docs", "query-docs", true},
		{"query_docs", "query-docs", true},
		{"resolve-library-id", "resolve_library_id", true},
		{"list-items", "list-items", true}, // an exact name wins over its twin
		{"list_items", "list_items", true},
		{"a_b_c", "", false}, // two tools are the same but for "-" and "_"
		{"Query_Docs", "", false},
		{"query", "", false},
	}
	for _, tt := range tests {
		got, ok := MatchTool(tt.name, names)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("MatchTool(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSuggestTools(t *testing.T) {
	names := []string{"read_text_file", "read_media_file", "list-connections", "list-databases", "list_collections", "a-b_c", "a_b-c", "x"}
	tests := []struct {
		name string
		want []string
	}{
		{"read_text_flie", []string{"read_text_file"}},
		{"read-text-fil", []string{"read_text_file"}},
		{"list", []string{"list-connections", "list-databases"}},
		{"a_b_c", []string{"a-b_c", "a_b-c"}},
		{"y", nil}, // one edit, but as many as the name has characters
		{"delete_everything", nil},
	}
	for _, tt := range tests {
		if got := SuggestTools(tt.name, names); !slices.Equal(got, tt.want) {
			t.Errorf("SuggestTools(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Suggestions are taken from the authorized names only, however close an
// unauthorized one is, and the error says them after its usual words.
func TestSurface_ResolveTool(t *testing.T) {
	s := &Surface{Session: true, Servers: []*ServerSurface{{ID: "fs", All: true, Exclude: []string{"read_secret_file"}}}}
	listed := []string{"read_text_file", "read_secret_file", "write-file"}
	if got, err := s.ResolveTool("fs", "write_file", listed); err != nil || got != "write-file" {
		t.Errorf("write_file = %q, %v", got, err)
	}
	_, err := s.ResolveTool("fs", "read_text_flie", listed)
	if want := "fs.read_text_flie is not available in this session (did you mean fs.read_text_file?)"; err == nil || err.Error() != want {
		t.Errorf("read_text_flie: %v, want %s", err, want)
	}
	_, err = s.ResolveTool("fs", "read_secret_flie", listed)
	if want := "fs.read_secret_flie is not available in this session"; err == nil || err.Error() != want {
		t.Errorf("read_secret_flie: %v, want %s", err, want)
	}
	if _, err := s.ResolveTool("fs", "read_secret_file", listed); err == nil || err.Error() != "fs.read_secret_file is not available in this session" {
		t.Errorf("read_secret_file: %v", err)
	}
}
