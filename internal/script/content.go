package script

import (
	"fmt"

	"github.com/mcpsh/mcp/catalog"
	"github.com/mcpsh/mcp/internal/output"
)

// saveContent keeps what a call's value leaves out, which is everything
// but its text: images, audio and embedded resources are saved to files
// as mcp call saves them, and each of those and every resource link is
// named on stderr, after the tool that returned it. The program gets the
// whole result, data included, from mcp.callRaw, which saves nothing.
func (e *engine) saveContent(id, tool string, res *catalog.Result) error {
	target := id + "." + tool
	for _, it := range res.Items() {
		line, ok, err := output.SaveMedia(target, it)
		switch {
		case err != nil:
			return err
		case ok:
		case it.Type == "text":
			continue
		case it.Type == "resource" && it.Resource != nil:
			if line, err = output.SaveResourceText(target, it.Resource); err != nil {
				return err
			}
		case it.Type == "resource_link":
			line = output.LinkLine(it)
		default:
			line = fmt.Sprintf("[content of type %q left out; mcp.callRaw returns it]", it.Type)
		}
		_, _ = fmt.Fprintln(e.stderr, target+": "+line)
	}
	return nil
}
