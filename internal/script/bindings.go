package script

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// setupSrc yields the function kinds whose prototypes carry a constructor
// that compiles strings (the engine has no async generators).
const setupSrc = `[function () {}, async function () {}, function* () {}]`

// setup installs the program's globals: the sandbox, console, timers, mcp
// and one object per authorized server.
func (e *engine) setup() error {
	vm := e.vm
	global := vm.GlobalObject()
	jsonObj := global.Get("JSON").ToObject(vm)
	e.jsonParse, _ = goja.AssertFunction(jsonObj.Get("parse"))
	e.jsonStringify, _ = goja.AssertFunction(jsonObj.Get("stringify"))
	e.errorCtor = global.Get("Error").ToObject(vm)
	e.evalErrorCtor = global.Get("EvalError").ToObject(vm)
	e.freeze, _ = goja.AssertFunction(global.Get("Object").ToObject(vm).Get("freeze"))
	if err := e.closeCodeGeneration(); err != nil {
		return err
	}

	console := vm.NewObject()
	for _, k := range []string{"log", "info", "warn", "error", "debug"} {
		_ = console.Set(k, e.consoleLog)
	}
	_ = global.Set("console", console)
	_ = global.Set("setTimeout", e.setTimeout)
	_ = global.Set("clearTimeout", e.clearTimeout)

	m := vm.NewObject()
	_ = m.Set("call", func(c goja.FunctionCall) goja.Value { return e.callTarget(c, false) })
	_ = m.Set("callRaw", func(c goja.FunctionCall) goja.Value { return e.callTarget(c, true) })
	_ = m.Set("search", e.search)
	_ = m.Set("list", e.list)
	_ = m.Set("json", e.jsonOf)
	e.frozen(m)
	_ = global.Set("mcp", m)

	surface := e.h.Tools()
	ids := make([]string, 0, len(surface))
	for id := range surface {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	e.tools = map[string][]string{}
	e.servers = map[string]string{}
	for _, id := range ids {
		if _, dup := e.servers[norm(id)]; dup {
			continue // the same server spelled twice; the first spelling wins
		}
		e.tools[id] = surface[id]
		e.servers[norm(id)] = id
	}
	for _, id := range ids {
		if e.servers[norm(id)] != id {
			continue
		}
		obj := e.serverObject(id)
		// A server never hides a builtin (JSON, console, mcp...); such a
		// server is still reachable through mcp.call.
		for _, name := range []string{id, norm(id)} {
			if global.Get(name) == nil {
				_ = global.Set(name, obj)
			}
		}
	}
	return nil
}

// norm maps a server id to its canonical spelling: "-" and "_" are the same.
func norm(id string) string { return strings.ReplaceAll(id, "-", "_") }

// closeCodeGeneration removes eval and replaces every constructor that
// compiles source text (Function, and those of async and generator
// functions) with one that throws, keeping instanceof working.
func (e *engine) closeCodeGeneration() error {
	vm := e.vm
	v, err := vm.RunScript("setup", setupSrc)
	if err != nil {
		return err
	}
	var fns []goja.Value
	if err := vm.ExportTo(v, &fns); err != nil {
		return err
	}
	for i, f := range fns {
		proto := f.ToObject(vm).Prototype()
		stub := vm.ToValue(func(goja.ConstructorCall) *goja.Object {
			panic(e.newError(e.evalErrorCtor, "code generation from strings is disabled in mcp run"))
		}).ToObject(vm)
		if err := stub.DefineDataProperty("prototype", proto, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return err
		}
		if err := proto.DefineDataProperty("constructor", stub, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
		if i == 0 {
			if err := vm.GlobalObject().Set("Function", stub); err != nil {
				return err
			}
		}
	}
	return vm.GlobalObject().Delete("eval")
}

// frozen freezes obj so that a program cannot replace tools by mistake.
func (e *engine) frozen(obj *goja.Object) {
	_, _ = e.freeze(goja.Undefined(), obj)
}

// serverObject has exactly the server's authorized tools as methods and no
// prototype, so `'drop_table' in warehouse` is false for anything else.
// Reading any other name throws the error mcp.call rejects with, so that
// `await warehouse.drop_table()` fails as `mcp.call("warehouse.drop_table")`
// does, not as a call of undefined. The names the language itself looks up
// on an object (implicitNames) read as undefined instead.
func (e *engine) serverObject(id string) *goja.Object {
	obj := e.vm.NewObject()
	_ = obj.SetPrototype(nil)
	for _, tool := range e.tools[id] {
		fn := func(c goja.FunctionCall) goja.Value { return e.call(id, tool, c.Argument(0), false) }
		_ = obj.DefineDataProperty(tool, e.vm.ToValue(fn), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	e.frozen(obj)
	proxy := e.vm.NewProxy(obj, &goja.ProxyTrapConfig{
		Get: func(target *goja.Object, name string, _ goja.Value) goja.Value {
			if v := target.Get(name); v != nil || implicitNames[name] {
				return v
			}
			if e.h.Unavailable(id) != nil {
				// Its tools are not known: any name is a call that
				// rejects with why.
				return e.vm.ToValue(func(c goja.FunctionCall) goja.Value { return e.call(id, name, c.Argument(0), false) })
			}
			if v := e.aliased(target, id, name); v != nil {
				return v
			}
			panic(e.notAvailable(id, name))
		},
	})
	return e.vm.ToValue(proxy).ToObject(e.vm)
}

// implicitNames are read on an object by the language and JSON, not by a
// program that means a tool: await and Promise.resolve look for then and
// constructor, JSON.stringify for toJSON, conversion to a string or number
// for toString and valueOf.
var implicitNames = map[string]bool{"then": true, "constructor": true, "toJSON": true, "toString": true, "valueOf": true}

// newError makes an Error from ctor with msg; made where the program called
// in, so that its stack points at the call.
func (e *engine) newError(ctor *goja.Object, msg string) *goja.Object {
	obj, err := e.vm.New(ctor, e.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return obj
}

// consoleLog writes its arguments to stderr: strings raw, other values as
// JSON, separated by spaces.
func (e *engine) consoleLog(c goja.FunctionCall) goja.Value {
	parts := make([]string, len(c.Arguments))
	for i, a := range c.Arguments {
		parts[i] = e.display(a)
	}
	_, _ = fmt.Fprintln(e.stderr, strings.Join(parts, " "))
	return goja.Undefined()
}

// setTimeout(fn, ms, ...args) runs fn on the job loop after ms. A timer
// never outlives the run: once the program has settled and no call is in
// flight, pending timers are dropped.
func (e *engine) setTimeout(c goja.FunctionCall) goja.Value {
	fn, ok := goja.AssertFunction(c.Argument(0))
	if !ok {
		panic(e.vm.NewTypeError("setTimeout: the callback must be a function"))
	}
	ms := c.Argument(1).ToInteger()
	switch {
	case ms < 0:
		ms = 0
	case ms > 1<<31-1: // as browsers and Node do
		ms = 1
	}
	var args []goja.Value
	if len(c.Arguments) > 2 {
		args = append(args, c.Arguments[2:]...)
	}
	e.nextTimer++
	id := e.nextTimer
	e.pendingTimers++
	e.timers[id] = time.AfterFunc(time.Duration(ms)*time.Millisecond, func() {
		e.post(func() error {
			if _, live := e.timers[id]; !live {
				return nil // cleared after it fired; clearTimeout counted it
			}
			delete(e.timers, id)
			e.pendingTimers--
			_, err := fn(goja.Undefined(), args...)
			return err
		})
	})
	return e.vm.ToValue(id)
}

func (e *engine) clearTimeout(c goja.FunctionCall) goja.Value {
	id := c.Argument(0).ToInteger()
	if t, ok := e.timers[id]; ok {
		t.Stop()
		delete(e.timers, id)
		e.pendingTimers--
	}
	return goja.Undefined()
}
