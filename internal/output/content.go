package output

import (
	"fmt"

	"github.com/mcpsh/mcp/catalog"
)

// SaveMedia saves a content item whose data is not text to print (an
// image, audio, an embedded resource's blob) and returns the line that
// names the file; ok is false for any other item, which it leaves alone.
func SaveMedia(target string, it catalog.Content) (line string, ok bool, err error) {
	switch {
	case it.Type == "image" || it.Type == "audio":
		line, err = SaveBlob(target, it.Type, it.MimeType, it.Data)
	case it.Type == "resource" && it.Resource != nil && it.Resource.Blob != "":
		line, err = SaveBlob(target, "resource "+it.Resource.URI, it.Resource.MimeType, it.Resource.Blob)
	default:
		return "", false, nil
	}
	return line, true, err
}

// SaveResourceText saves the text of an embedded resource and returns the
// line that names the file.
func SaveResourceText(target string, r *catalog.EmbeddedContent) (string, error) {
	path, err := Save(target, Ext(r.MimeType, ".txt"), []byte(r.Text))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("[resource %s saved to %s (%s, %s)]", r.URI, path, orUnknown(r.MimeType), FormatSize(int64(len(r.Text)))), nil
}

// LinkLine is the line that names a resource link.
func LinkLine(it catalog.Content) string {
	line := "[resource link: " + it.URI
	if it.Name != "" {
		line += " (" + it.Name + ")"
	}
	return line + "]"
}
