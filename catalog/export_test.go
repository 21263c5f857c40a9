package catalog

import "encoding/json"

// Checked says why schema is left to the server, or nil when it is
// checked here.
func Checked(schema json.RawMessage) error {
	_, _, err := compileSchema(schema)
	return err
}
