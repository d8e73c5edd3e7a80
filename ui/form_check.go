package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// What a JSON field holds (an object, an array, a value of several types)
// is checked against the property's schema as far as the form knows
// schemas: type, enum, const, required, properties, items, minimum and
// maximum, all the way down. What it does not know (patterns, formats,
// combinators, references) it does not judge: the server's own validation
// still has the last word.

// subSchema is what the check reads of a schema.
type subSchema struct {
	Type       json.RawMessage            `json:"type"`
	Enum       []json.RawMessage          `json:"enum"`
	Const      json.RawMessage            `json:"const"`
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
	Items      json.RawMessage            `json:"items"`
	Minimum    *float64                   `json:"minimum"`
	Maximum    *float64                   `json:"maximum"`
}

// decodeJSON decodes text keeping numbers as written.
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// checkAgainst checks v (decoded with numbers as json.Number) against
// schema; the error names where the value is wrong (path: "address.city",
// "tags[2]").
func checkAgainst(schema json.RawMessage, v any, path string) error {
	var s subSchema
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil // no schema, or one the form cannot read (true, false): not judged here
	}
	if types := schemaTypesAll(s.Type); len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(v, t) }) {
		named := make([]string, len(types))
		for i, t := range types {
			named[i] = map[string]string{"string": "a string", "integer": "an integer", "number": "a number",
				"boolean": "a boolean", "object": "an object", "array": "an array", "null": "null"}[t]
			if named[i] == "" {
				named[i] = jsonText(t)
			}
		}
		return fmt.Errorf("%s: not %s", path, strings.Join(named, " or "))
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e json.RawMessage) bool { return sameJSON(e, v) }) {
		return fmt.Errorf("%s: not one of the allowed values", path)
	}
	if len(s.Const) > 0 && !sameJSON(s.Const, v) {
		return fmt.Errorf("%s: must be %s", path, compactJSON(s.Const))
	}
	if n, ok := v.(json.Number); ok {
		f, _ := strconv.ParseFloat(string(n), 64)
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Errorf("%s: too small (at least %v)", path, *s.Minimum)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Errorf("%s: too large (at most %v)", path, *s.Maximum)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				return fmt.Errorf("%s: %s is required", path, jsonText(r))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if sub, ok := s.Properties[k]; ok {
				if err := checkAgainst(sub, x[k], path+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if len(s.Items) > 0 && bytes.TrimSpace(s.Items)[0] == '{' {
			for i, e := range x {
				if err := checkAgainst(s.Items, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// schemaTypesAll lists the types "type" names, null included.
func schemaTypesAll(t json.RawMessage) []string {
	var one string
	if json.Unmarshal(t, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(t, &many)
	return many
}

// isType reports whether v is of the JSON Schema type t.
func isType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case map[string]any:
		return t == "object"
	case []any:
		return t == "array"
	case json.Number:
		if t == "number" {
			return true
		}
		f, err := strconv.ParseFloat(string(x), 64)
		return t == "integer" && err == nil && f == math.Trunc(f)
	}
	return false
}

// sameJSON reports whether the JSON text a and the decoded value v are
// the same value (numbers compared as written).
func sameJSON(a json.RawMessage, v any) bool {
	av, err := decodeJSON(string(a))
	return err == nil && reflect.DeepEqual(av, v)
}
