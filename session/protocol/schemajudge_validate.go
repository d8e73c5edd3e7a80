package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"linesman/wire"
)

// A schemaFault is the first place a value breaks its definition: where
// (path, innermost segment first), what the schema wants, what came, and
// the innermost definition it broke.
type schemaFault struct {
	path      []string
	want, got string
	def       string
}

// at prepends a path segment (the fault is inside it).
func (f *schemaFault) at(seg string) *schemaFault { f.path = append(f.path, seg); return f }

// in names the definition, unless a deeper one already is.
func (f *schemaFault) in(def string) *schemaFault {
	if f.def == "" {
		f.def = def
	}
	return f
}

// where is the fault's location below base ("result.prompts[2].arguments").
func (f *schemaFault) where(base string) string {
	var b strings.Builder
	b.WriteString(base)
	for i := len(f.path) - 1; i >= 0; i-- {
		b.WriteString(f.path[i])
	}
	return b.String()
}

// maxSchemaNesting bounds how deep validation follows a value: deeper
// than this (a JSONValue nested without end), nothing more is judged.
const maxSchemaNesting = 128

// check validates v against n: nil, or the first fault.
func (n *snode) check(v val, depth int) *schemaFault {
	_, f := n.scan(v, 0, depth)
	return f
}

// scan validates the value that starts at b[i] against n in one pass over
// its bytes, and returns the index just past it with the first fault (nil
// when valid): a member or element whose schema allows anything is
// stepped over unread, the others are validated as they are read.
func (n *snode) scan(b []byte, i, depth int) (int, *schemaFault) {
	if depth > maxSchemaNesting {
		return skipValue(b, i), nil
	}
	end := -1
	if n.ref != nil {
		e, f := n.ref.scan(b, i, depth+1)
		if f != nil {
			return e, f.in(n.ref.def)
		}
		end = e
	}
	if n.pureUnion() {
		return n.unionScan(b, i, depth)
	}
	v := val(b[i:])
	if n.types != 0 && !typeAllows(n.types, v[:min(len(v), 1)], b, i) {
		return skipValue(b, i), &schemaFault{want: typeWant(n.types), got: gotOf(val(b[i:skipValue(b, i)]))}
	}
	var f *schemaFault
	switch v.kind() {
	case kObject:
		end, f = n.object(b, i, depth)
	case kArray:
		end, f = n.array(b, i, depth)
	default:
		if end < 0 {
			end = skipValue(b, i)
		}
		f = n.scalar(val(b[i:end]))
	}
	if f != nil {
		return end, f
	}
	if n.allOf != nil || n.anyOf != nil {
		f = n.combined(val(b[i:end]), depth)
	}
	return end, f
}

// pureUnion reports whether n is an anyOf and nothing else.
func (n *snode) pureUnion() bool {
	return n.anyOf != nil && n.ref == nil && n.types == 0 && n.props == nil && n.addl == nil &&
		n.items == nil && n.maxItems < 0 && n.consts == nil && n.min == nil && n.max == nil && n.allOf == nil
}

// unionScan validates a pure anyOf in one pass when the discriminator (or
// the first branch) decides it, and returns the value's end.
func (n *snode) unionScan(b []byte, i, depth int) (int, *schemaFault) {
	branches := n.anyOf
	if n.disc != "" && b[i] == '{' {
		if d, ok := val(b[i:]).get(n.disc).str(); ok && len(n.byDisc[d]) == 1 {
			return n.byDisc[d][0].scan(b, i, depth+1)
		}
	}
	end, f := branches[0].scan(b, i, depth+1)
	if f == nil {
		return end, nil
	}
	end = skipValue(b, i)
	return end, n.union(val(b[i:end]), depth)
}

// scalar validates a string, number, boolean or null.
func (n *snode) scalar(v val) *schemaFault {
	if n.consts != nil && !constAllows(n.consts, v) {
		return &schemaFault{want: constWant(n.consts), got: gotOf(v)}
	}
	if v.kind() == kNumber {
		return n.number(v)
	}
	return nil
}

// combined validates allOf and anyOf (a second pass over the value).
func (n *snode) combined(v val, depth int) *schemaFault {
	for _, s := range n.allOf {
		if f := s.check(v, depth+1); f != nil {
			return f
		}
	}
	if n.anyOf != nil {
		return n.union(v, depth)
	}
	return nil
}

// object validates the members against properties (or
// additionalProperties) as it reads them, then the required members.
func (n *snode) object(b []byte, i, depth int) (int, *schemaFault) {
	if n.props == nil && n.addl == nil {
		return skipValue(b, i), nil
	}
	var seen uint64
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		key := b[i:ke]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			break
		}
		i = skipSpace(b, i+1)
		p := n.prop(key)
		sub := n.addl
		if p != nil {
			seen |= p.bit
			sub = p.node
		}
		if sub == nil || b[i] == 'n' && (p == nil || p.bit == 0) {
			i = skipValue(b, i) // anything goes; an optional null reads as absent
		} else {
			e, f := sub.scan(b, i, depth+1)
			if f != nil {
				return e, f.at(memberSegment(keyName(key)))
			}
			i = e
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i < len(b) && b[i] == '}' {
		i++
	}
	return i, n.missing(seen)
}

// missing is the fault of the first required member not seen, or nil.
func (n *snode) missing(seen uint64) *schemaFault {
	for _, r := range n.required {
		p := n.props[r]
		if seen&p.bit != 0 {
			continue
		}
		want := "a value"
		if p.node != nil {
			if t := p.node.target(); t.def != "" {
				want = t.def
			} else if t.types != 0 {
				want = typeWant(t.types)
			} else if t.consts != nil {
				want = constWant(t.consts)
			}
		}
		return (&schemaFault{want: want + " (required)", got: "absent"}).at(memberSegment(r))
	}
	return nil
}

// prop looks a member's raw key (with its quotes) up among the
// properties, without allocating unless the key is escaped.
func (n *snode) prop(key []byte) *sprop {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return n.props[string(inner)]
	}
	s, _ := val(key).str()
	return n.props[s]
}

// keyName decodes a raw key for a message.
func keyName(key []byte) string {
	s, ok := val(key).str()
	if !ok {
		return string(key)
	}
	return s
}

// array validates every element against items as it reads them, and
// maxItems.
func (n *snode) array(b []byte, i, depth int) (int, *schemaFault) {
	if n.items == nil && n.maxItems < 0 {
		return skipValue(b, i), nil
	}
	count := 0
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		if n.items != nil {
			e, f := n.items.scan(b, i, depth+1)
			if f != nil {
				return e, f.at("[" + strconv.Itoa(count) + "]")
			}
			i = e
		} else {
			i = skipValue(b, i)
		}
		count++
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i < len(b) && b[i] == ']' {
		i++
	}
	if n.maxItems >= 0 && count > n.maxItems {
		return i, &schemaFault{want: "at most " + strconv.Itoa(n.maxItems) + " items", got: strconv.Itoa(count)}
	}
	return i, nil
}

// number validates minimum and maximum.
func (n *snode) number(v val) *schemaFault {
	if n.min == nil && n.max == nil {
		return nil
	}
	x, ok := v.num()
	switch {
	case !ok:
		return nil // beyond float64: not judged
	case n.min != nil && x < *n.min:
		return &schemaFault{want: "≥ " + strconv.FormatFloat(*n.min, 'g', -1, 64), got: gotOf(v)}
	case n.max != nil && x > *n.max:
		return &schemaFault{want: "≤ " + strconv.FormatFloat(*n.max, 'g', -1, 64), got: gotOf(v)}
	}
	return nil
}

// union validates an anyOf: valid when a branch is. On failure it blames
// the one branch the discriminator names, or the branch whose fault lies
// deepest, else names the branches.
func (n *snode) union(v val, depth int) *schemaFault {
	branches := n.anyOf
	if n.disc != "" && v.isObject() {
		if d, ok := v.get(n.disc).str(); ok {
			if branches = n.byDisc[d]; branches == nil {
				var want []any
				for _, b := range n.anyOf {
					want = append(want, b.target().props[n.disc].node.consts...)
				}
				return (&schemaFault{want: constWant(want), got: gotOf(v.get(n.disc))}).at("." + n.disc)
			}
		}
	}
	var best *schemaFault
	tie := false
	for _, b := range branches {
		f := b.check(v, depth+1)
		if f == nil {
			return nil
		}
		switch {
		case best == nil || len(f.path) > len(best.path):
			best, tie = f, false
		case len(f.path) == len(best.path):
			tie = true
		}
	}
	if len(branches) == 1 || !tie && len(best.path) > 0 {
		return best
	}
	if f := missingInEvery(branches, v); f != nil {
		return f
	}
	names := make([]string, 0, len(branches))
	for _, b := range branches {
		t := b.target()
		switch {
		case t.def != "":
			names = append(names, t.def)
		case t.types != 0:
			names = append(names, typeWant(t.types))
		default:
			names = append(names, "a schema")
		}
	}
	return &schemaFault{want: strings.Join(names, " | "), got: gotOf(v)}
}

// typeAllows reports whether the value whose first byte is first (at b[i])
// is of one of the types.
func typeAllows(types uint8, first val, b []byte, i int) bool {
	switch first.kind() {
	case kObject:
		return types&tObject != 0
	case kArray:
		return types&tArray != 0
	case kString:
		return types&tString != 0
	case kNumber:
		return types&tNumber != 0 || types&tInteger != 0 && val(b[i:skipValue(b, i)]).isInteger()
	case kBool:
		return types&tBoolean != 0
	case kNull:
		return types&tNull != 0
	}
	return false
}

var typeNames = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// typeWant names the types ("string or number").
func typeWant(types uint8) string {
	var names []string
	for i, name := range typeNames {
		if types&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, " or ")
}

// constAllows reports whether v equals one of the constants (strings,
// numbers, booleans and null: what the MCP schemas hold).
func constAllows(consts []any, v val) bool {
	for _, c := range consts {
		switch c := c.(type) {
		case string:
			if s, ok := v.str(); ok && s == c {
				return true
			}
		case float64:
			if x, ok := v.num(); ok && x == c {
				return true
			}
		case bool:
			if b, ok := v.boolean(); ok && b == c {
				return true
			}
		case nil:
			if v.isNull() {
				return true
			}
		default:
			return true // an object or array constant: not judged
		}
	}
	return false
}

// constWant names the constants (`"text"`, `one of "a", "b"`), bounded.
func constWant(consts []any) string {
	var parts []string
	for i, c := range consts {
		if i == 8 {
			parts = append(parts, "…")
			break
		}
		b, _ := json.Marshal(c)
		parts = append(parts, string(b))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "one of " + strings.Join(parts, ", ")
}

// gotOf says what came: its type, and for a scalar its value, bounded and
// inert (it comes from the peer).
func gotOf(v val) string {
	switch v.kind() {
	case kObject:
		return "object"
	case kArray:
		return "array"
	case kAbsent:
		return "absent"
	case kString:
		s, _ := v.str()
		return "string " + inertQuote(s)
	}
	return typeOfScalar(v) + " " + wire.VisibleString(v.text(), wire.Pictures)
}

func typeOfScalar(v val) string {
	switch v.kind() {
	case kBool:
		return "boolean"
	case kNull:
		return "null"
	}
	return "number"
}

// inertQuote quotes s for a message: bounded, JSON-escaped, and with
// what a terminal would act on (bidirectional overrides among it) shown.
func inertQuote(s string) string {
	if len(s) > 60 {
		cut := 60
		for cut > 0 && s[cut]&0xc0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	b, _ := json.Marshal(s)
	return wire.VisibleString(string(b), wire.Pictures)
}

// memberSegment is the path segment of a member: .name when name reads as
// an identifier, else ["name"], inert.
func memberSegment(name string) string {
	ident := name != ""
	for i, c := range []byte(name) {
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return "." + name
	}
	return "[" + inertQuote(name) + "]"
}

// missingInEvery is the fault of a union whose every branch requires a
// member the value lacks (a 2026-07-28 result without resultType): the
// member is named — and a hand-written rule that names it wins — rather
// than the branches listed.
func missingInEvery(branches []*snode, v val) *schemaFault {
	if !v.isObject() {
		return nil
	}
	for _, name := range branches[0].target().required {
		if v.get(name).present() {
			continue
		}
		if slices.ContainsFunc(branches, func(b *snode) bool { return !slices.Contains(b.target().required, name) }) {
			continue
		}
		want := "a member"
		if p := branches[0].target().props[name]; p != nil && p.node != nil && p.node.target().types != 0 {
			want = typeWant(p.node.target().types)
		}
		return (&schemaFault{want: want, got: gotOf(v.get(name))}).at("." + name)
	}
	return nil
}
