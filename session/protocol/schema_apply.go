package protocol

import (
	"encoding/json"
	"math/big"
	"strconv"
)

// object applies the keywords about objects.
func (v *validation) object(m map[string]any, obj map[string]any, at string) (schemaVerdict, string) {
	var j judgement
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				if _, has := obj[name]; !has {
					j.add(verdictInvalid, "at "+where(at)+": the required member "+quoteForMsg(name)+" is missing")
				}
			}
		}
	}
	if n, ok := countOf(m["minProperties"]); ok && len(obj) < n {
		j.add(verdictInvalid, "at "+where(at)+": "+strconv.Itoa(len(obj))+" members, fewer than minProperties "+strconv.Itoa(n))
	}
	if n, ok := countOf(m["maxProperties"]); ok && len(obj) > n {
		j.add(verdictInvalid, "at "+where(at)+": "+strconv.Itoa(len(obj))+" members, more than maxProperties "+strconv.Itoa(n))
	}
	props, _ := m["properties"].(map[string]any)
	patterns, _ := m["patternProperties"].(map[string]any)
	additional, hasAdditional := m["additionalProperties"]
	for _, k := range sortedKeys(obj) {
		j.add(v.member(k, obj[k], props, patterns, additional, hasAdditional, at))
	}
	j.add(v.dependents(m, obj, at))
	if names, ok := m["propertyNames"]; ok && keywordIn("propertyNames", v.s.dialect) {
		for _, k := range sortedKeys(obj) {
			j.add(v.schema(names, k, at+"/"+escapePointer(k)))
		}
	}
	return j.v, j.msg
}

// member applies properties, patternProperties and additionalProperties
// to the member k.
func (v *validation) member(k string, val any, props, patterns map[string]any, additional any, hasAdditional bool, at string) (schemaVerdict, string) {
	var j judgement
	here := at + "/" + escapePointer(k)
	covered := verdictInvalid // whether properties or a pattern covers k
	if sub, ok := props[k]; ok {
		covered = verdictValid
		j.add(v.schema(sub, val, here))
	}
	for _, p := range sortedKeys(patterns) {
		switch v.s.matches(p, k) {
		case verdictValid:
			if covered != verdictValid {
				covered = verdictValid
			}
			j.add(v.schema(patterns[p], val, here))
		case verdictUnknown:
			if covered == verdictInvalid {
				covered = verdictUnknown
			}
			// It may not apply: a failure under it is no foul.
			if r, msg := v.schema(patterns[p], val, here); r != verdictValid {
				j.add(verdictUnknown, msg)
			}
		}
	}
	if !hasAdditional || covered == verdictValid {
		return j.v, j.msg
	}
	r, msg := v.schema(additional, val, here)
	if r == verdictInvalid {
		if _, isBool := additional.(bool); isBool {
			msg = "at " + where(at) + ": the member " + quoteForMsg(k) + " is not allowed (additionalProperties is false)"
		}
		if covered == verdictUnknown {
			r, msg = verdictUnknown, "at "+where(at)+": linesman cannot tell whether a pattern covers the member "+quoteForMsg(k)
		}
	}
	j.add(r, msg)
	return j.v, j.msg
}

// dependents applies dependentRequired and dependentSchemas.
func (v *validation) dependents(m map[string]any, obj map[string]any, at string) (schemaVerdict, string) {
	var j judgement
	if !keywordIn("dependentRequired", v.s.dialect) {
		return verdictValid, ""
	}
	if deps, ok := m["dependentRequired"].(map[string]any); ok {
		for _, k := range sortedKeys(deps) {
			if _, has := obj[k]; !has {
				continue
			}
			names, _ := deps[k].([]any)
			for _, n := range names {
				if name, ok := n.(string); ok {
					if _, has := obj[name]; !has {
						j.add(verdictInvalid, "at "+where(at)+": "+quoteForMsg(k)+" is there, so "+quoteForMsg(name)+" must be too (dependentRequired)")
					}
				}
			}
		}
	}
	if deps, ok := m["dependentSchemas"].(map[string]any); ok {
		for _, k := range sortedKeys(deps) {
			if _, has := obj[k]; has {
				j.add(v.schema(deps[k], obj, at))
			}
		}
	}
	return j.v, j.msg
}

// array applies the keywords about arrays.
func (v *validation) array(m map[string]any, arr []any, at string) (schemaVerdict, string) {
	var j judgement
	if n, ok := countOf(m["minItems"]); ok && len(arr) < n {
		j.add(verdictInvalid, "at "+where(at)+": "+strconv.Itoa(len(arr))+" items, fewer than minItems "+strconv.Itoa(n))
	}
	if n, ok := countOf(m["maxItems"]); ok && len(arr) > n {
		j.add(verdictInvalid, "at "+where(at)+": "+strconv.Itoa(len(arr))+" items, more than maxItems "+strconv.Itoa(n))
	}
	if u, _ := m["uniqueItems"].(bool); u {
		j.add(v.unique(arr, at))
	}
	j.add(v.items(m, arr, at))
	if c, ok := m["contains"]; ok && keywordIn("contains", v.s.dialect) {
		j.add(v.contains(m, c, arr, at))
	}
	return j.v, j.msg
}

// items applies prefixItems and items (2020-12), or items as a schema or a
// tuple and additionalItems (before).
func (v *validation) items(m map[string]any, arr []any, at string) (schemaVerdict, string) {
	var j judgement
	var tuple []any
	rest, hasRest := m["items"]
	if v.s.dialect == draft2020 {
		tuple, _ = m["prefixItems"].([]any)
	} else if t, ok := rest.([]any); ok {
		tuple = t
		rest, hasRest = m["additionalItems"]
	}
	for i, el := range arr {
		here := at + "/" + strconv.Itoa(i)
		switch {
		case i < len(tuple):
			j.add(v.schema(tuple[i], el, here))
		case hasRest:
			j.add(v.schema(rest, el, here))
		}
	}
	return j.v, j.msg
}

// unique applies uniqueItems.
func (v *validation) unique(arr []any, at string) (schemaVerdict, string) {
	var j judgement
	for i := range arr {
		for k := i + 1; k < len(arr); k++ {
			if v.budget--; v.budget < 0 {
				return verdictUnknown, "the array is too long for linesman to compare its items"
			}
			switch jsonEqual(arr[i], arr[k]) {
			case verdictValid:
				j.add(verdictInvalid, "at "+where(at)+": items "+strconv.Itoa(i)+" and "+strconv.Itoa(k)+" are equal (uniqueItems)")
			case verdictUnknown:
				j.add(verdictUnknown, "at "+where(at)+": linesman cannot compare numbers this large")
			}
		}
	}
	return j.v, j.msg
}

// contains applies contains, minContains and maxContains.
func (v *validation) contains(m map[string]any, c any, arr []any, at string) (schemaVerdict, string) {
	valid, unknown := 0, 0
	for i, el := range arr {
		switch r, _ := v.schema(c, el, at+"/"+strconv.Itoa(i)); r {
		case verdictValid:
			valid++
		case verdictUnknown:
			unknown++
		}
	}
	least, most := 1, -1
	if keywordIn("minContains", v.s.dialect) {
		if n, ok := countOf(m["minContains"]); ok {
			least = n
		}
		if n, ok := countOf(m["maxContains"]); ok {
			most = n
		}
	}
	switch {
	case valid+unknown < least:
		return verdictInvalid, "at " + where(at) + ": " + strconv.Itoa(valid) + " items match contains, fewer than " + strconv.Itoa(least)
	case most >= 0 && valid > most:
		return verdictInvalid, "at " + where(at) + ": " + strconv.Itoa(valid) + " items match contains, more than " + strconv.Itoa(most)
	case valid < least || most >= 0 && valid+unknown > most:
		return verdictUnknown, "at " + where(at) + ": linesman cannot judge every item against contains"
	}
	return verdictValid, ""
}

// number applies minimum, maximum, exclusiveMinimum, exclusiveMaximum and
// multipleOf.
func (v *validation) number(m map[string]any, n json.Number, at string) (schemaVerdict, string) {
	var j judgement
	x, ok := ratOf(n)
	if !ok {
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
			if _, has := m[kw]; has {
				return verdictUnknown, "at " + where(at) + ": linesman cannot compare numbers this large"
			}
		}
		return verdictValid, ""
	}
	bound := func(kw string, fails func(cmp int) bool, words string) {
		lim, isNum := m[kw].(json.Number)
		if !isNum {
			return
		}
		r, ok := ratOf(lim)
		if !ok {
			j.add(verdictUnknown, "at "+where(at)+": linesman cannot compare numbers this large")
			return
		}
		if fails(x.Cmp(r)) {
			j.add(verdictInvalid, "at "+where(at)+": "+string(n)+" is "+words+" "+string(lim)+" ("+kw+")")
		}
	}
	exclMin, _ := m["exclusiveMinimum"].(bool) // draft-04: a flag on minimum
	exclMax, _ := m["exclusiveMaximum"].(bool)
	below, above := "below", "above"
	if exclMin {
		below = "not above"
	}
	if exclMax {
		above = "not below"
	}
	bound("minimum", func(c int) bool { return c < 0 || exclMin && c == 0 }, below)
	bound("maximum", func(c int) bool { return c > 0 || exclMax && c == 0 }, above)
	bound("exclusiveMinimum", func(c int) bool { return c <= 0 }, "not above")
	bound("exclusiveMaximum", func(c int) bool { return c >= 0 }, "not below")
	if mul, isNum := m["multipleOf"].(json.Number); isNum {
		if r, ok := ratOf(mul); !ok || r.Sign() <= 0 {
			j.add(verdictUnknown, "at "+where(at)+": linesman cannot divide by this multipleOf")
		} else if q := new(big.Rat).Quo(x, r); !q.IsInt() {
			j.add(verdictInvalid, "at "+where(at)+": "+string(n)+" is not a multiple of "+string(mul))
		}
	}
	return j.v, j.msg
}
