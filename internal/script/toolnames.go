package script

import (
	"regexp"
	"strconv"

	"github.com/dop251/goja"

	"github.com/mcpsh/mcp/catalog"
)

// Tool names as a program spells them: "_" for the tool's "-" and the
// other way round reach the tool where that names one (catalog.MatchTool),
// and a name that names none is answered with the forms that work for the
// tools it most likely meant, all of them the surface's.

// resolve is the authorized tool of server id that name means.
func (e *engine) resolve(id, name string) (string, bool) {
	return catalog.MatchTool(name, e.tools[id])
}

// aliased is the method of server id that name means when it is not the
// tool's own name ("list_connections" for list-connections), or nil.
func (e *engine) aliased(target *goja.Object, id, name string) goja.Value {
	tool, ok := e.resolve(id, name)
	if !ok || tool == name {
		return nil
	}
	return target.Get(tool)
}

// notAvailableTool is the error for server.tool outside the surface, with
// the tools the program most likely meant written as it can call them.
func (e *engine) notAvailableTool(server, tool string) *catalog.NotAvailableError {
	na := e.h.NotAvailable(server, tool)
	id, ok := e.servers[norm(server)]
	if !ok || tool == "" {
		return na
	}
	names := catalog.SuggestTools(tool, e.tools[id])
	for _, name := range names {
		forms := e.callForms(id, name)
		if len(names) > 1 {
			// One form each, the method when there is one, keeps the
			// line short.
			forms = forms[len(forms)-1:]
		}
		na.Suggest = append(na.Suggest, forms...)
	}
	return na
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// callForms are the ways a program calls server id's tool: as a method
// when the name is an identifier; else by index, and then as a method
// under the name with "_" for "-" when that names the tool alone.
func (e *engine) callForms(id, tool string) []string {
	obj := id
	switch {
	case identifier.MatchString(id):
	case identifier.MatchString(norm(id)):
		obj = norm(id)
	default:
		obj = "globalThis[" + strconv.Quote(id) + "]"
	}
	if identifier.MatchString(tool) {
		return []string{obj + "." + tool + "(...)"}
	}
	forms := []string{obj + "[" + strconv.Quote(tool) + "](...)"}
	if alias := norm(tool); identifier.MatchString(alias) {
		if found, ok := e.resolve(id, alias); ok && found == tool {
			forms = append(forms, obj+"."+alias+"(...)")
		}
	}
	return forms
}
