package testenv

// signatureShapes are input schemas of real servers' tools that a
// signature has to read: unions of objects, objects, long enums and
// descriptions of several lines. They are tools of Shapes too.
//
//	aggregate                   mongodb: an array whose items are anyOf an
//	                            object that requires $vectorSearch and any
//	                            object; a description of several lines
//	create_pull_request_review  github: an array of oneOf two objects
//	                            ({path, position, body} or {path, line, body})
//	write_pdf                   desktop-commander: anyOf a string and an
//	                            array of anyOf two operations (insert, delete)
//	git_commit                  git: an optional object of two required
//	                            strings (author: {name, email})
//	get_node                    n8n: an enum of seven values with a default
var signatureShapes = map[string]string{
	"aggregate": `{"type":"object","properties":{"database":{"type":"string","description":"Database name"},` +
		`"collection":{"type":"string","description":"Collection name"},` +
		`"pipeline":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"$vectorSearch":{"type":"object",` +
		`"properties":{"index":{"type":"string"},"path":{"type":"string"},"limit":{"default":10,"type":"integer"}},"required":["index","path"]}},` +
		`"required":["$vectorSearch"]},{"type":"object","additionalProperties":{}}]},` +
		`"description":"An array of aggregation stages to execute.\n\nIf the user has asked for a vector search, ` +
		"`$vectorSearch`" + ` **MUST** be the first stage\nof the pipeline."}},` +
		`"required":["database","collection","pipeline"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
	"create_pull_request_review": `{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},` +
		`"event":{"type":"string","enum":["APPROVE","REQUEST_CHANGES","COMMENT"]},` +
		`"comments":{"type":"array","items":{"anyOf":[` +
		`{"type":"object","properties":{"path":{"type":"string"},"position":{"type":"number"},"body":{"type":"string"}},"required":["path","position","body"],"additionalProperties":false},` +
		`{"type":"object","properties":{"path":{"type":"string"},"line":{"type":"number"},"body":{"type":"string"}},"required":["path","line","body"],"additionalProperties":false}]},` +
		`"description":"Comments to post as part of the review (specify either position or line, not both)"}},` +
		`"required":["owner","repo","event"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
	"write_pdf": `{"type":"object","properties":{"path":{"type":"string"},"content":{"anyOf":[{"type":"string"},{"type":"array","items":{"anyOf":[` +
		`{"type":"object","properties":{"type":{"type":"string","const":"insert"},"pageIndex":{"type":"number"},"markdown":{"type":"string"}},"required":["type","pageIndex"],"additionalProperties":false},` +
		`{"type":"object","properties":{"type":{"type":"string","const":"delete"},"pageIndexes":{"type":"array","items":{"type":"number"}}},"required":["type","pageIndexes"],"additionalProperties":false}]}}]}},` +
		`"required":["path","content"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
	"git_commit": `{"type":"object","properties":{"repo_path":{"type":"string"},"message":{"type":"string"},` +
		`"author":{"type":"object","properties":{"name":{"type":"string","description":"Author name"},"email":{"type":"string","description":"Author email"}},"required":["name","email"]}},` +
		`"required":["repo_path","message"]}`,
	"get_node": `{"type":"object","properties":{"nodeType":{"type":"string"},"mode":{"type":"string",` +
		`"enum":["info","docs","search_properties","versions","compare","breaking","migrations"],"default":"info","description":"Operation mode"}},` +
		`"required":["nodeType"]}`,
}

func init() {
	for name, schema := range signatureShapes {
		Shapes[name] = schema
	}
}
