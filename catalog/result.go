package catalog

import (
	"encoding/json"
	"errors"
	"strings"
)

// DecodeTool decodes one tool of a tools/list result. Raw keeps the object
// exactly as the server sent it; a missing title falls back to the
// annotations' title.
func DecodeTool(server string, raw json.RawMessage) (Tool, error) {
	var t struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
		Execution    json.RawMessage `json:"execution"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return Tool{}, err
	}
	if t.Name == "" {
		return Tool{}, errors.New("tool without a name")
	}
	if t.Title == "" && len(t.Annotations) > 0 {
		var a struct {
			Title string `json:"title"`
		}
		if json.Unmarshal(t.Annotations, &a) == nil {
			t.Title = a.Title
		}
	}
	return Tool{
		Server:       server,
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  nonNull(t.InputSchema),
		OutputSchema: nonNull(t.OutputSchema),
		TaskSupport:  taskSupport(t.Execution),
		Raw:          raw,
	}, nil
}

// taskSupport is the taskSupport of a tool's execution object. A value
// the protocol does not define, or an execution that is not an object of
// that shape, is a plain call: it costs the tool nothing else.
func taskSupport(execution json.RawMessage) TaskSupport {
	var e struct {
		TaskSupport TaskSupport `json:"taskSupport"`
	}
	if json.Unmarshal(execution, &e) != nil {
		return TaskForbidden
	}
	switch e.TaskSupport {
	case TaskOptional, TaskRequired:
		return e.TaskSupport
	}
	return TaskForbidden
}

// Result is a tools/call result. Raw holds the result object exactly as the
// server sent it, so content types this program does not know survive.
type Result struct {
	Raw     json.RawMessage
	IsError bool
	// Content is Raw's content array, item by item.
	Content []json.RawMessage
	// Structured is Raw's structuredContent, if any, byte for byte.
	Structured json.RawMessage
}

// ParseResult splits a raw tools/call result into its parts; Raw keeps it
// whole.
func ParseResult(raw json.RawMessage) (*Result, error) {
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	return &Result{Raw: raw, IsError: res.IsError, Content: res.Content, Structured: nonNull(res.StructuredContent)}, nil
}

// Object is the whole result object: Raw, or one built from the parts of
// a Result that has none.
func (r *Result) Object() json.RawMessage {
	if len(r.Raw) > 0 {
		return r.Raw
	}
	obj := map[string]any{"content": r.Content, "isError": r.IsError}
	if r.Content == nil {
		obj["content"] = []json.RawMessage{}
	}
	if len(r.Structured) > 0 {
		obj["structuredContent"] = r.Structured
	}
	b, _ := json.Marshal(obj)
	return b
}

// Text joins the result's text items with "\n".
func (r *Result) Text() string {
	var parts []string
	for _, it := range r.Items() {
		if it.Type == "text" {
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Items decodes the content items. An item that is not a JSON object of
// this shape is left out; Raw keeps each item as the server sent it.
func (r *Result) Items() []Content {
	out := make([]Content, 0, len(r.Content))
	for _, raw := range r.Content {
		var it Content
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		it.Raw = raw
		out = append(out, it)
	}
	return out
}

// Content is one content item of a result: text, image, audio, resource
// (embedded) or resource_link, or a type this program does not know, which
// only Raw describes.
type Content struct {
	Type     string           `json:"type"`
	Text     string           `json:"text"`
	Data     string           `json:"data"` // base64, for image and audio
	MimeType string           `json:"mimeType"`
	URI      string           `json:"uri"`  // resource_link
	Name     string           `json:"name"` // resource_link
	Resource *EmbeddedContent `json:"resource"`
	Raw      json.RawMessage  `json:"-"`
}

// EmbeddedContent is the resource of a resource item: text or a base64 blob.
type EmbeddedContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Blob     string `json:"blob"`
}

func nonNull(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || string(m) == "null" {
		return nil
	}
	return m
}
