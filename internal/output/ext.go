package output

import (
	"mime"
	"strings"
)

// commonExt is the extension a saved file of a common type gets, whatever
// the machine's mime.types says: mime.ExtensionsByType reads the system's
// tables, where JPEG's extensions include .pjpeg and MP3's .mpga.
var commonExt = map[string]string{
	"image/jpeg":       ".jpg",
	"image/jpg":        ".jpg",
	"image/png":        ".png",
	"image/gif":        ".gif",
	"image/webp":       ".webp",
	"image/svg+xml":    ".svg",
	"audio/mpeg":       ".mp3",
	"audio/mp3":        ".mp3",
	"audio/wav":        ".wav",
	"audio/wave":       ".wav",
	"audio/x-wav":      ".wav",
	"audio/ogg":        ".ogg",
	"application/pdf":  ".pdf",
	"application/json": ".json",
	"text/plain":       ".txt",
	"text/markdown":    ".md",
	"text/html":        ".html",
	"text/csv":         ".csv",
}

// Ext is the extension a file of mimeType is saved with: the fixed one of
// a common type, else the machine's last for it, else def.
func Ext(mimeType, def string) string {
	base, _, _ := strings.Cut(mimeType, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	if ext, ok := commonExt[base]; ok {
		return ext
	}
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		return exts[len(exts)-1]
	}
	return def
}
