package ui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// offering builds a legacy-era session whose server lists tools (one of
// each kind of property, a hostile description among them), prompts,
// resources and a resource template: what the picker and the form are
// made of.
func offering(t testing.TB) *fixture {
	f := newFixture(t)
	f.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7})
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"linesman","version":"0.1.0"}}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"prompts":{},"resources":{}},"serverInfo":{"name":"shop","version":"2.0"}}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	tools := []map[string]any{
		{"name": "echo", "title": "Echo", "description": "Replies with the text you send.", "inputSchema": map[string]any{
			"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "the text to send back", "default": "hello"}}}},
		{"name": "order", "title": "Place an order", "description": "Orders items.\nSecond paragraph \x1b[31mred\x1b[0m.", "inputSchema": json.RawMessage(`{"type":"object","properties":{
			"note":{"type":"string","description":"a note for the courier"},
			"size":{"type":"string","enum":["small","medium","large"],"default":"medium"},
			"count":{"type":"integer","minimum":1,"maximum":9,"description":"how many"},
			"gift":{"type":"boolean"},
			"price":{"type":["number","null"]},
			"address":{"type":"object","properties":{"city":{"type":"string"}}},
			"item":{"type":"string","description":"what to order"}},
			"required":["item","count"]}`)},
		{"name": "ping_tool", "description": "No arguments.", "inputSchema": map[string]any{"type": "object"}},
	}
	f.s2c(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": 2, "result": map[string]any{"tools": tools}}) + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":3,"method":"prompts/list"}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"review","description":"Review code","arguments":[{"name":"code","description":"the code","required":true},{"name":"style"}]}]}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":4,"method":"resources/list"}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":4,"result":{"resources":[{"uri":"file:///etc/motd","name":"motd","mimeType":"text/plain","description":"message of the day"}]}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":5,"result":{"resourceTemplates":[{"uriTemplate":"db://{table}/rows{?limit}","name":"rows","description":"rows of a table"}]}}` + "\n")
	return f
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := wire.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// sentParams decodes the params of the last frame the fake server got.
func sentParams(t *testing.T, srv *fakeServer) (method string, params map[string]any) {
	t.Helper()
	var r struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal([]byte(srv.lastSent()), &r); err != nil {
		t.Fatalf("sent %q: %v", srv.lastSent(), err)
	}
	return r.Method, r.Params
}

// TestPickerListsEverythingAndFilters: t lists the server's tools,
// prompts, resources and templates, and the request templates; typing
// narrows the list fuzzily, names first.
func TestPickerListsEverythingAndFilters(t *testing.T) {
	f := offering(t)
	m := f.model(80, 24, newFakeServer(f))
	press(m, "t")
	if !m.picker.open {
		t.Fatal("t does not open the picker")
	}
	kinds := map[itemKind]int{}
	for _, i := range m.picker.shown {
		kinds[m.picker.items[i].kind]++
	}
	if kinds[itemTool] != 3 || kinds[itemPrompt] != 1 || kinds[itemResource] != 1 || kinds[itemRTemplate] != 1 || kinds[itemRequest] < 5 {
		t.Fatalf("picker rows by kind: %v", kinds)
	}
	typeText(m, "ordr")
	if it, ok := m.picker.selected(); !ok || it.name != "order" {
		t.Fatalf("ordr selects %+v", it)
	}
	typeText(m, " zzz")
	if _, ok := m.picker.selected(); ok {
		t.Fatal("a word that matches nothing leaves rows")
	}
	press(m, "enter")
	if m.form != nil || !strings.Contains(m.message, whyNoPick) {
		t.Errorf("enter on no row: form %v, message %q", m.form != nil, m.message)
	}
	press(m, "esc")
	if m.picker.open {
		t.Fatal("esc does not close the picker")
	}
}

func TestFuzzyScore(t *testing.T) {
	for _, c := range []struct {
		q, better, worse string
	}{
		{"echo", "echo", "get_echo_history"},
		{"ec", "echo", "resources/templates/list"},
		{"tc", "tools/call", "tools/list"},
		{"slow", "slow_count", "tools/list"},
	} {
		if b, w := fuzzyScore(c.q, c.better), fuzzyScore(c.q, c.worse); b <= w {
			t.Errorf("%q: %q scores %d, not above %q's %d", c.q, c.better, b, c.worse, w)
		}
	}
	if fuzzyScore("xyz", "echo") >= 0 || fuzzyScore("oe", "echo") >= 0 {
		t.Error("letters out of order or missing match")
	}
}

// TestCallToolInThreeKeys: t, the filter typed, enter, the value typed,
// ctrl+s: the tool is called with the argument (the default replaced by
// the first key typed).
func TestCallToolInThreeKeys(t *testing.T) {
	f := offering(t)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "t")
	typeText(m, "echo")
	press(m, "enter")
	if m.form == nil || m.form.current().name != "text" || m.form.current().in.Value() != "hello" {
		t.Fatal("enter on echo opens its form on the text field holding the default")
	}
	typeText(m, "world")
	press(m, "ctrl+s")
	method, params := sentParams(t, srv)
	args, _ := params["arguments"].(map[string]any)
	if method != "tools/call" || params["name"] != "echo" || args["text"] != "world" {
		t.Fatalf("sent %s", srv.lastSent())
	}
	if m.form != nil || m.picker.open || m.composer.open {
		t.Error("after sending, the form, picker and composer are closed")
	}
}

// TestFormChecksAgainstTheSchema: required fields first; a value of the
// wrong type, out of bounds or missing is said next to its field and
// nothing is sent; enum and boolean fields cycle; enter puts the request in
// the composer, with the values encoded as JSON.
func TestFormChecksAgainstTheSchema(t *testing.T) {
	f := offering(t)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "t")
	typeText(m, "order")
	press(m, "enter")
	var names []string
	for _, fd := range m.form.fields {
		names = append(names, fd.name)
	}
	if got := strings.Join(names, ","); got != "count,item,note,size,gift,price,address" {
		t.Fatalf("fields in the order %s; want the required first, each group in the schema's order", got)
	}
	typeText(m, "12")
	n := len(srv.sent)
	press(m, "ctrl+s")
	if len(srv.sent) != n {
		t.Fatal("a form with errors was sent")
	}
	if e := m.form.fields[0].err; !strings.Contains(e, "at most 9") || m.form.fields[1].err != "required: type a value" {
		t.Fatalf("errors: count %q, item %q", e, m.form.fields[1].err)
	}
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "✖ too large: at most 9") || !strings.Contains(screen, "✖ required: type a value") {
		t.Errorf("errors not shown by their fields:\n%s", screen)
	}
	press(m, "backspace", "backspace")
	typeText(m, "2.5")
	press(m, "tab")
	typeText(m, `tea "green"`)
	press(m, "tab", "tab", "right") // size: medium -> large
	press(m, "tab", "right")        // gift: left out -> true
	press(m, "tab")                 // price: left empty
	press(m, "tab")                 // address
	typeText(m, `[1]`)
	press(m, "enter")
	if m.form == nil || !strings.Contains(m.form.fields[0].err, "not an integer") || !strings.Contains(m.form.fields[6].err, "not a JSON object") {
		t.Fatalf("count 2.5 and address [1] pass: %q %q", m.form.fields[0].err, m.form.fields[6].err)
	}
	// The focus went to the first wrong field: count.
	press(m, "backspace", "backspace", "backspace")
	typeText(m, "3")
	for range 6 {
		press(m, "down")
	}
	press(m, "backspace", "backspace", "backspace")
	typeText(m, `{"city":"Oslo"}`)
	press(m, "enter")
	if m.form != nil || !m.composer.open {
		t.Fatalf("enter on a good form opens the composer (message %q)", m.message)
	}
	v := m.composer.value()
	c, err := check(v)
	if err != nil || !c.isReq {
		t.Fatalf("the composer holds no request: %v\n%s", err, v)
	}
	var req struct {
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(v), &req); err != nil {
		t.Fatal(err)
	}
	want := `{"address":{"city":"Oslo"},"count":3,"gift":true,"item":"tea \"green\"","size":"large"}`
	if got := mustJSON(t, req.Params.Arguments); req.Params.Name != "order" || got != want {
		t.Fatalf("arguments %s, want %s\n%s", got, want, v)
	}
	press(m, "ctrl+s")
	if method, _ := sentParams(t, srv); method != "tools/call" {
		t.Fatalf("ctrl+s in the composer sent %q", srv.lastSent())
	}
}

// TestPickerPromptsAndResources: a prompt gets the same form (its
// arguments are strings); a resource goes straight into resources/read; a
// resource template's variables are a form and expand into the URI.
func TestPickerPromptsAndResources(t *testing.T) {
	f := offering(t)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "t")
	typeText(m, "review")
	press(m, "enter")
	typeText(m, "x := 1")
	press(m, "ctrl+s")
	method, params := sentParams(t, srv)
	if method != "prompts/get" || mustJSON(t, params["arguments"]) != `{"code":"x := 1"}` {
		t.Fatalf("prompt sent %s", srv.lastSent())
	}

	press(m, "t")
	typeText(m, "motd")
	press(m, "ctrl+s")
	if method, params := sentParams(t, srv); method != "resources/read" || params["uri"] != "file:///etc/motd" {
		t.Fatalf("resource sent %s", srv.lastSent())
	}

	press(m, "t")
	typeText(m, "template rows")
	press(m, "enter")
	typeText(m, "a b/c")
	press(m, "tab")
	typeText(m, "10")
	press(m, "ctrl+s")
	if method, params := sentParams(t, srv); method != "resources/read" || params["uri"] != "db://a%20b%2Fc/rows?limit=10" {
		t.Fatalf("template sent %s", srv.lastSent())
	}
}

func TestExpandURITemplate(t *testing.T) {
	vals := map[string]string{"var": "value", "hello": "Hello World!", "path": "/foo/bar", "x": "1024", "y": "768", "empty": ""}
	for tmpl, want := range map[string]string{
		"{var}":              "value",
		"{hello}":            "Hello%20World%21",
		"{+path}/here":       "/foo/bar/here",
		"map?{x,y}":          "map?1024,768",
		"{?x,y,undef}":       "?x=1024&y=768",
		"{?x,empty}":         "?x=1024&empty=",
		"X{.var}":            "X.value",
		"{/var,x}/here":      "/value/1024/here",
		"{;x,y,empty}":       ";x=1024;y=768;empty",
		"{#path}":            "#/foo/bar",
		"?fixed=yes{&x}":     "?fixed=yes&x=1024",
		"no expressions":     "no expressions",
		"{undef}{var:3}{x*}": "value1024",
	} {
		if got := expandURITemplate(tmpl, vals); got != want {
			t.Errorf("%s: %q, want %q", tmpl, got, want)
		}
	}
	vars := uriTemplateVars("db://{table}/rows{?limit,table}")
	if len(vars) != 2 || vars[0] != (uriVar{"table", true}) || vars[1] != (uriVar{"limit", false}) {
		t.Errorf("vars %+v", vars)
	}
}

// TestPickerAndFormAreInert: a tool whose name, description, property
// names, enum values and defaults carry escape sequences, BEL and bidi
// overrides is shown with visible symbols in the picker and the form; the
// default that holds them is not put in the text input (which shows its
// value as it is), and the request built quotes the server's text as JSON.
func TestPickerAndFormAreInert(t *testing.T) {
	f := newFixture(t)
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"p","version":"1"}}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil\u001b]0;PWN\u0007\u202e","description":"d \u001b[2J\u009b","inputSchema":{"type":"object","properties":{"p\u001b[31m":{"type":"string","default":"x\u202ey"},"e":{"enum":["\u001b]52;c;QQ==\u0007"]}},"required":["e"]}}]}}` + "\n")
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	bad := []string{"\x1b]0;PWN", "\x07", "\u202e", "\x1b[2J", "\u009b", "\x1b[31m", "\x1b]52"}
	assertInert := func(what string) {
		t.Helper()
		screen := m.Render()
		for _, b := range bad {
			if strings.Contains(screen, b) {
				t.Errorf("%s: the screen holds %q raw", what, b)
			}
		}
	}
	press(m, "t")
	assertInert("picker")
	typeText(m, "evil")
	press(m, "enter")
	assertInert("form")
	if m.form == nil || len(m.form.fields) != 2 || m.form.fields[1].in.Value() != "" || !m.form.fields[1].defHidden {
		t.Fatalf("the hostile default was put in the text input")
	}
	press(m, "tab")
	assertInert("form, default's field focused")
	press(m, "enter")
	assertInert("composer")
	v := m.composer.value()
	if !m.composer.open || !strings.Contains(v, `"name": "evil\u001b]0;PWN\u0007\u202e"`) || !strings.Contains(v, `"e": "\u001b]52;c;QQ==\u0007"`) {
		t.Fatalf("the request does not quote the server's text as JSON escapes:\n%s", v)
	}
}

// TestFormPasteReplacesTheDefault: a paste into a field still holding its
// default replaces it, as typing does.
func TestFormPasteReplacesTheDefault(t *testing.T) {
	f := offering(t)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "t")
	typeText(m, "echo")
	press(m, "enter")
	m.Update(tea.PasteMsg{Content: "pasted"})
	press(m, "ctrl+s")
	if _, params := sentParams(t, srv); mustJSON(t, params["arguments"]) != `{"text":"pasted"}` {
		t.Fatalf("sent %s", srv.lastSent())
	}
}

func stripped(m *Model) string { return ansi.Strip(m.Render()) }
