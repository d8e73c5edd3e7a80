package protocol

import (
	"cmp"
	"strings"

	"linesman/wire"
)

// x-mcp-header (2026-07-28, SEP-2243): a tool parameter's schema may name
// an HTTP header, Mcp-Param-{name}, that Streamable HTTP clients fill with
// the parameter's value. The constraints on the annotation are the
// server's to keep whatever its transport: a client over HTTP "MUST
// reject tool definitions where any x-mcp-header value violates these
// constraints" (it drops the tool from tools/list); one over stdio "MAY
// ignore" them, so a breach is a warning here.

// xHeaderPlace is one x-mcp-header annotation found in an inputSchema.
type xHeaderPlace struct {
	path      string // the JSON pointer of the schema that carries it
	value     val
	reachable bool // through a chain of properties alone
	typ       val  // the schema's "type"
}

// xMcpHeaders judges the x-mcp-header annotations of a tool's inputSchema.
func (j *Judge) xMcpHeaders(f *wire.Frame, tool string, schema val) {
	if !schema.isObject() || !strings.Contains(string(schema), `"x-mcp-header"`) {
		return
	}
	j.ran(famTools)
	var found []xHeaderPlace
	walkSchema(schema, "", true, 0, &found)
	seen := map[string]string{}
	for _, h := range found {
		name, ok := h.value.str()
		switch {
		case !ok || name == "":
			raise(f, "x-mcp-header-invalid", "tool %q: x-mcp-header at %s is %s; it must be a non-empty header name", tool, h.path, h.value.text())
		case !isToken(name):
			raise(f, "x-mcp-header-invalid", "tool %q: x-mcp-header %q at %s is not an HTTP field-name token (letters, digits and !#$%%&'*+-.^_`|~ only)", tool, name, h.path)
		case !h.reachable:
			raise(f, "x-mcp-header-invalid", "tool %q: x-mcp-header %q at %s is not on a property reached from the root through properties alone", tool, name, h.path)
		case !primitiveHeaderType(h.typ):
			raise(f, "x-mcp-header-invalid", "tool %q: x-mcp-header %q at %s annotates a parameter of type %s; only integer, string and boolean parameters may be mirrored", tool, name, h.path, h.typ.text())
		default:
			key := strings.ToLower(name)
			if other, dup := seen[key]; dup {
				raise(f, "x-mcp-header-invalid", "tool %q: x-mcp-header %q at %s repeats %s (header names are case-insensitive)", tool, name, h.path, other)
				continue
			}
			seen[key] = h.path
		}
	}
}

// walkSchema collects the x-mcp-header annotations of the schema s at
// path. Only the keywords whose values are schemas are walked (never
// default, const, enum or examples, which are data); reachable stays true
// only through properties.
func walkSchema(s val, path string, reachable bool, depth int, out *[]xHeaderPlace) {
	if !s.isObject() || depth > maxSchemaDepth {
		return
	}
	if h := s.get("x-mcp-header"); h.present() {
		*out = append(*out, xHeaderPlace{path: cmp.Or(path, "/"), value: h, reachable: reachable && path != "", typ: s.get("type")})
	}
	s.members(func(k []byte, v val) bool {
		key, _ := val(k).str()
		at := path + "/" + escapePointer(key)
		switch key {
		case "properties":
			eachMember(v, func(name string, sub val) {
				walkSchema(sub, at+"/"+escapePointer(name), reachable, depth+1, out)
			})
		case "patternProperties", "dependentSchemas", "$defs", "definitions":
			eachMember(v, func(name string, sub val) {
				walkSchema(sub, at+"/"+escapePointer(name), false, depth+1, out)
			})
		case "items", "additionalProperties", "contains", "not", "if", "then", "else",
			"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems":
			if v.isArray() { // draft-07's items as an array
				v.elems(func(i int, sub val) bool {
					walkSchema(sub, at+"/"+itoa(i), false, depth+1, out)
					return true
				})
			} else {
				walkSchema(v, at, false, depth+1, out)
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			v.elems(func(i int, sub val) bool {
				walkSchema(sub, at+"/"+itoa(i), false, depth+1, out)
				return true
			})
		}
		return true
	})
}

// eachMember calls fn with each member of the object v.
func eachMember(v val, fn func(name string, m val)) {
	v.members(func(k []byte, m val) bool {
		name, _ := val(k).str()
		fn(name, m)
		return true
	})
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2: 1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// primitiveHeaderType reports whether a parameter of schema type t may
// carry x-mcp-header: integer, string or boolean ("Parameters with type
// number are not permitted"). A schema without a type is given the
// benefit of the doubt, and so is null beside an allowed type.
func primitiveHeaderType(t val) bool {
	ok := func(s string) bool {
		return s == "integer" || s == "string" || s == "boolean" || s == "null"
	}
	switch {
	case !t.present():
		return true
	case t.isString():
		s, _ := t.str()
		return ok(s) && s != "null"
	case t.isArray():
		good := true
		t.elems(func(_ int, e val) bool {
			s, _ := e.str()
			good = good && ok(s)
			return good
		})
		return good
	}
	return false
}
