package protocol

// A schemaDifference is a place where a revision's schema.json is stricter
// than the schema.ts it was generated from. schema.ts is "the source of
// truth for all protocol messages and structures" (Basic › Schema): the
// judge patches the decoded schema.json before compiling it, so that it
// never calls a foul schema.ts allows. Each entry has a test
// (TestKnownSchemaDifferences) with a message schema.json refuses and
// schema.ts allows.
type schemaDifference struct {
	name string
	// revs are the revisions it applies to (nil: every one).
	revs []string
	// json and ts say what each source says.
	json, ts string
	patch    func(defs map[string]any)
}

func (d schemaDifference) applies(rev string) bool {
	if d.revs == nil {
		return true
	}
	for _, r := range d.revs {
		if r == rev {
			return true
		}
	}
	return false
}

var knownDifferences = []schemaDifference{
	{
		name: "integer where schema.ts says number",
		json: `"type": "integer" (ProgressToken and RequestId as ["string", "integer"], ElicitResult's content values as ["string", "integer", "boolean"], CreateMessageRequestParams.maxTokens, Resource.size, CompleteResult's completion.total, Error.code, Task.ttl and pollInterval, ttlMs, StringSchema.minLength…)`,
		ts:   `number (TypeScript has no integer type; the generator turned every number it was not told was a number, with @TJS-type number, into "integer")`,
		patch: func(defs map[string]any) {
			walkSchemas(defs, func(s map[string]any) {
				switch t := s["type"].(type) {
				case string:
					if t == "integer" {
						s["type"] = "number"
					}
				case []any:
					for i, e := range t {
						if e == "integer" {
							t[i] = "number"
						}
					}
				}
			})
		},
	},
	{
		name: "JSONValue without null",
		revs: []string{V20260728},
		json: `JSONValue: anyOf JSONObject, array of JSONValue, ["string", "integer", "boolean"] (no null)`,
		ts:   `type JSONValue = string | number | boolean | null | JSONObject | JSONArray`,
		patch: func(defs map[string]any) {
			v, _ := defs["JSONValue"].(map[string]any)
			for _, b := range asList(v["anyOf"]) {
				if m, ok := b.(map[string]any); ok {
					if t, ok := m["type"].([]any); ok {
						m["type"] = append(t, "null")
					}
				}
			}
		},
	},
}

// walkSchemas calls fn with every object in the definitions, schema or
// not (a property named "type" holds a schema, never a string, so
// rewriting string "type" values touches keywords only).
func walkSchemas(v any, fn func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(x)
		for _, e := range x {
			walkSchemas(e, fn)
		}
	case []any:
		for _, e := range x {
			walkSchemas(e, fn)
		}
	}
}
