package output

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsh/mcp/catalog"
)

// Saved files of the common types carry the extension everyone expects,
// whatever the machine's mime.types holds (Debian's gives JPEG .pjpeg and
// MP3 .mpga as their last).
func TestSaveBlob_commonExtensions(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	data := base64.StdEncoding.EncodeToString([]byte("data"))
	for mimeType, want := range map[string]string{
		"image/jpeg":                ".jpg",
		"image/png":                 ".png",
		"image/gif":                 ".gif",
		"image/webp":                ".webp",
		"audio/mpeg":                ".mp3",
		"audio/wav":                 ".wav",
		"audio/x-wav":               ".wav",
		"application/pdf":           ".pdf",
		"application/json":          ".json",
		"text/plain; charset=utf-8": ".txt",
		"IMAGE/JPEG":                ".jpg",
		"":                          ".bin",
	} {
		line, err := SaveBlob("s.t", "image", mimeType, data)
		if err != nil {
			t.Fatalf("%s: %v", mimeType, err)
		}
		path := strings.Fields(strings.TrimPrefix(line, "[image saved to "))[0]
		if got := filepath.Ext(path); got != want {
			t.Errorf("%q saved as %s, want %s", mimeType, got, want)
		}
	}
	line, err := SaveResourceText("s.t", &catalog.EmbeddedContent{URI: "file:///a", MimeType: "application/json", Text: "{}"})
	if err != nil || !strings.Contains(line, ".json (application/json") {
		t.Errorf("resource text: %q, %v", line, err)
	}
}
