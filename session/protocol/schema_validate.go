package protocol

import (
	"encoding/json"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A validation is one instance checked against a [jsonSchema].
type validation struct {
	s      *jsonSchema
	budget int // subschemas still allowed (see maxSchemaSteps)
	depth  int // subschemas applied one within another
}

// maxSchemaDepth bounds how deep subschemas nest in one validation: a
// $ref that loops without going deeper into the instance ends there.
const maxSchemaDepth = 512

// judgement accumulates keyword verdicts by conjunction: one definite
// failure makes the whole invalid; else one unknown makes it unknown.
type judgement struct {
	v   schemaVerdict
	msg string
}

func (j *judgement) add(v schemaVerdict, msg string) {
	switch {
	case v == verdictInvalid && j.v != verdictInvalid:
		j.v, j.msg = v, msg
	case v == verdictUnknown && j.v == verdictValid:
		j.v, j.msg = v, msg
	}
}

// unjudged are the keywords linesman knows change a verdict but does not
// evaluate: a schema that uses one is "unknown" at best, never a foul.
var unjudged = []string{"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef", "dependencies"}

// schema validates inst (at instance location at) against the schema sch.
func (v *validation) schema(sch any, inst any, at string) (schemaVerdict, string) {
	v.budget--
	if v.budget < 0 || v.depth >= maxSchemaDepth {
		return verdictUnknown, "the schema asks for more work than linesman does per value"
	}
	v.depth++
	defer func() { v.depth-- }()
	m, ok := sch.(map[string]any)
	if !ok {
		if b, isBool := sch.(bool); isBool && !b {
			return verdictInvalid, "at " + where(at) + ": the schema is false (nothing is allowed there)"
		}
		return verdictValid, ""
	}
	var j judgement
	if ref, ok := m["$ref"].(string); ok {
		j.add(v.ref(ref, inst, at))
		if v.s.dialect >= draft07 {
			return j.v, j.msg // before 2019-09, $ref's siblings are ignored
		}
	}
	for _, kw := range unjudged {
		if _, ok := m[kw]; ok && keywordIn(kw, v.s.dialect) {
			j.add(verdictUnknown, "the schema uses "+kw+", which linesman does not judge")
		}
	}
	j.add(v.generic(m, inst, at))
	switch x := inst.(type) {
	case map[string]any:
		j.add(v.object(m, x, at))
	case []any:
		j.add(v.array(m, x, at))
	case string:
		j.add(v.str(m, x, at))
	case json.Number:
		j.add(v.number(m, x, at))
	}
	j.add(v.combinators(m, inst, at))
	return j.v, j.msg
}

// ref follows a "#" or "#/..." reference within the document.
func (v *validation) ref(ref string, inst any, at string) (schemaVerdict, string) {
	if v.s.ownBases {
		return verdictUnknown, "the schema sets $id in a subschema: linesman does not follow its $ref " + quoteForMsg(ref)
	}
	target, ok := v.s.resolvePointer(ref)
	if !ok {
		return verdictUnknown, "linesman does not follow the $ref " + quoteForMsg(ref)
	}
	return v.schema(target, inst, at)
}

// generic applies type, enum and const.
func (v *validation) generic(m map[string]any, inst any, at string) (schemaVerdict, string) {
	var j judgement
	if t, ok := m["type"]; ok {
		j.add(typeMatches(t, inst, at))
	}
	if e, ok := m["enum"].([]any); ok {
		j.add(enumMatches(e, inst, at))
	}
	if c, ok := m["const"]; ok && keywordIn("const", v.s.dialect) {
		switch jsonEqual(c, inst) {
		case verdictInvalid:
			j.add(verdictInvalid, "at "+where(at)+": the value is not the schema's const")
		case verdictUnknown:
			j.add(verdictUnknown, "at "+where(at)+": linesman cannot compare numbers this large")
		}
	}
	return j.v, j.msg
}

// typeMatches applies "type".
func typeMatches(t any, inst any, at string) (schemaVerdict, string) {
	names := []string{}
	switch x := t.(type) {
	case string:
		names = append(names, x)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				names = append(names, s)
			}
		}
	}
	kind := jsonTypeName(inst)
	unknown := false
	for _, n := range names {
		switch {
		case n == kind, n == "number" && kind == "integer":
			return verdictValid, ""
		case n == "integer" && kind == "number":
			if r, ok := ratOf(inst.(json.Number)); !ok {
				unknown = true
			} else if r.IsInt() {
				return verdictValid, ""
			}
		}
	}
	if unknown {
		return verdictUnknown, "at " + where(at) + ": linesman cannot tell whether a number this large is an integer"
	}
	if kind == "integer" {
		kind = "number"
	}
	return verdictInvalid, "at " + where(at) + ": got " + kind + ", want " + strings.Join(names, " or ")
}

// jsonTypeName is the JSON Schema type of a decoded value ("integer" for
// a number written without a fraction or exponent: others are told apart
// where it matters).
func jsonTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// enumMatches applies "enum".
func enumMatches(e []any, inst any, at string) (schemaVerdict, string) {
	unknown := false
	for _, want := range e {
		switch jsonEqual(want, inst) {
		case verdictValid:
			return verdictValid, ""
		case verdictUnknown:
			unknown = true
		}
	}
	if unknown {
		return verdictUnknown, "at " + where(at) + ": linesman cannot compare numbers this large"
	}
	return verdictInvalid, "at " + where(at) + ": the value is not one of the schema's enum"
}

// combinators applies allOf, anyOf, oneOf, not and if/then/else.
func (v *validation) combinators(m map[string]any, inst any, at string) (schemaVerdict, string) {
	var j judgement
	if all, ok := m["allOf"].([]any); ok {
		for _, sub := range all {
			j.add(v.schema(sub, inst, at))
		}
	}
	if any_, ok := m["anyOf"].([]any); ok {
		j.add(v.anyOf(any_, inst, at))
	}
	if one, ok := m["oneOf"].([]any); ok {
		j.add(v.oneOf(one, inst, at))
	}
	if not, ok := m["not"]; ok {
		switch r, _ := v.schema(not, inst, at); r {
		case verdictValid:
			j.add(verdictInvalid, "at "+where(at)+": the value matches the schema under not")
		case verdictUnknown:
			j.add(verdictUnknown, "at "+where(at)+": linesman cannot judge the schema under not")
		}
	}
	if cond, ok := m["if"]; ok && keywordIn("if", v.s.dialect) {
		j.add(v.ifThenElse(m, cond, inst, at))
	}
	return j.v, j.msg
}

// anyOf is valid when one branch surely is, invalid when all surely fail.
func (v *validation) anyOf(subs []any, inst any, at string) (schemaVerdict, string) {
	unknown, why := false, ""
	for _, sub := range subs {
		switch r, msg := v.schema(sub, inst, at); r {
		case verdictValid:
			return verdictValid, ""
		case verdictUnknown:
			unknown, why = true, msg
		}
	}
	if unknown {
		return verdictUnknown, why
	}
	return verdictInvalid, "at " + where(at) + ": the value matches none of anyOf's " + strconv.Itoa(len(subs)) + " schemas"
}

// oneOf counts the branches that surely match and those it cannot judge.
func (v *validation) oneOf(subs []any, inst any, at string) (schemaVerdict, string) {
	valid, unknown, why := 0, 0, ""
	for _, sub := range subs {
		switch r, msg := v.schema(sub, inst, at); r {
		case verdictValid:
			valid++
		case verdictUnknown:
			unknown, why = unknown+1, msg
		}
	}
	switch {
	case valid > 1:
		return verdictInvalid, "at " + where(at) + ": the value matches " + strconv.Itoa(valid) + " of oneOf's schemas, not exactly one"
	case unknown > 0:
		return verdictUnknown, why
	case valid == 0:
		return verdictInvalid, "at " + where(at) + ": the value matches none of oneOf's " + strconv.Itoa(len(subs)) + " schemas"
	}
	return verdictValid, ""
}

// ifThenElse applies then or else by the outcome of if; when if cannot be
// judged, the two must agree.
func (v *validation) ifThenElse(m map[string]any, cond, inst any, at string) (schemaVerdict, string) {
	branch := func(kw string) (schemaVerdict, string) {
		if sub, ok := m[kw]; ok {
			return v.schema(sub, inst, at)
		}
		return verdictValid, ""
	}
	switch r, _ := v.schema(cond, inst, at); r {
	case verdictValid:
		return branch("then")
	case verdictInvalid:
		return branch("else")
	}
	t, tmsg := branch("then")
	e, _ := branch("else")
	if t == e && t != verdictUnknown {
		return t, tmsg
	}
	return verdictUnknown, "at " + where(at) + ": linesman cannot judge the schema under if"
}

// str applies minLength, maxLength and pattern.
func (v *validation) str(m map[string]any, s string, at string) (schemaVerdict, string) {
	var j judgement
	n := utf8.RuneCountInString(s)
	if lim, ok := countOf(m["minLength"]); ok && n < lim {
		j.add(verdictInvalid, "at "+where(at)+": the string has "+strconv.Itoa(n)+" characters, fewer than minLength "+strconv.Itoa(lim))
	}
	if lim, ok := countOf(m["maxLength"]); ok && n > lim {
		j.add(verdictInvalid, "at "+where(at)+": the string has "+strconv.Itoa(n)+" characters, more than maxLength "+strconv.Itoa(lim))
	}
	if p, ok := m["pattern"].(string); ok {
		switch v.s.matches(p, s) {
		case verdictInvalid:
			j.add(verdictInvalid, "at "+where(at)+": the string does not match the pattern "+quoteForMsg(p))
		case verdictUnknown:
			j.add(verdictUnknown, "at "+where(at)+": linesman does not judge the pattern "+quoteForMsg(p)+" on this string")
		}
	}
	return j.v, j.msg
}

// matches reports whether s matches the pattern src (a search, not
// anchored, as ECMA-262's test). A mismatch on non-ASCII text is
// unknown: there ECMA-262's classes (\s, \w, and . on UTF-16 code units)
// and Go's differ.
func (s *jsonSchema) matches(src, str string) schemaVerdict {
	re := s.patterns[src]
	if re == nil {
		return verdictUnknown
	}
	if re.MatchString(str) {
		return verdictValid
	}
	for i := 0; i < len(str); i++ {
		if str[i] >= utf8.RuneSelf {
			return verdictUnknown
		}
	}
	return verdictInvalid
}

// countOf reads a keyword's non-negative integer value.
func countOf(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		if r, ok := ratOf(n); ok && r.IsInt() && r.Sign() > 0 {
			return int(^uint(0) >> 1), true // beyond any count
		} else if ok && r.IsInt() && r.Sign() == 0 {
			return 0, true
		}
		return 0, false
	}
	if i < 0 {
		return 0, false
	}
	return int(min(i, int64(^uint(0)>>1))), true
}

// ratOf is the exact value of a JSON number, unless its exponent is so
// large that working with it would cost too much (then ok is false).
func ratOf(n json.Number) (*big.Rat, bool) {
	s := string(n)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > 400 || e < -400 {
			return nil, false
		}
	}
	return numberRat(n)
}

// jsonEqual compares two decoded JSON values as JSON Schema does (1 and
// 1.0 are equal; object members in any order); unknown when a number is
// too large to compare.
func jsonEqual(a, b any) schemaVerdict {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return verdictInvalid
		}
		if x == y {
			return verdictValid
		}
		rx, okx := ratOf(x)
		ry, oky := ratOf(y)
		if !okx || !oky {
			return verdictUnknown
		}
		return boolVerdict(rx.Cmp(ry) == 0)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return verdictInvalid
		}
		var j judgement
		for i := range x {
			j.add(jsonEqual(x[i], y[i]), "")
		}
		return j.v
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return verdictInvalid
		}
		var j judgement
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return verdictInvalid
			}
			j.add(jsonEqual(xv, yv), "")
		}
		return j.v
	}
	return boolVerdict(a == b)
}

func boolVerdict(b bool) schemaVerdict {
	if b {
		return verdictValid
	}
	return verdictInvalid
}

// sortedKeys are an object's keys in order, so that messages are stable.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
