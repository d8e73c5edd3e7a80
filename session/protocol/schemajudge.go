package protocol

import (
	"encoding/json"
	"strings"
	"sync"

	mcpschema "linesman/third_party/mcp-schema"
)

// The schema judge validates every message against the published JSON
// schema of its revision (third_party/mcp-schema): a request's or a
// notification's params against the definition of its method, a result
// against the definition of the request it answers (its ...ResultResponse
// in 2026-07-28, which admits an InputRequiredResult too), an error's
// error object against Error. Its one code is schema-invalid.
//
// It validates the bytes the judge already holds ([val]): nothing is
// decoded, and a member the definition says nothing about is skipped
// unread. The MCP schemas use few keywords (type, properties, required,
// additionalProperties, items, maxItems, enum, const, minimum, maximum,
// anyOf, allOf, $ref to a definition; format and the rest are
// annotations), and a schema compiles them into [snode]s once per
// revision, on the first message of that revision.
//
// Unknown members are allowed: no definition of any revision closes its
// objects (none sets additionalProperties to false), so a member the
// schema does not name is neither a foul nor a note — MCP leaves objects
// open for extensions, and _meta is where they belong, which the meta
// rules judge by name. Where a definition does give additionalProperties a
// schema (JSONObject's values, ElicitResult's content), the members it
// does not name are validated against it.
//
// An optional member written as null reads as absent, as the hand-written
// rules read it (nextCursor, _meta, a capability): serializers that write
// absent members as null are common and hosts tolerate them. A required
// member that is null is judged as null.
//
// Where schema.json is stricter than the schema.ts it was generated from,
// schema.ts wins (see knownDifferences), so the judge never calls a foul
// schema.ts allows.

// JSON types as bits of snode.types.
const (
	tObject uint8 = 1 << iota
	tArray
	tString
	tNumber
	tInteger
	tBoolean
	tNull
)

var typeBits = map[string]uint8{"object": tObject, "array": tArray, "string": tString, "number": tNumber, "integer": tInteger, "boolean": tBoolean, "null": tNull}

// An snode is one compiled subschema. The zero snode allows anything.
type snode struct {
	types    uint8 // allowed types; 0: any
	props    map[string]*sprop
	required []string // in the schema's order, for messages
	addl     *snode   // additionalProperties' schema; nil: anything
	items    *snode
	maxItems int // -1: no limit
	consts   []any
	min, max *float64
	anyOf    []*snode
	allOf    []*snode
	ref      *snode // the definition a $ref names
	def      string // the definition's name, on a definition's own node
	// disc is, for an anyOf whose branches each fix a property to a
	// constant (ContentBlock's "type"), that property; byDisc maps its
	// constant to the branches that fix it so.
	disc   string
	byDisc map[string][]*snode
}

// An sprop is a property of an object schema: its schema (nil: any) and
// its bit among the required members (0: optional).
type sprop struct {
	node *snode
	bit  uint64
}

// A revisionSchema is the schema of one revision, compiled as it is
// needed: a definition (and what it refers to) on the first message that
// needs it, so that a process pays for the few definitions its
// conversation uses rather than for the whole schema (a one-shot check
// needs a handful of some three hundred). It is safe for concurrent use:
// judges of parallel sessions share it.
type revisionSchema struct {
	rev string
	mu  sync.Mutex
	c   *schemaCompiler
	// methodDef maps a method to the name of its request or notification
	// definition (read off every definition's method constant, unparsed).
	methodDef map[string]string
	// done holds what was looked up, compiled (nil: not in the schema).
	methods, params, result map[string]*snode
	defs                    map[string]*snode
	err                     *snode
	errDone                 bool
}

var (
	schemaOnce  = map[string]*sync.Once{}
	schemaCache = map[string]*revisionSchema{}
)

func init() {
	for _, rev := range mcpschema.Revisions {
		schemaOnce[rev] = new(sync.Once)
	}
}

// schemaOf returns the schema of revision rev, indexing it on first use;
// nil for a revision linesman carries no schema of.
func schemaOf(rev string) *revisionSchema {
	once := schemaOnce[rev]
	if once == nil {
		return nil
	}
	once.Do(func() { schemaCache[rev] = indexRevision(rev) })
	return schemaCache[rev]
}

// indexRevision makes the schema of rev ready to compile: its definitions,
// unparsed, and the method of each request and notification, from the
// index generated beside this file (schemaindex_gen.go) or, for a schema
// that index is not of, read off the schema's bytes.
func indexRevision(rev string) *revisionSchema {
	schema := mcpschema.Schema(rev)
	idx := indexOf(rev, schema)
	rs := &revisionSchema{rev: rev, methodDef: map[string]string{},
		methods: map[string]*snode{}, params: map[string]*snode{}, result: map[string]*snode{}, defs: map[string]*snode{}}
	c := &schemaCompiler{rev: rev, raws: make(map[string][]byte, len(idx.defs)), raw: map[string]any{}, prefix: idx.prefix, defs: map[string]*snode{}}
	for _, d := range idx.defs {
		c.raws[d.name] = schema[d.start:d.end:d.end]
		if d.method != "" {
			rs.methodDef[d.method] = d.name
		}
	}
	rs.c = c
	return rs
}

// compile compiles the definition name and everything it refers to, once;
// nil when the revision has no such definition. Called with rs.mu held.
func (rs *revisionSchema) compile(name string) *snode {
	c := rs.c
	if c.raws[name] == nil {
		return nil
	}
	u, p := len(c.unions), len(c.pending)
	n := c.def(name)
	for _, x := range c.unions[u:] {
		x.discriminate()
	}
	for _, x := range c.pending[p:] {
		x.prune()
	}
	return n
}

// def returns the compiled definition name (nil: none).
func (rs *revisionSchema) def(name string) *snode {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n, ok := rs.defs[name]
	if !ok {
		n = rs.compile(name)
		rs.defs[name] = n
	}
	return n
}

// method returns the request or notification definition of method (nil:
// none in this revision).
func (rs *revisionSchema) method(method string) *snode {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n, ok := rs.methods[method]
	if !ok {
		if name := rs.methodDef[method]; name != "" {
			n = rs.compile(name)
		}
		rs.methods[method] = n
	}
	return n
}

// paramsOf returns the params subschema of method's definition.
func (rs *revisionSchema) paramsOf(method string) *snode {
	n := rs.method(method)
	if n == nil {
		return nil
	}
	if p := n.props["params"]; p != nil {
		return p.node
	}
	return nil
}

// resultFor returns the schema of the result of method's request: its
// ...ResultResponse's result where the revision has one, else its
// ...Result, else EmptyResult (ping, logging/setLevel, subscribe).
func (rs *revisionSchema) resultFor(method string) *snode {
	base, ok := strings.CutSuffix(rs.methodDef[method], "Request")
	if !ok {
		return nil
	}
	rs.mu.Lock()
	n, done := rs.result[method]
	rs.mu.Unlock()
	if done {
		return n
	}
	if resp := rs.def(base + "ResultResponse"); resp != nil && resp.props["result"] != nil {
		n = resp.props["result"].node
	} else if n = rs.def(base + "Result"); n == nil {
		n = rs.def("EmptyResult")
	}
	rs.mu.Lock()
	rs.result[method] = n
	rs.mu.Unlock()
	return n
}

// errSchema returns the schema of an error response's error object.
func (rs *revisionSchema) errSchema() *snode {
	for _, name := range []string{"JSONRPCErrorResponse", "JSONRPCError"} {
		if n := rs.def(name); n != nil && n.props["error"] != nil {
			return n.props["error"].node
		}
	}
	return nil
}

// A schemaCompiler compiles one revision's definitions.
type schemaCompiler struct {
	rev string
	// raws are the definitions as written; raw those decoded so far, with
	// the known differences from schema.ts applied.
	raws   map[string][]byte
	raw    map[string]any
	prefix string
	defs   map[string]*snode
	unions []*snode // the nodes with an anyOf, discriminated once all are compiled
	// pending are the object nodes whose members' schemas are pruned
	// (see prune) once every definition is compiled.
	pending []*snode
}

// def compiles the definition name once; a reference to a definition being
// compiled gets its (not yet filled) node, so recursion closes.
func (c *schemaCompiler) def(name string) *snode {
	if n, ok := c.defs[name]; ok {
		return n
	}
	n := &snode{maxItems: -1}
	c.defs[name] = n
	c.fill(n, c.decoded(name))
	n.def = name
	return n
}

// decoded is the definition name, decoded, with the known differences
// from schema.ts applied.
func (c *schemaCompiler) decoded(name string) any {
	if d, ok := c.raw[name]; ok {
		return d
	}
	var d any
	_ = json.Unmarshal(c.raws[name], &d)
	one := map[string]any{name: d}
	for _, diff := range knownDifferences {
		if diff.applies(c.rev) {
			diff.patch(one)
		}
	}
	c.raw[name] = one[name]
	return one[name]
}

// node compiles a subschema.
func (c *schemaCompiler) node(s any) *snode {
	n := &snode{maxItems: -1}
	c.fill(n, s)
	return n
}

// fill compiles the keywords of s into n; a keyword it does not know (an
// annotation, or one the MCP schemas never use) constrains nothing.
func (c *schemaCompiler) fill(n *snode, s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return // true, or anything else: allows anything
	}
	if ref, ok := m["$ref"].(string); ok {
		if name, ok := strings.CutPrefix(ref, c.prefix); ok && c.raws[name] != nil {
			n.ref = c.def(name)
		}
	}
	switch t := m["type"].(type) {
	case string:
		n.types = typeBits[t]
	case []any:
		for _, e := range t {
			s, _ := e.(string)
			n.types |= typeBits[s]
		}
	}
	if p, ok := m["properties"].(map[string]any); ok {
		n.props = make(map[string]*sprop, len(p))
		for k, sub := range p {
			n.props[k] = &sprop{node: c.node(sub)}
		}
	}
	c.fillRequired(n, m)
	if a, ok := m["additionalProperties"]; ok {
		if b, isBool := a.(bool); !isBool || !b {
			n.addl = c.node(a)
		}
	}
	c.pending = append(c.pending, n)
	if it, ok := m["items"]; ok {
		n.items = c.node(it)
	}
	if v, ok := m["maxItems"].(float64); ok {
		n.maxItems = int(v)
	}
	if v, ok := m["minimum"].(float64); ok {
		n.min = &v
	}
	if v, ok := m["maximum"].(float64); ok {
		n.max = &v
	}
	if v, ok := m["const"]; ok {
		n.consts = []any{v}
	}
	if e, ok := m["enum"].([]any); ok {
		n.consts = e
	}
	for _, s := range asList(m["allOf"]) {
		n.allOf = append(n.allOf, c.node(s))
	}
	for _, s := range asList(m["anyOf"]) {
		n.anyOf = append(n.anyOf, c.node(s))
	}
	for _, s := range asList(m["oneOf"]) { // MCP's oneOfs are disjoint: anyOf judges them alike
		n.anyOf = append(n.anyOf, c.node(s))
	}
	if n.anyOf != nil {
		c.unions = append(c.unions, n)
	}
}

// fillRequired records the required members, each with its bit.
func (c *schemaCompiler) fillRequired(n *snode, m map[string]any) {
	for i, r := range asList(m["required"]) {
		name, ok := r.(string)
		if !ok || i >= 64 {
			continue
		}
		if n.props == nil {
			n.props = map[string]*sprop{}
		}
		p := n.props[name]
		if p == nil {
			p = &sprop{}
			n.props[name] = p
		}
		p.bit = 1 << i
		n.required = append(n.required, name)
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// free reports whether n allows anything (it constrains nothing, and
// neither does a definition it names): validation need not look inside a
// value it governs.
func (n *snode) free() bool {
	for ; n != nil; n = n.ref {
		if n.types != 0 || n.props != nil || n.addl != nil || n.items != nil || n.maxItems >= 0 ||
			n.consts != nil || n.min != nil || n.max != nil || n.anyOf != nil || n.allOf != nil {
			return false
		}
	}
	return true
}

// prune drops the member schemas that allow anything, so that validation
// steps over those members unread.
func (n *snode) prune() {
	if n.addl.free() {
		n.addl = nil
	}
	for _, p := range n.props {
		if p.node.free() {
			p.node = nil
		}
	}
}

// target is the node a $ref-only node stands for.
func (n *snode) target() *snode {
	for n.ref != nil && n.types == 0 && n.props == nil && n.anyOf == nil && n.allOf == nil && n.consts == nil {
		n = n.ref
	}
	return n
}

// discriminate finds, for an anyOf, a property every branch fixes to a
// constant string, so that validation tries only the branches the
// instance's value names (and blames the right one when it fails).
func (n *snode) discriminate() {
	if len(n.anyOf) < 2 {
		return
	}
	for key := range n.anyOf[0].target().props {
		by := map[string][]*snode{}
		for _, b := range n.anyOf {
			p := b.target().props[key]
			if p == nil || p.node == nil || len(p.node.consts) != 1 {
				by = nil
				break
			}
			s, ok := p.node.consts[0].(string)
			if !ok {
				by = nil
				break
			}
			by[s] = append(by[s], b)
		}
		if by != nil {
			n.disc, n.byDisc = key, by
			return
		}
	}
}
