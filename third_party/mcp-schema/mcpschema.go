// Package mcpschema carries the MCP JSON schemas of every revision, as
// published by the specification (see README.md and LICENSE beside it).
// It only hands out their bytes: it parses nothing and costs nothing at
// start-up; compiling and validating is the protocol judge's business.
package mcpschema

import "embed"

//go:embed */schema.json
var files embed.FS

// Revisions are the protocol revisions whose schema is carried, oldest first.
var Revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// Schema returns the schema.json of revision rev, or nil for a revision
// that has none here. The bytes are shared: callers must not modify them.
func Schema(rev string) []byte {
	b, err := files.ReadFile(rev + "/schema.json")
	if err != nil {
		return nil
	}
	return b
}
