package script

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/dop251/goja"

	"github.com/mcpsh/mcp/catalog"
)

// allowed resolves a server id and a tool name as the program spelled them
// ("-" and "_" are the same, in a tool name where that names one tool) and
// checks the tool against the session's surface.
func (e *engine) allowed(server, tool string) (id, name string, ok bool) {
	id, ok = e.servers[norm(server)]
	if !ok {
		return "", "", false
	}
	name, ok = e.resolve(id, tool)
	return id, name, ok
}

// unavailable is why server could not be reached at the start, if it
// could not.
func (e *engine) unavailable(server string) error {
	id, ok := e.servers[norm(server)]
	if !ok {
		return nil
	}
	return e.h.Unavailable(id)
}

// callTarget is mcp.call("server.tool", args) and mcp.callRaw(...).
func (e *engine) callTarget(c goja.FunctionCall, raw bool) goja.Value {
	target := c.Argument(0)
	name := "mcp.call"
	if raw {
		name = "mcp.callRaw"
	}
	s := ""
	if _, ok := target.Export().(string); ok {
		s = target.String()
	}
	server, tool, ok := strings.Cut(s, ".")
	if !ok || server == "" || tool == "" {
		return e.rejectedWith(e.vm.NewTypeError(name+`: the first argument must be "server.tool"`), nil)
	}
	return e.call(server, tool, c.Argument(1), raw)
}

// rejectedWith is a promise already rejected with obj; goErr, if any, is
// what ProgramError.Err reports should the rejection go uncaught.
func (e *engine) rejectedWith(obj *goja.Object, goErr error) goja.Value {
	if goErr != nil {
		e.errs[obj] = goErr
	}
	p, _, reject := e.vm.NewPromise()
	if err := reject(obj); err != nil {
		panic(err)
	}
	return e.vm.ToValue(p)
}

// call starts one tool call and returns its promise. The call runs on its
// own goroutine; its result is settled on the VM's goroutine.
func (e *engine) call(server, tool string, argv goja.Value, raw bool) goja.Value {
	// Made now, so that an uncaught failure points at the call.
	errObj := e.newError(e.errorCtor, "")
	id, name, ok := e.allowed(server, tool)
	if down := e.unavailable(server); !ok && down != nil {
		e.describe(errObj, "UnavailableError", down.Error(), server, tool)
		return e.rejectedWith(errObj, down)
	}
	if !ok {
		na := e.notAvailableTool(server, tool)
		e.describe(errObj, "NotAvailableError", na.Error(), server, tool)
		return e.rejectedWith(errObj, na)
	}
	tool = name
	var args json.RawMessage
	if !goja.IsUndefined(argv) && !goja.IsNull(argv) {
		obj, isObj := argv.(*goja.Object)
		_, isFn := goja.AssertFunction(argv)
		if !isObj || isFn || obj.ClassName() == "Array" {
			return e.rejectedWith(e.vm.NewTypeError(id+"."+tool+": the arguments must be an object"), nil)
		}
		s, err := e.jsonStringify(goja.Undefined(), argv)
		if err != nil {
			if ex, ok := err.(*goja.Exception); ok {
				if o, ok := ex.Value().(*goja.Object); ok {
					return e.rejectedWith(o, nil)
				}
			}
			panic(err)
		}
		args = json.RawMessage(s.String())
	}
	e.calls++
	if e.lim.MaxCalls > 0 && e.calls > e.lim.MaxCalls {
		e.abort(&LimitError{Kind: "calls", Limit: int64(e.lim.MaxCalls)})
		return goja.Undefined()
	}

	p, resolve, reject := e.vm.NewPromise()
	e.pendingCalls++
	ctx := e.ctx
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if e.sem != nil {
			select {
			case e.sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
		res, err := e.h.Call(ctx, id, tool, args)
		if e.sem != nil {
			<-e.sem
		}
		e.post(func() error {
			e.pendingCalls--
			v, rej := e.outcome(errObj, id, tool, raw, res, err)
			if rej {
				return reject(v)
			}
			return resolve(v)
		})
	}()
	return e.vm.ToValue(p)
}

// outcome turns a call's result into the value its promise settles with,
// and says whether that is a rejection.
func (e *engine) outcome(errObj *goja.Object, id, tool string, raw bool, res *catalog.Result, err error) (goja.Value, bool) {
	if err == nil && res == nil {
		res = &catalog.Result{}
	}
	if err != nil {
		e.errs[errObj] = err
		e.describe(errObj, errorName(err), err.Error(), id, tool)
		return errObj, true
	}
	if res.IsError {
		msg := res.Text()
		if msg == "" {
			msg = id + "." + tool + " reported an error"
		}
		e.errs[errObj] = &ToolError{Server: id, Tool: tool, Msg: msg, Result: res}
		e.describe(errObj, "ToolError", msg, id, tool)
		_ = errObj.Set("isToolError", true)
		if v, err := e.parse(res.Object()); err == nil {
			_ = errObj.Set("result", v)
		}
		return errObj, true
	}
	if !raw {
		if err := e.saveContent(id, tool, res); err != nil {
			e.errs[errObj] = err
			e.describe(errObj, "HostError", id+"."+tool+": "+err.Error(), id, tool)
			return errObj, true
		}
	}
	var v goja.Value
	switch {
	case raw:
		v, err = e.parse(res.Object())
	case len(bytes.TrimSpace(res.Structured)) > 0 && string(bytes.TrimSpace(res.Structured)) != "null":
		v, err = e.parse(res.Structured)
	default:
		e.noteJSONText(id, tool, res)
		v = e.vm.ToValue(res.Text())
	}
	if err != nil {
		e.errs[errObj] = err
		e.describe(errObj, "HostError", id+"."+tool+" returned a result that is not valid JSON", id, tool)
		return errObj, true
	}
	return v, false
}

// describe fills in an Error made by newError. isToolError is false except
// for tool errors, which set it afterwards.
func (e *engine) describe(obj *goja.Object, name, msg, server, tool string) {
	_ = obj.Set("name", name)
	_ = obj.Set("message", msg)
	_ = obj.Set("isToolError", false)
	_ = obj.Set("server", server)
	_ = obj.Set("tool", tool)
}

// parse is the program's own JSON.parse, so values are plain JS objects.
func (e *engine) parse(b []byte) (goja.Value, error) {
	return e.jsonParse(goja.Undefined(), e.vm.ToValue(string(b)))
}

// search is mcp.search(query, limit?): an array of tools, best first.
func (e *engine) search(c goja.FunctionCall) goja.Value {
	q := c.Argument(0)
	if goja.IsUndefined(q) || goja.IsNull(q) {
		panic(e.vm.NewTypeError("mcp.search: a query is required"))
	}
	limit := defaultSearchLimit
	if l := c.Argument(1); !goja.IsUndefined(l) && !goja.IsNull(l) {
		if n := l.ToInteger(); n > 0 && n < 1000 {
			limit = int(n)
		} else if n >= 1000 {
			limit = 1000
		}
	}
	tools, err := e.h.Search(e.ctx, q.String(), limit)
	if err != nil {
		panic(e.hostError(err))
	}
	return e.toolList(tools)
}

// list is mcp.list(server?): the authorized tools of one server, or of all.
func (e *engine) list(c goja.FunctionCall) goja.Value {
	server := ""
	if a := c.Argument(0); !goja.IsUndefined(a) && !goja.IsNull(a) {
		id, ok := e.servers[norm(a.String())]
		if !ok {
			panic(e.notAvailable(a.String(), ""))
		}
		server = id
	}
	tools, err := e.h.List(e.ctx, server)
	if err != nil {
		panic(e.hostError(err))
	}
	return e.toolList(tools)
}

// notAvailable is the Error a program gets for server.tool (or a server,
// with tool "") outside the surface, as mcp.call rejects with it.
func (e *engine) notAvailable(server, tool string) *goja.Object {
	na := e.notAvailableTool(server, tool)
	obj := e.newError(e.errorCtor, "")
	e.describe(obj, "NotAvailableError", na.Error(), server, tool)
	e.errs[obj] = na
	return obj
}

func (e *engine) hostError(err error) *goja.Object {
	obj := e.newError(e.errorCtor, "")
	e.describe(obj, "HostError", err.Error(), "", "")
	e.errs[obj] = err
	return obj
}

// toolList keeps the authorized tools and gives them to the program as
// plain objects {server, name, description, inputSchema}.
func (e *engine) toolList(tools []catalog.Tool) goja.Value {
	type entry struct {
		Server      string          `json:"server"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	out := []entry{}
	for _, t := range tools {
		id, name, ok := e.allowed(t.Server, t.Name)
		if !ok || name != t.Name {
			continue
		}
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = json.RawMessage("null")
		}
		out = append(out, entry{id, t.Name, t.Description, schema})
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(e.hostError(err))
	}
	v, err := e.parse(b)
	if err != nil {
		panic(err)
	}
	return v
}
