package protocol

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// What the meta-schema asks of a keyword's value.
type keywordKind uint8

const (
	kwAny         keywordKind = iota
	kwSchema                  // a schema (an object or a boolean)
	kwSchemaMap               // an object whose members are schemas
	kwSchemaArray             // a non-empty array of schemas
	kwItems                   // a schema; before 2020-12 also an array of schemas
	kwTypes                   // a type name, or a non-empty array of distinct ones
	kwStrings                 // an array of distinct strings
	kwStringsMap              // an object whose members are arrays of distinct strings
	kwCount                   // a non-negative integer
	kwNumber                  // a number
	kwExclusive               // a number (draft-04: a boolean)
	kwPositive                // a number above zero
	kwString                  // a string
	kwBool                    // a boolean
	kwArray                   // an array
)

// keywordKinds are the keywords whose values linesman checks, as the
// meta-schemas of the dialects it knows describe them. Keywords of another
// dialect than the schema's are annotations there and are not checked
// (prefixItems in a draft-07 schema, say): see keywordIn.
var keywordKinds = map[string]keywordKind{
	"type": kwTypes, "enum": kwArray, "const": kwAny,
	"properties": kwSchemaMap, "patternProperties": kwSchemaMap, "$defs": kwSchemaMap,
	"definitions": kwSchemaMap, "dependentSchemas": kwSchemaMap,
	"additionalProperties": kwSchema, "not": kwSchema, "propertyNames": kwSchema,
	"if": kwSchema, "then": kwSchema, "else": kwSchema, "contains": kwSchema,
	"unevaluatedProperties": kwSchema, "unevaluatedItems": kwSchema, "additionalItems": kwSchema,
	"items": kwItems, "prefixItems": kwSchemaArray,
	"allOf": kwSchemaArray, "anyOf": kwSchemaArray, "oneOf": kwSchemaArray,
	"required": kwStrings, "dependentRequired": kwStringsMap,
	"minLength": kwCount, "maxLength": kwCount, "minItems": kwCount, "maxItems": kwCount,
	"minProperties": kwCount, "maxProperties": kwCount, "minContains": kwCount, "maxContains": kwCount,
	"minimum": kwNumber, "maximum": kwNumber, "exclusiveMinimum": kwExclusive, "exclusiveMaximum": kwExclusive,
	"multipleOf": kwPositive, "pattern": kwString, "format": kwString,
	"$ref": kwString, "$id": kwString, "$anchor": kwString, "$schema": kwString, "$comment": kwString,
	"uniqueItems": kwBool,
}

// keywordIn reports whether kw is a keyword of dialect d (others are
// annotations there).
func keywordIn(kw string, d dialect) bool {
	switch kw {
	case "prefixItems", "$dynamicRef", "$dynamicAnchor":
		return d == draft2020
	case "$defs", "dependentSchemas", "dependentRequired", "unevaluatedProperties", "unevaluatedItems",
		"minContains", "maxContains", "$anchor", "$recursiveRef", "$recursiveAnchor":
		return d <= draft2019
	case "additionalItems":
		return d != draft2020
	case "contains", "propertyNames", "const", "if", "then", "else":
		return d <= draft07
	}
	return true
}

// A schemaChecker walks a schema document once: it checks each keyword's
// value against what the meta-schema asks, compiles patterns, and notes the
// references to follow and whether any subschema sets its own base ($id).
type schemaChecker struct {
	s    *jsonSchema
	refs []struct{ ref, at string }
}

// check checks the schema v at location at; it returns what is wrong, or "".
func (c *schemaChecker) check(v any, at string, root bool) string {
	m, ok := v.(map[string]any)
	if !ok {
		// A boolean schema (draft-06 on; draft-04 allows one where
		// additionalProperties and additionalItems are: not told apart).
		if _, isBool := v.(bool); isBool {
			return ""
		}
		return "at " + where(at) + ": a schema must be an object or a boolean, not " + jsonKindName(v)
	}
	if !root && (hasString(m, "$id") || c.s.dialect == draft04 && hasString(m, "id")) {
		c.s.ownBases = true
	}
	for kw, val := range m {
		kind, known := keywordKinds[kw]
		if !known || !keywordIn(kw, c.s.dialect) {
			continue
		}
		if msg := c.keyword(kw, kind, val, at+"/"+escapePointer(kw)); msg != "" {
			return msg
		}
	}
	return ""
}

func hasString(m map[string]any, k string) bool { _, ok := m[k].(string); return ok }

// keyword checks one keyword's value.
func (c *schemaChecker) keyword(kw string, kind keywordKind, v any, at string) string {
	bad := func(want string) string {
		return "at " + at + ": " + kw + " must be " + want + ", not " + jsonKindName(v)
	}
	switch kind {
	case kwSchema:
		return c.check(v, at, false)
	case kwSchemaMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("an object of schemas")
		}
		for k, sub := range m {
			if msg := c.check(sub, at+"/"+escapePointer(k), false); msg != "" {
				return msg
			}
			if kw == "patternProperties" {
				c.pattern(k)
			}
		}
	case kwItems:
		if arr, ok := v.([]any); ok && c.s.dialect != draft2020 {
			return c.schemaArray(arr, at)
		}
		return c.check(v, at, false)
	case kwSchemaArray:
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return bad("a non-empty array of schemas")
		}
		return c.schemaArray(arr, at)
	case kwTypes:
		if !typesOK(v) {
			return bad(`a type name ("null", "boolean", "object", "array", "number", "string" or "integer") or an array of distinct ones`)
		}
	case kwStrings:
		if !distinctStrings(v) {
			return bad("an array of distinct strings")
		}
	case kwStringsMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("an object of string arrays")
		}
		for _, sub := range m {
			if !distinctStrings(sub) {
				return bad("an object of arrays of distinct strings")
			}
		}
	default:
		return c.scalar(kw, kind, v, at, bad)
	}
	return ""
}

// scalar checks a keyword whose value is a number, a string or a boolean.
func (c *schemaChecker) scalar(kw string, kind keywordKind, v any, at string, bad func(string) string) string {
	n, isNum := v.(json.Number)
	switch kind {
	case kwCount:
		if r, ok := numberRat(n); !isNum || !ok || r.Sign() < 0 || !r.IsInt() {
			return bad("a non-negative integer")
		}
	case kwNumber:
		if !isNum {
			return bad("a number")
		}
	case kwExclusive:
		if _, isBool := v.(bool); c.s.dialect == draft04 && !isBool {
			return bad("a boolean in draft-04")
		}
		if c.s.dialect != draft04 && !isNum {
			return bad("a number")
		}
	case kwPositive:
		if r, ok := numberRat(n); !isNum || !ok || r.Sign() <= 0 {
			return bad("a number above zero")
		}
	case kwString:
		s, ok := v.(string)
		if !ok {
			return bad("a string")
		}
		switch kw {
		case "pattern":
			c.pattern(s)
		case "$ref":
			c.refs = append(c.refs, struct{ ref, at string }{s, strings.TrimSuffix(at, "/$ref")})
		}
	case kwBool:
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case kwArray:
		if _, ok := v.([]any); !ok {
			return bad("an array")
		}
	}
	return ""
}

// schemaArray checks each schema of an array.
func (c *schemaChecker) schemaArray(arr []any, at string) string {
	for i, sub := range arr {
		if msg := c.check(sub, at+"/"+strconv.Itoa(i), false); msg != "" {
			return msg
		}
	}
	return ""
}

// pattern compiles a pattern once. One whose meaning Go's regexp may not
// share with ECMA-262 (the dialect JSON Schema names) is kept as nil: it is
// not judged. A pattern neither can read is not a fault of the schema's
// either: "format": "regex" is an annotation in the meta-schema.
func (c *schemaChecker) pattern(src string) {
	if _, done := c.s.patterns[src]; done {
		return
	}
	var re *regexp.Regexp
	if ecmaCompatible(src) {
		re, _ = regexp.Compile(src)
	}
	c.s.patterns[src] = re
}

// ecmaCompatible reports whether src uses only constructs that ECMA-262
// and Go's RE2 read alike (on ASCII text): no (?flags) or lookaround, no
// POSIX classes (a character class of ':' and letters in ECMA-262), and
// no escapes but \d \D \w \W \s \S \b \B \n \r \t \f \v and escaped
// punctuation.
func ecmaCompatible(src string) bool {
	if strings.Contains(src, "[:") {
		return false
	}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(':
			if i+1 < len(src) && src[i+1] == '?' && (i+2 >= len(src) || src[i+2] != ':') {
				return false
			}
		case '\\':
			if i+1 >= len(src) {
				return false
			}
			i++
			e := src[i]
			if e >= 'a' && e <= 'z' || e >= 'A' && e <= 'Z' || e >= '0' && e <= '9' {
				if !strings.ContainsRune("dDwWsSbBnrtfv", rune(e)) {
					return false
				}
			}
		}
	}
	return true
}

// typesOK reports whether v is a valid value of "type".
func typesOK(v any) bool {
	okName := func(s string) bool {
		switch s {
		case "null", "boolean", "object", "array", "number", "string", "integer":
			return true
		}
		return false
	}
	switch t := v.(type) {
	case string:
		return okName(t)
	case []any:
		seen := map[string]bool{}
		for _, e := range t {
			s, ok := e.(string)
			if !ok || !okName(s) || seen[s] {
				return false
			}
			seen[s] = true
		}
		return len(t) > 0
	}
	return false
}

// distinctStrings reports whether v is an array of distinct strings.
func distinctStrings(v any) bool {
	arr, ok := v.([]any)
	if !ok {
		return false
	}
	seen := map[string]bool{}
	for _, e := range arr {
		s, ok := e.(string)
		if !ok || seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// numberRat is the exact value of a JSON number.
func numberRat(n json.Number) (*big.Rat, bool) {
	if n == "" {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// jsonKindName names the kind of a decoded JSON value.
func jsonKindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "something else"
}

// escapePointer escapes a key as a JSON pointer token.
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
