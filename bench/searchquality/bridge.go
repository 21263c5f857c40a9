package main

import "github.com/mcpsh/mcp/search"

// bridgeThings and bridgeActions are the vocabulary bridge: sets of words
// that software people use for one thing, and common abbreviations with the
// word they shorten. BM25 cannot know that a "picture" is an "image" or
// that "k8s" is "kubernetes"; with search.Ranking.Bridge, a query word of a
// set also counts the index words of the other members (the ablation's
// "bridge: …" rows measure the ways). mcp search does not use the bridge:
// no way of using it raised both halves of the task queries. The sets were
// written by hand from general knowledge of how software and its users name
// things, not from any benchmark's queries; a word belongs to at most one
// set, and a set holds only words that mean the same thing in nearly every
// context (so "page" or "open", which mean many things, are in no set).
// Each word is as the analyzer makes it: lowercase, one token. Things
// (nouns and abbreviations) and actions (verbs) are apart so that each half
// can be measured.
var bridgeThings = [][]string{
	{"picture", "image", "photo", "photograph", "pic", "img"},
	{"video", "movie", "film", "clip"},
	{"audio", "sound"},
	{"song", "music", "track"},
	{"chart", "graph", "plot", "diagram", "visualization", "visualize"},
	{"spreadsheet", "worksheet", "workbook"},
	{"folder", "directory", "dir"},
	{"website", "site", "webpage", "url"},
	{"link", "hyperlink"},
	{"email", "mail"},
	{"docs", "documentation"},
	{"bug", "issue", "ticket", "defect"},
	{"error", "fault", "failure"},
	{"repo", "repository"},
	{"db", "database"},
	{"config", "configuration", "configure", "settings", "preferences"},
	{"env", "environment"},
	{"var", "variable"},
	{"param", "parameter"},
	{"arg", "argument"},
	{"func", "function"},
	{"lib", "library"},
	{"pkg", "package"},
	{"app", "application"},
	{"info", "information"},
	{"msg", "message"},
	{"stats", "statistics"},
	{"num", "number"},
	{"org", "organization", "organisation"},
	{"admin", "administrator"},
	{"auth", "authentication", "authenticate"},
	{"login", "signin", "logon"},
	{"k8s", "kubernetes", "kube"},
	{"js", "javascript", "ecmascript"},
	{"ts", "typescript"},
	{"py", "python"},
	{"terminal", "shell", "cli"},
	{"internet", "web", "online"},
	{"article", "post"},
	{"news", "headlines"},
	{"price", "cost"},
	{"summary", "summarize", "overview", "recap"},
	{"timezone", "tz"},
	{"dev", "development"},
	{"prod", "production"},
	{"perf", "performance"},
	{"spec", "specification"},
	{"temp", "temporary"},
	{"max", "maximum"},
	{"min", "minimum"},
}

var bridgeActions = [][]string{
	{"delete", "remove", "erase", "destroy"},
	{"launch", "start", "run", "execute", "exec"},
	{"stop", "kill", "terminate", "halt", "abort"},
	{"create", "make", "generate"},
	{"add", "insert", "append"},
	{"search", "find", "lookup", "locate"},
	{"show", "display", "view"},
	{"get", "fetch", "retrieve", "obtain"},
	{"update", "modify", "change", "edit", "alter"},
	{"copy", "duplicate", "clone"},
	{"save", "store", "persist"},
	{"compress", "zip", "gzip", "archive"},
	{"decompress", "unzip", "unpack"},
	{"convert", "transform"},
	{"navigate", "visit", "browse"},
	{"buy", "purchase"},
	{"send", "transmit"},
	{"check", "verify", "validate"},
}

// bridge is the vocabulary bridge at weight.
func bridge(weight float64) search.Bridge {
	return search.Bridge{Things: bridgeThings, Actions: bridgeActions, Weight: weight}
}
