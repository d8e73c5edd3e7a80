package protocol

import (
	"encoding/json"
	"strings"
)

// A schemaIndex says where each definition of a revision's schema lies in
// its bytes. Splitting a schema of some 300 definitions was half of what
// the schema judge's first use cost a one-shot (BenchmarkSchemaFirstUse),
// so the index of every schema carried is generated beside this file
// (schemaindex_gen.go, by go test -run TestSchemaIndexIsCurrent -update),
// and a schema it is not of is split at first use as before.
type schemaIndex struct {
	rev    string
	size   int    // the length of the schema the offsets are into
	prefix string // how a $ref names a definition: "#/$defs/" or "#/definitions/"
	defs   []schemaDef
}

// A schemaDef is one definition: its name, its bytes schema[start:end],
// and for a request or notification the method its constant names.
type schemaDef struct {
	name, method string
	start, end   int
}

// indexOf returns the index of rev's schema: the generated one when it is
// of these bytes, else one read off them.
func indexOf(rev string, schema []byte) schemaIndex {
	for _, idx := range schemaIndexes {
		if idx.rev == rev && idx.size == len(schema) {
			return idx
		}
	}
	return scanIndex(rev, schema)
}

// scanIndex splits schema into its definitions, unparsed, and finds the
// method of each request and notification.
func scanIndex(rev string, schema []byte) schemaIndex {
	root := parse(schema)
	defs, prefix := root.get("$defs"), "#/$defs/"
	if !defs.isObject() {
		defs, prefix = root.get("definitions"), "#/definitions/"
	}
	idx := schemaIndex{rev: rev, size: len(schema), prefix: prefix}
	defs.members(func(k []byte, d val) bool {
		var name string
		if json.Unmarshal(k, &name) != nil {
			return true
		}
		start := cap(schema) - cap(d) // d is a slice of schema
		def := schemaDef{name: name, start: start, end: start + len(d)}
		if strings.HasSuffix(name, "Request") || strings.HasSuffix(name, "Notification") {
			def.method, _ = d.path("properties", "method", "const").str()
		}
		idx.defs = append(idx.defs, def)
		return true
	})
	return idx
}
