package search

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func terms(t *testing.T, text string) []string {
	t.Helper()
	tok, err := newWordTokenizer(map[string]interface{}{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tk := range tok.Tokenize([]byte(text)) {
		out = append(out, string(tk.Term))
	}
	return out
}

func TestWordTokenizer_Tokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"get_current_stock_price", []string{"get", "current", "stock", "price"}},
		{"get-weibo-trending", []string{"get", "weibo", "trending"}},
		{"server.tool.name", []string{"server", "tool", "name"}},
		{"getHTTPResponse", []string{"get", "http", "response", "gethttpresponse"}},
		{"GitHub", []string{"git", "hub", "github"}},
		{"utf8Decode base64", []string{"utf8", "decode", "utf8decode", "base64"}},
		{"playwright_click_and_switch_tab", []string{"playwright", "click", "and", "switch", "tab"}},
		{"Apple's stock", []string{"apple", "stock"}},
		{"don't STOP", []string{"dont", "stop"}},
		{"a b c x-y z", nil},                                    // one-character words are dropped
		{"n8n s3 ec2 k8s", []string{"n8n", "s3", "ec2", "k8s"}}, // letters and digits stay whole
		{"searchMastraDocs", []string{"search", "mastra", "docs", "searchmastradocs"}},
		{"/root/ppt/apple.pptx", []string{"root", "ppt", "apple", "pptx"}},
		{"八字", []string{"八字"}},               // CJK: pairs of characters
		{"获取股票", []string{"获取", "取股", "股票"}}, // overlapping pairs
		{"字", []string{"字"}},                 // a lone character stays
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, terms(t, tt.in)); diff != "" {
			t.Errorf("Tokenize(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestWordTokenizer_DropsBlobs(t *testing.T) {
	blob := strings.Repeat("aGVsbG8gd29ybGQ", 20) // base64-looking, 300 characters
	if got := terms(t, "image "+blob+" data"); !cmp.Equal(got, []string{"image", "data"}) {
		t.Errorf("blob not dropped: %q", got)
	}
}

func TestWordTokenizer_InvalidUTF8(t *testing.T) {
	got := terms(t, "ok\xff\xfeword")
	if !cmp.Equal(got, []string{"ok", "word"}) {
		t.Errorf("got %q", got)
	}
}

func TestCamelParts(t *testing.T) {
	tests := map[string][]string{
		"fooBar":     {"foo", "Bar"},
		"HTTPServer": {"HTTP", "Server"},
		"MP3Player":  {"MP3", "Player"},
		"lowercase":  {"lowercase"},
		"ABC":        {"ABC"},
		"npmDeps":    {"npm", "Deps"},
	}
	for in, want := range tests {
		if got := camelParts(in); !cmp.Equal(got, want) {
			t.Errorf("camelParts(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParamText(t *testing.T) {
	schema := `{"type":"object","properties":{
		"query":{"type":"string","description":"Search words"},
		"format":{"type":"string","enum":["pdf","docx"]},
		"filter":{"type":"object","properties":{"since":{"description":"Start date"}}},
		"items":{"type":"array","items":{"properties":{"sku":{"description":"Stock keeping unit"}}}}}}`
	got := paramText([]byte(schema))
	for _, want := range []string{"query", "Search words", "pdf", "docx", "since", "Start date", "sku", "Stock keeping unit"} {
		if !strings.Contains(got, want) {
			t.Errorf("paramText lacks %q:\n%s", want, got)
		}
	}
	if paramText([]byte(`not json`)) != "" || paramText(nil) != "" {
		t.Error("bad schema should give no text")
	}
}
