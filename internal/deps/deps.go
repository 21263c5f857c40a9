//go:build tools

// Package deps pins the modules the project builds on, so that parallel work
// on different packages never races to add them.
package deps

import (
	_ "github.com/alecthomas/kong"
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/dop251/goja"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/mark3labs/mcp-go/client"
	_ "github.com/mark3labs/mcp-go/server"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/sync/errgroup"
)
