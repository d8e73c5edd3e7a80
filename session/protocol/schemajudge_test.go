package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"linesman/wire"

	mcpschema "linesman/third_party/mcp-schema"
)

const examplesDir = "../../third_party/mcp-schema/2026-07-28/examples"

// exampleFiles lists the specification's examples: TYPE/NAME.json.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, "*", "*.json"))
	if err != nil || len(files) < 50 {
		t.Fatalf("examples: %d %v", len(files), err)
	}
	return files
}

// TestSpecExamplesValidate: every example of the 2026-07-28 specification
// validates against the definition it exemplifies (its folder's name), as
// linesman compiles it.
func TestSpecExamplesValidate(t *testing.T) {
	rs := schemaOf(V20260728)
	for _, path := range exampleFiles(t) {
		def := filepath.Base(filepath.Dir(path))
		n := rs.def(def)
		if n == nil {
			t.Errorf("%s: no definition %s", path, def)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f := n.check(parse(b), 0); f != nil {
			t.Errorf("%s: %s: want %s, got %s (%s)", path, f.where("$"), f.want, f.got, f.def)
		}
	}
}

// TestKnownSchemaDifferences: each place where schema.json is stricter
// than schema.ts has a message schema.ts allows; the schema as published
// refuses it (checked with santhosh-tekuri/jsonschema, the test oracle),
// and the judge, which lets schema.ts win, draws nothing on it.
func TestKnownSchemaDifferences(t *testing.T) {
	cases := []struct {
		difference, rev, def, instance string
		conv                           string // the message in a conversation, for the judge
	}{
		{"integer where schema.ts says number", V20251125, "ProgressNotificationParams", `{"progressToken":1.5,"progress":1}`,
			"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1.5}}}
< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":1}}`},
		{"integer where schema.ts says number", V20251125, "ElicitResult", `{"action":"accept","content":{"age":41.5}}`,
			"$INIT\n" + `< {"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"message":"age?","requestedSchema":{"type":"object","properties":{"age":{"type":"number"}}}}}
> {"jsonrpc":"2.0","id":"e","result":{"action":"accept","content":{"age":41.5}}}`},
		{"integer where schema.ts says number", V20260728, "ListToolsResult", `{"resultType":"complete","tools":[],"ttlMs":1.5,"cacheScope":"public"}`,
			"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{$META}}
< {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":1.5,"cacheScope":"public"}}`},
		{"JSONValue without null", V20260728, "JSONObject", `{"a":null,"b":[1,null]}`, ""},
	}
	names := map[string]bool{}
	for _, tc := range cases {
		names[tc.difference] = true
		if publishedSchemaAccepts(t, tc.rev, tc.def, tc.instance) {
			t.Errorf("%s: schema.json accepts %s as %s: no difference to test", tc.difference, tc.instance, tc.def)
		}
		if f := schemaOf(tc.rev).def(tc.def).check(parse([]byte(tc.instance)), 0); f != nil {
			t.Errorf("%s: the judge refuses %s as %s: %s: want %s, got %s", tc.difference, tc.instance, tc.def, f.where(""), f.want, f.got)
		}
		if tc.conv != "" {
			_, frames := run(t, tc.conv)
			if got := codes(frames); len(got) != 0 {
				t.Errorf("%s: %s\nraised %v", tc.difference, tc.conv, got)
			}
		}
	}
	for _, d := range knownDifferences {
		if !names[d.name] {
			t.Errorf("known difference %q has no test", d.name)
		}
	}
}

// publishedSchemaAccepts validates instance against definition def of the
// revision's schema.json as published, with the library linesman tests
// its own validators against.
func publishedSchemaAccepts(t *testing.T, rev, def, instance string) bool {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(mcpschema.Schema(rev)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mcp.json", doc); err != nil {
		t.Fatal(err)
	}
	defs := "$defs"
	if rev < V20251125 {
		defs = "definitions"
	}
	sch, err := c.Compile("mcp.json#/" + defs + "/" + def)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst) == nil
}

// TestSchemaFindingText: schema-invalid names the path, what the schema
// wants and what came (an absent member as absent), the revision and the
// definition (and the inner one the fault lies in); what it quotes from
// the message is inert.
func TestSchemaFindingText(t *testing.T) {
	const ini = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	cases := []struct{ conv, want string }{
		{ini + `< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1","icons":[{"src":"x","theme":"blue"}]}}}`,
			`result.serverInfo.icons[0].theme: want one of "dark", "light", got string "blue" — 2025-11-25 InitializeResult (Icon)`},
		{"$DISCOVER\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c"}}}}`,
			`params._meta["io.modelcontextprotocol/clientInfo"].version: want string (required), got absent — 2026-07-28 ListToolsRequest (Implementation)`},
		{"$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"prompts/list"}
< {"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"a"},{"name":"b","icons":[{"src":"x","sizes":"48x48"}]}]}}`,
			`result.prompts[1].icons[0].sizes: want array, got string "48x48" — 2025-11-25 ListPromptsResult (Icon)`},
		{ini + "< {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\",\"icons\":[{\"src\":\"x\",\"theme\":\"\\u202edark\\u001b[2J\"}]}}}",
			`result.serverInfo.icons[0].theme: want one of "dark", "light", got string "‮dark\u001b[2J" — 2025-11-25 InitializeResult (Icon)`},
	}
	for _, tc := range cases {
		_, frames := run(t, tc.conv)
		var got []string
		for _, f := range frames {
			for _, fd := range f.frame.Findings {
				got = append(got, fd.Code+": "+fd.Message)
				if !wire.IsInert(fd.Message) {
					t.Errorf("not inert: %q", fd.Message)
				}
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "schema-invalid: ") {
			t.Errorf("%s\nraised %q, want one schema-invalid", tc.conv, got)
			continue
		}
		if msg := strings.TrimPrefix(got[0], "schema-invalid: "); !strings.Contains(tc.want, "\u202e") && msg != tc.want {
			t.Errorf("got  %s\nwant %s", msg, tc.want)
		}
	}
}
