package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// A Change is one difference between the definitions of two runs: a tool,
// prompt or resource added, removed or changed. Code is its registry code
// (the drift family); Breaking says whether clients written against the
// old definitions can break (see [CompareDefinitions]).
type Change struct {
	Kind     string   `json:"kind"` // "tool", "prompt" or "resource"
	Name     string   `json:"name"` // a tool's or prompt's name, a resource's uri
	Code     string   `json:"code"`
	Breaking bool     `json:"breaking"`
	Details  []string `json:"details,omitempty"`
	// seq is the frame of the new listing (0: none, or read from a file).
	seq uint64
}

// Seq is the frame of the listing the change was seen in (0 when none).
func (c Change) Seq() uint64 { return c.seq }

// Message is the change in one line, for a finding.
func (c Change) Message() string {
	verb := map[string]string{"added": "is new", "removed": "is gone"}[c.Code[strings.LastIndexByte(c.Code, '-')+1:]]
	if verb == "" {
		verb = "changed"
	}
	msg := fmt.Sprintf("%s %q %s", c.Kind, c.Name, verb)
	if len(c.Details) > 0 {
		msg += ": " + strings.Join(c.Details, "; ")
	}
	return msg
}

// CompareDefinitions lists what changed from old to cur, kind by kind, in
// name order. A kind listed in neither is not compared; one listed before
// and not now lost all its items. Breaking changes are: a tool, prompt or
// resource removed; a tool's inputSchema changed so that arguments valid
// before may be refused (a property removed or retyped, a new required
// property, an enum narrowed or added, a constraint added or changed,
// additionalProperties closed); a prompt argument removed or newly
// required. A changed description is reported on its own code
// (tool-description-changed) since the model reads it: security-relevant.
func CompareDefinitions(old, cur *Definitions) []Change {
	var out []Change
	for _, k := range []struct{ kind, list string }{{"tool", "tools"}, {"prompt", "prompts"}, {"resource", "resources"}} {
		if !slices.Contains(old.Listed, k.list) && !slices.Contains(cur.Listed, k.list) {
			continue
		}
		before, after := byName(*old.list(k.list)), byName(*cur.list(k.list))
		for _, name := range unionKeys(before, after) {
			b, inB := before[name]
			a, inA := after[name]
			switch {
			case !inA:
				out = append(out, Change{Kind: k.kind, Name: name, Code: k.kind + "-removed", Breaking: true})
			case !inB:
				out = append(out, Change{Kind: k.kind, Name: name, Code: k.kind + "-added", seq: a.seq})
			default:
				for _, c := range compareItem(k.kind, name, b.Definition, a.Definition) {
					c.seq = a.seq
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// byName indexes definitions by name.
func byName(defs []Definition) map[string]Definition {
	m := make(map[string]Definition, len(defs))
	for _, d := range defs {
		m[d.Name] = d
	}
	return m
}

// unionKeys is the sorted union of two maps' keys.
func unionKeys[V any](a, b map[string]V) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// compareItem compares one item present in both runs.
func compareItem(kind, name string, before, after json.RawMessage) []Change {
	var b, a map[string]any
	if json.Unmarshal(before, &b) != nil || json.Unmarshal(after, &a) != nil || reflect.DeepEqual(a, b) {
		return nil
	}
	var out []Change
	var other []string // keys that changed, other than those judged apart
	if !reflect.DeepEqual(b["description"], a["description"]) {
		d := fmt.Sprintf("description changed (security-relevant: the model reads it) from %s to %s", quoteCut(b["description"]), quoteCut(a["description"]))
		if kind == "tool" {
			out = append(out, Change{Kind: kind, Name: name, Code: "tool-description-changed", Details: []string{d}})
		} else {
			other = append(other, d)
		}
	}
	var breaking, compatible []string
	switch kind {
	case "tool":
		breaking, compatible = schemaChanges("inputSchema", b["inputSchema"], a["inputSchema"])
	case "prompt":
		breaking, compatible = promptArgChanges(b["arguments"], a["arguments"])
	}
	for _, key := range unionKeys(b, a) {
		if key == "description" || (kind == "tool" && key == "inputSchema") || (kind == "prompt" && key == "arguments") {
			continue
		}
		if !reflect.DeepEqual(b[key], a[key]) {
			compatible = append(compatible, key+" changed")
		}
	}
	if kind == "tool" && len(breaking) > 0 {
		out = append(out, Change{Kind: kind, Name: name, Code: "tool-input-schema-breaking", Breaking: true, Details: breaking})
		breaking = nil
	}
	details := append(append(other, breaking...), compatible...)
	if len(details) > 0 {
		out = append(out, Change{Kind: kind, Name: name, Code: kind + "-definition-changed", Breaking: len(breaking) > 0, Details: details})
	}
	return out
}

// quoteCut quotes a value of a definition, cut to a readable length.
func quoteCut(v any) string {
	s, ok := v.(string)
	if !ok {
		if v == nil {
			return "none"
		}
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// narrowing are schema keywords whose addition or change can refuse
// arguments that were valid before.
var narrowing = []string{"const", "format", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "multipleOf",
	"oneOf", "anyOf", "allOf", "not", "$ref"}

// schemaChanges compares two JSON Schemas structurally and sorts what
// changed into what can refuse arguments valid before (breaking) and what
// cannot (compatible). It follows properties and items.
func schemaChanges(path string, before, after any) (breaking, compatible []string) {
	if reflect.DeepEqual(before, after) {
		return nil, nil
	}
	b, okB := before.(map[string]any)
	a, okA := after.(map[string]any)
	if !okB || !okA {
		return []string{path + " replaced"}, nil
	}
	if tb, ta := typeSet(b["type"]), typeSet(a["type"]); !reflect.DeepEqual(tb, ta) {
		if tb == nil || !subset(tb, ta) {
			breaking = append(breaking, fmt.Sprintf("%s: type %v became %v", path, orAny(tb), orAny(ta)))
		} else {
			compatible = append(compatible, fmt.Sprintf("%s: type widened from %v to %v", path, orAny(tb), ta))
		}
	}
	pb, _ := b["properties"].(map[string]any)
	pa, _ := a["properties"].(map[string]any)
	for _, p := range unionKeys(pb, pa) {
		sub := path + "." + p
		vb, inB := pb[p]
		va, inA := pa[p]
		switch {
		case !inB:
			compatible = append(compatible, sub+" added")
		case !inA:
			breaking = append(breaking, sub+" removed")
		default:
			br, co := schemaChanges(sub, vb, va)
			breaking, compatible = append(breaking, br...), append(compatible, co...)
		}
	}
	rb, ra := typeSet(b["required"]), typeSet(a["required"])
	for _, r := range ra {
		if !slices.Contains(rb, r) {
			breaking = append(breaking, fmt.Sprintf("%s.%s is now required", path, r))
		}
	}
	if b["additionalProperties"] != false && a["additionalProperties"] == false {
		breaking = append(breaking, path+": additionalProperties closed")
	}
	breaking = append(breaking, enumChanges(path, b["enum"], a["enum"])...)
	if b["items"] != nil || a["items"] != nil {
		br, co := schemaChanges(path+"[]", b["items"], a["items"])
		breaking, compatible = append(breaking, br...), append(compatible, co...)
	}
	for _, k := range narrowing {
		if va, ok := a[k]; ok && !reflect.DeepEqual(b[k], va) {
			breaking = append(breaking, fmt.Sprintf("%s: %s added or changed", path, k))
		}
	}
	if len(breaking) == 0 && len(compatible) == 0 {
		compatible = append(compatible, path+": annotations changed (description, title, default, examples)")
	}
	return breaking, compatible
}

// enumChanges: an enum added, or values taken out of one, are breaking.
func enumChanges(path string, before, after any) []string {
	ea, ok := after.([]any)
	if !ok {
		return nil
	}
	eb, had := before.([]any)
	if !had {
		return []string{path + ": enum added"}
	}
	var out []string
	for _, v := range eb {
		if !slices.ContainsFunc(ea, func(x any) bool { return reflect.DeepEqual(x, v) }) {
			out = append(out, fmt.Sprintf("%s: enum value %v removed", path, v))
		}
	}
	return out
}

// typeSet reads a "type" or "required" value as a sorted list of strings
// (nil when absent).
func typeSet(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		sort.Strings(out)
		return out
	}
	return nil
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) && !(x == "integer" && slices.Contains(b, "number")) {
			return false
		}
	}
	return true
}

func orAny(t []string) any {
	if t == nil {
		return "any"
	}
	return t
}

// promptArgChanges: a prompt argument removed, or required now and not
// before, is breaking; one added optional, or no longer required, is not.
func promptArgChanges(before, after any) (breaking, compatible []string) {
	args := func(v any) map[string]map[string]any {
		m := map[string]map[string]any{}
		list, _ := v.([]any)
		for _, x := range list {
			if o, ok := x.(map[string]any); ok {
				if n, ok := o["name"].(string); ok {
					m[n] = o
				}
			}
		}
		return m
	}
	ab, aa := args(before), args(after)
	for _, n := range unionKeys(ab, aa) {
		ob, inB := ab[n]
		oa, inA := aa[n]
		switch {
		case !inA:
			breaking = append(breaking, fmt.Sprintf("argument %q removed", n))
		case !inB && oa["required"] == true:
			breaking = append(breaking, fmt.Sprintf("argument %q added, required", n))
		case !inB:
			compatible = append(compatible, fmt.Sprintf("argument %q added", n))
		case ob["required"] != true && oa["required"] == true:
			breaking = append(breaking, fmt.Sprintf("argument %q is now required", n))
		case !reflect.DeepEqual(ob, oa):
			compatible = append(compatible, fmt.Sprintf("argument %q changed", n))
		}
	}
	return breaking, compatible
}
