package protocol

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// linesman judges tool schemas with a JSON Schema validator of its own, not
// a library: the one it used (santhosh-tekuri/jsonschema) compiled five
// meta-schemas in its package init, 14-18 ms of every linesman process's
// start-up, the reaper helper's and the demo server's included. This one
// costs nothing until a tools/list arrives, and it is built to never call a
// foul it cannot stand behind.
//
// It covers the keywords real tool schemas use (JSON Schema 2020-12, MCP's
// default dialect, and 2019-09, draft-07, -06 and -04 when $schema names
// them): type, enum, const, properties, patternProperties,
// additionalProperties, required, dependentRequired, dependentSchemas,
// propertyNames, min/maxProperties, items, prefixItems, additionalItems,
// contains, min/maxContains, min/maxItems, uniqueItems, min/maxLength,
// pattern, minimum, maximum, exclusiveMinimum/Maximum, multipleOf, allOf,
// anyOf, oneOf, not, if/then/else, and $ref to "#" and "#/..." pointers
// within the schema. format is an annotation (2020-12's default), as are
// title, description, default, examples and unknown keywords.
//
// Verdicts are three-valued ([schemaVerdict]): a keyword linesman cannot
// judge (unevaluatedProperties, $dynamicRef, a $ref it cannot follow, a
// pattern whose meaning Go's regexp might not share with ECMA-262) is
// "unknown", and unknown propagates through not, oneOf and the rest by
// Kleene's rules, so that it never turns into a foul. Only a definite
// "invalid" raises structured-content-invalid or tool-arguments-invalid;
// an unknown verdict raises nothing (the instance was not checked).

// schemaVerdict is the outcome of validating an instance, in Kleene's
// three-valued logic: valid, invalid, or unknown (linesman cannot tell).
type schemaVerdict uint8

const (
	verdictValid schemaVerdict = iota
	verdictInvalid
	verdictUnknown
)

// A dialect is the JSON Schema draft a schema is written in.
type dialect uint8

const (
	draft2020 dialect = iota // MCP's default: a schema with no $schema
	draft2019
	draft07 // and draft-06
	draft04
)

// dialects maps the $schema URIs linesman knows (without "#", scheme
// folded to http) to their dialect.
var dialects = map[string]dialect{
	"http://json-schema.org/draft/2020-12/schema": draft2020,
	"http://json-schema.org/draft/2019-09/schema": draft2019,
	"http://json-schema.org/draft-07/schema":      draft07,
	"http://json-schema.org/draft-06/schema":      draft07,
	"http://json-schema.org/draft-04/schema":      draft04,
}

// A jsonSchema is a tool's schema, parsed and checked once.
type jsonSchema struct {
	root    any // the document: map[string]any or bool, numbers as json.Number
	dialect dialect
	// skip says why nothing of the schema is judged ("": it is): a $schema
	// linesman does not know.
	skip string
	// ownBases: some subschema has an $id, so "#..." references may be
	// relative to another base than the document: none is followed.
	ownBases bool
	// patterns are the compiled patterns by source; nil: not judged.
	patterns map[string]*regexp.Regexp
}

// compileJSONSchema parses and checks the schema raw (a JSON object). bad
// is non-empty when the schema is not valid JSON Schema (a keyword's value
// of the wrong kind, a "#/..." reference to nothing): that is a real fault
// of the server's. A schema written in a dialect linesman does not know is
// not judged at all, and is not bad. implicit is the dialect of a schema
// without $schema.
func compileJSONSchema(raw []byte, implicit dialect) (s *jsonSchema, bad string) {
	root, err := decodeJSONValue(raw)
	if err != nil {
		return nil, "not JSON: " + err.Error()
	}
	s = &jsonSchema{root: root, patterns: map[string]*regexp.Regexp{}, dialect: implicit}
	if m, ok := root.(map[string]any); ok {
		if uri, ok := m["$schema"].(string); ok {
			d, known := dialects[dialectKey(uri)]
			if !known {
				s.skip = "its $schema " + quoteForMsg(uri) + " is a dialect linesman does not judge"
				return s, ""
			}
			s.dialect = d
		}
	}
	c := schemaChecker{s: s}
	if msg := c.check(root, "", true); msg != "" {
		return nil, msg
	}
	if !s.ownBases {
		for _, ref := range c.refs {
			if _, ok := s.resolvePointer(ref.ref); !ok && strings.HasPrefix(ref.ref, "#/") {
				return nil, "at " + where(ref.at) + ": $ref " + quoteForMsg(ref.ref) + " points to nothing in the schema"
			}
		}
	}
	return s, ""
}

// dialectKey is a $schema URI as the dialects map keys it.
func dialectKey(uri string) string {
	uri = strings.TrimSuffix(uri, "#")
	if rest, ok := strings.CutPrefix(uri, "https://"); ok {
		uri = "http://" + rest
	}
	return uri
}

// validate validates the instance raw against the schema: the verdict,
// and what was wrong (verdictInvalid) or what could not be judged
// (verdictUnknown).
func (s *jsonSchema) validate(raw []byte) (schemaVerdict, string) {
	if s.skip != "" {
		return verdictUnknown, s.skip
	}
	inst, err := decodeJSONValue(raw)
	if err != nil {
		return verdictUnknown, "the value is not JSON linesman can read: " + err.Error()
	}
	v := validation{s: s, budget: maxSchemaSteps}
	return v.schema(s.root, inst, "")
}

// maxSchemaSteps bounds the work of one validation (subschemas applied):
// a recursive $ref or a huge instance ends as "unknown", not as a hang.
const maxSchemaSteps = 1 << 18

// decodeJSONValue decodes one JSON text, numbers kept as json.Number.
func decodeJSONValue(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// resolvePointer finds the subschema a "#" or "#/json/pointer" reference
// names in the document.
func (s *jsonSchema) resolvePointer(ref string) (any, bool) {
	if ref == "#" {
		return s.root, true
	}
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	cur := s.root
	for _, tok := range strings.Split(p, "/") {
		tok = unescapePointer(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, ok := arrayIndex(tok, len(c))
			if !ok {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// unescapePointer undoes a JSON pointer token's escapes (~1 is "/", ~0 is
// "~") and the URI fragment's percent-encoding.
func unescapePointer(tok string) string {
	if strings.Contains(tok, "%") {
		if u, err := urlUnescape(tok); err == nil {
			tok = u
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// urlUnescape decodes %XX escapes.
func urlUnescape(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
			return "", errBadEscape
		}
		b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
		i += 2
	}
	return b.String(), nil
}

type schemaError string

func (e schemaError) Error() string { return string(e) }

const errBadEscape = schemaError("bad %-escape")

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// arrayIndex parses a pointer token as an index below n.
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return 0, false
	}
	i := 0
	for _, c := range []byte(tok) {
		if c < '0' || c > '9' || i > n {
			return 0, false
		}
		i = i*10 + int(c-'0')
	}
	return i, i < n
}

// where names an instance or schema location for a message.
func where(ptr string) string {
	if ptr == "" {
		return "the top level"
	}
	return ptr
}

// quoteForMsg quotes s for a one-line message, bounded.
func quoteForMsg(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
