package main

import "errors"

type serveCmd struct{}

func (serveCmd) Run(a *app) error { return errors.New("mcp serve is not built yet") }
