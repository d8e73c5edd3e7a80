package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCases are instances judged against schemas: valid, invalid, or
// unknown where linesman cannot stand behind a verdict (which must never
// become a finding).
var schemaCases = []struct {
	name, schema, instance string
	want                   schemaVerdict
}{
	{"type ok", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1}`, verdictValid},
	{"type wrong", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"one"}`, verdictInvalid},
	{"integer written 1.0", `{"type":"integer"}`, `1.0`, verdictValid},
	{"integer 1.5", `{"type":"integer"}`, `1.5`, verdictInvalid},
	{"integer is a number", `{"type":"number"}`, `7`, verdictValid},
	{"type list", `{"type":["string","null"]}`, `null`, verdictValid},
	{"required missing", `{"type":"object","required":["a"]}`, `{}`, verdictInvalid},
	{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, verdictInvalid},
	{"additionalProperties covered by pattern", `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":"s"}`, verdictValid},
	{"patternProperties applies", `{"patternProperties":{"^x-":{"type":"string"}}}`, `{"x-a":1}`, verdictInvalid},
	{"enum numbers compare by value", `{"enum":[1,2]}`, `1.0`, verdictValid},
	{"enum miss", `{"enum":["a","b"]}`, `"c"`, verdictInvalid},
	{"const object any order", `{"const":{"a":1,"b":[true,null]}}`, `{"b":[true,null],"a":1}`, verdictValid},
	{"const miss", `{"const":"x"}`, `"y"`, verdictInvalid},
	{"prefixItems and items", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a",1,2]`, verdictValid},
	{"items after prefix", `{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, `["a","b"]`, verdictInvalid},
	{"draft-07 tuple items", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, `["a",1]`, verdictInvalid},
	{"draft-07 $ref ignores siblings", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","minLength":5}`, `"ab"`, verdictValid},
	{"2020 $ref with siblings", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","minLength":5}`, `"ab"`, verdictInvalid},
	{"recursive $ref", `{"type":"object","properties":{"child":{"$ref":"#"}},"additionalProperties":false}`, `{"child":{"child":{"x":1}}}`, verdictInvalid},
	{"min/max items", `{"minItems":2,"maxItems":3}`, `[1]`, verdictInvalid},
	{"uniqueItems", `{"uniqueItems":true}`, `[1,{"a":1},1.0]`, verdictInvalid},
	{"min/max length counts characters", `{"maxLength":2}`, `"éé"`, verdictValid},
	{"minimum", `{"minimum":0}`, `-1`, verdictInvalid},
	{"exclusiveMaximum", `{"exclusiveMaximum":10}`, `10`, verdictInvalid},
	{"draft-04 exclusiveMinimum flag", `{"$schema":"http://json-schema.org/draft-04/schema#","minimum":0,"exclusiveMinimum":true}`, `0`, verdictInvalid},
	{"multipleOf exact", `{"multipleOf":0.1}`, `0.3`, verdictValid},
	{"multipleOf miss", `{"multipleOf":2}`, `3`, verdictInvalid},
	{"pattern searches", `{"pattern":"b+"}`, `"abbc"`, verdictValid},
	{"pattern miss", `{"pattern":"^[a-z]+$"}`, `"ABC"`, verdictInvalid},
	{"anyOf", `{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `true`, verdictInvalid},
	{"oneOf two match", `{"oneOf":[{"type":"integer"},{"minimum":0}]}`, `1`, verdictInvalid},
	{"oneOf one matches", `{"oneOf":[{"type":"integer"},{"type":"string"}]}`, `1`, verdictValid},
	{"not", `{"not":{"type":"string"}}`, `"s"`, verdictInvalid},
	{"if then", `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`, `{"k":"a","b":1}`, verdictInvalid},
	{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, verdictInvalid},
	{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["b"]}}}`, `{"a":1}`, verdictInvalid},
	{"propertyNames", `{"propertyNames":{"maxLength":3}}`, `{"abcd":1}`, verdictInvalid},
	{"contains", `{"contains":{"type":"string"}}`, `[1,2]`, verdictInvalid},
	{"maxContains", `{"contains":{"type":"string"},"maxContains":1}`, `["a","b"]`, verdictInvalid},
	{"false schema", `{"properties":{"a":false}}`, `{"a":1}`, verdictInvalid},
	{"format is an annotation", `{"type":"string","format":"email"}`, `"not an address"`, verdictValid},
	{"unknown keywords are annotations", `{"type":"string","x-widget":"big","title":"T"}`, `"s"`, verdictValid},

	// What linesman cannot judge is unknown, and stays so through not and
	// oneOf: no foul of its own making.
	{"unevaluatedProperties", `{"properties":{"a":{}},"unevaluatedProperties":false}`, `{"a":1,"b":2}`, verdictUnknown},
	{"not over the unjudged", `{"not":{"unevaluatedProperties":false}}`, `{"a":1}`, verdictUnknown},
	{"oneOf over the unjudged", `{"oneOf":[{"type":"object"},{"unevaluatedProperties":false}]}`, `{"a":1}`, verdictUnknown},
	{"a definite fault beside the unjudged", `{"type":"object","required":["a"],"unevaluatedProperties":false}`, `{}`, verdictInvalid},
	{"lookahead pattern", `{"pattern":"^(?!x)"}`, `"xy"`, verdictUnknown},
	{"POSIX class reads differently in ECMA-262", `{"pattern":"^[[:alpha:]]+$"}`, `"abc"`, verdictUnknown},
	{"mismatch on non-ASCII text", `{"pattern":"^\\s*$"}`, "\"\u00a0\"", verdictUnknown},
	{"external $ref", `{"$ref":"https://example.com/s.json"}`, `1`, verdictUnknown},
	{"$ref under a subschema $id", `{"$defs":{"a":{"$id":"other.json","$defs":{"b":{"type":"string"}}}},"$ref":"other.json#/$defs/b"}`, `1`, verdictUnknown},
	{"unknown dialect", `{"$schema":"https://example.com/my-dialect","type":"string"}`, `1`, verdictUnknown},
	{"a number too large to compare", `{"maximum":10}`, `1e999999999`, verdictUnknown},
	{"pattern property unjudged, additional false", `{"patternProperties":{"^(?=a)":{}},"additionalProperties":false}`, `{"ab":1}`, verdictUnknown},
	{"endless $ref", `{"$ref":"#"}`, `1`, verdictUnknown},
}

// TestSchemaVerdicts: linesman's validator gives each case its verdict.
func TestSchemaVerdicts(t *testing.T) {
	for _, c := range schemaCases {
		s, bad := compileJSONSchema([]byte(c.schema), draft2020)
		if bad != "" {
			t.Errorf("%s: schema refused: %s", c.name, bad)
			continue
		}
		got, msg := s.validate([]byte(c.instance))
		if got != c.want {
			t.Errorf("%s: verdict %d (%s), want %d", c.name, got, msg, c.want)
		}
		if got != verdictValid && msg == "" {
			t.Errorf("%s: verdict %d says nothing", c.name, got)
		}
	}
}

// TestSchemaValidity: schemas that are not JSON Schema are refused, with
// where and why (and the oracle refuses them too); schemas that are,
// however unusual, are not.
func TestSchemaValidity(t *testing.T) {
	for _, bad := range []string{
		`{"type":"object","properties":{"n":{"type":"integr"}}}`,
		`{"type":[]}`,
		`{"properties":[]}`,
		`{"required":"a"}`,
		`{"required":["a","a"]}`,
		`{"minLength":-1}`,
		`{"maxItems":1.5}`,
		`{"multipleOf":0}`,
		`{"anyOf":[]}`,
		`{"items":[{"type":"string"}]}`, // 2020-12: a tuple is prefixItems
		`{"not":"string"}`,
		`{"$ref":"#/$defs/missing"}`,
		`{"minimum":"0"}`,
	} {
		if _, why := compileJSONSchema([]byte(bad), draft2020); why == "" || !strings.Contains(why, "at ") {
			t.Errorf("%s: accepted (or no place said: %q)", bad, why)
		}
		if _, err := oracle(t, bad); err == nil {
			t.Errorf("%s: the oracle compiles it: linesman's refusal would be a false call", bad)
		}
	}
	for _, good := range []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{},"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"type":"number","minimum":0,"exclusiveMinimum":true}},"additionalProperties":false}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`,
		`{"type":"object","properties":{"p":{"type":"string","pattern":"(?<=a)b"}}}`, // not Go's: not judged, not refused
		`{"type":"object","x-extension":{"anything":[1,2]},"description":7}`,
		`{"$schema":"https://example.com/unknown","type":5}`, // an unknown dialect is not judged
		`{"prefixItems":"x","$schema":"http://json-schema.org/draft-07/schema#"}`,
	} {
		if _, why := compileJSONSchema([]byte(good), draft2020); why != "" {
			t.Errorf("%s: refused: %s", good, why)
		}
	}
}

// oracle compiles a schema with the reference implementation the judge
// used before (santhosh-tekuri/jsonschema, JSON Schema 2020-12 by default,
// no loader): a test-only dependency.
func oracle(t *testing.T, schema string) (*jsonschema.Schema, error) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuse{})
	if err := c.AddResource("mcp:///schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mcp:///schema.json")
}

type refuse struct{}

func (refuse) Load(string) (any, error) { return nil, os.ErrNotExist }

// agree checks linesman's verdict on (schema, instance) against the
// oracle's: a definite verdict must be the oracle's too.
func agree(t *testing.T, name, schema, instance string) {
	t.Helper()
	s, bad := compileJSONSchema([]byte(schema), draft2020)
	o, oerr := oracle(t, schema)
	if bad != "" {
		if oerr == nil {
			t.Errorf("%s: linesman refuses the schema (%s); the oracle compiles it", name, bad)
		}
		return
	}
	if oerr != nil {
		return // the oracle refuses what linesman cannot fault: a miss, not a foul
	}
	got, msg := s.validate([]byte(instance))
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		t.Fatal(err)
	}
	oerr, crashed := oracleValidate(o, inst)
	switch {
	case crashed:
		return // v6.0.2 panics on 1e999999999 against maximum: no opinion
	case got == verdictInvalid && oerr == nil:
		t.Errorf("%s: linesman calls %s invalid (%s); the oracle accepts it", name, instance, msg)
	case got == verdictValid && oerr != nil:
		t.Errorf("%s: linesman accepts %s; the oracle does not: %v", name, instance, oerr)
	}
}

// oracleValidate validates with the oracle; crashed: it panicked.
func oracleValidate(o *jsonschema.Schema, inst any) (err error, crashed bool) {
	defer func() {
		if recover() != nil {
			crashed = true
		}
	}()
	return o.Validate(inst), false
}

// TestSchemaAgreesWithOracle: wherever linesman gives a definite verdict
// (the cases above, and the schemas and calls of the recorded reference
// servers), the reference implementation gives the same.
func TestSchemaAgreesWithOracle(t *testing.T) {
	for _, c := range schemaCases {
		agree(t, c.name, c.schema, c.instance)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "capture", "testdata", "interop", "*.capture"))
	if len(files) == 0 {
		t.Fatal("no recorded servers")
	}
	n := 0
	for _, f := range files {
		for _, sc := range recordedSchemas(t, f) {
			for _, inst := range append([]string{`{}`, `{"x":1}`, `[]`, `"s"`}, sc.calls...) {
				agree(t, filepath.Base(f)+" "+sc.name, sc.schema, inst)
				n++
			}
		}
	}
	t.Logf("%d recorded schema/instance pairs agree", n)
}

// recordedSchema is a tool's schema from a recording, with the arguments
// its calls carried.
type recordedSchema struct {
	name, schema string
	calls        []string
}

// recordedSchemas reads a capture's frames for tools/list results and
// tools/call requests.
func recordedSchemas(t *testing.T, path string) []recordedSchema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recordedSchema
	byName := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var rec struct {
			Lines []struct {
				JSON json.RawMessage `json:"json"`
			} `json:"lines"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || len(rec.Lines) != 1 || len(rec.Lines[0].JSON) == 0 {
			continue
		}
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
			Result struct {
				Tools []struct {
					Name         string          `json:"name"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(rec.Lines[0].JSON, &msg) != nil {
			continue
		}
		for _, tl := range msg.Result.Tools {
			byName[tl.Name] = len(out)
			out = append(out, recordedSchema{name: tl.Name, schema: string(tl.InputSchema)})
			if len(tl.OutputSchema) > 0 {
				out = append(out, recordedSchema{name: tl.Name + " output", schema: string(tl.OutputSchema)})
			}
		}
		if i, ok := byName[msg.Params.Name]; ok && msg.Method == "tools/call" && len(msg.Params.Arguments) > 0 {
			out[i].calls = append(out[i].calls, string(bytes.TrimSpace(msg.Params.Arguments)))
		}
	}
	return out
}

// FuzzSchemaAgreesWithOracle: on any schema and instance, linesman's
// validator neither panics nor hangs, and a definite verdict (or a refused
// schema) is the oracle's too.
func FuzzSchemaAgreesWithOracle(f *testing.F) {
	for _, c := range schemaCases {
		f.Add(c.schema, c.instance)
	}
	f.Fuzz(func(t *testing.T, schema, instance string) {
		var s, i any
		if json.Unmarshal([]byte(schema), &s) != nil || json.Unmarshal([]byte(instance), &i) != nil {
			return
		}
		if _, ok := s.(map[string]any); !ok {
			return // tools.go hands only objects to the validator
		}
		agree(t, "fuzz", schema, instance)
	})
}
