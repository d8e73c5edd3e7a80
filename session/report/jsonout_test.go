package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestShallowIndentMatchesIndent: above its depth, shallowIndent lays a
// document out byte for byte as json.Indent does (strings with brackets,
// commas, colons and escaped quotes included).
func TestShallowIndentMatchesIndent(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `1`, `"s"`, `{"a":1}`, `[1,2,[3,[]],{}]`,
		`{"a":{"b":[1,{"c":"x,y:{z}[]"}],"e":{}},"f":"q\"]}\\","g":null}`,
		`[[[[[[[[[[1]]]]]]]]]]`,
	} {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(doc), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := shallowIndent([]byte(doc), 64); string(got) != want.String() {
			t.Errorf("%s:\n got %q\nwant %q", doc, got, want.String())
		}
	}
	got := string(shallowIndent([]byte(`{"a":[1,{"b":[2,[3]]}],"c":{}}`), 2))
	want := "{\n  \"a\": [\n    1,\n    {\"b\":[2,[3]]}\n  ],\n  \"c\": {}\n}"
	if got != want {
		t.Errorf("depth 2:\n got %q\nwant %q", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Errorf("not JSON: %s", got)
	}
}

// TestDeepDefinitionReportIsProportional: a tools/list of about 20 KB whose
// schema nests 9,990 deep gives a report a small multiple of it. Before,
// each level was re-indented: about 200 MB.
func TestDeepDefinitionReportIsProportional(t *testing.T) {
	const depth = 9990
	schema := `{"type":"object","properties":{"x":` + strings.Repeat("[", depth-4) + strings.Repeat("]", depth-4) + `}}`
	def := json.RawMessage(`{"name":"deep","inputSchema":` + schema + `}`)
	r := Report{Definitions: &Definitions{Listed: []string{"tools"}, Tools: []Definition{{Name: "deep", Definition: def}}}}
	var out bytes.Buffer
	if err := r.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 2*len(def)+64<<10 {
		t.Errorf("a report of %d bytes for a definition of %d", out.Len(), len(def))
	}
	if !json.Valid(out.Bytes()) {
		t.Error("the report is not JSON")
	}
	b, err := MarshalIndented(r.Definitions)
	if err != nil || len(b) > 2*len(def)+64<<10 {
		t.Errorf("baseline-style definitions: %d bytes for %d, %v", len(b), len(def), err)
	}
	t.Logf("definition %d bytes; report %d bytes", len(def), out.Len())
}
