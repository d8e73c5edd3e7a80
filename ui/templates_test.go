package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"linesman/session/eventlog"
	"linesman/wire"
)

// hostileName holds what a server may put in a name: ESC sequences (OSC 0
// title, OSC 52 clipboard, CSI), a C1 CSI, bidi controls, DEL, a quote and
// a backslash.
const hostileName = "x\u202eevil\x1b[2J\x1b]0;pwned\x07\x1b]52;c;Zm9v\x07\u009b1m\u2067\u2069\x7f\"\\"

// unsafeIn returns the first rune of s that could drive a terminal or
// reorder what it shows (newlines and tabs of the layout aside).
func unsafeIn(s string) (rune, bool) {
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			return r, true
		}
	}
	return 0, false
}

// TestTemplatesHostileNames: tool names, property names, schema defaults,
// protocol versions and the ids of server requests holding escape bytes and
// bidi controls still give valid JSON templates (Go's %q used to write
// \x1b, which ctrl+s refused), whose decoded values are the server's own,
// and nothing in a template's text or name reaches the terminal raw.
func TestTemplatesHostileNames(t *testing.T) {
	schema, _ := json.Marshal(map[string]any{
		"type":       "object",
		"properties": map[string]any{hostileName: map[string]any{"type": "string", "default": hostileName}},
		"required":   []string{hostileName},
	})
	var all []template
	for _, era := range []eventlog.Era{eventlog.EraUnknown, eventlog.EraLegacy, eventlog.EraModern} {
		all = append(all, templates(templateCtx{
			era: era, version: hostileName, id: "4",
			tools:    []toolInfo{{Name: hostileName, Schema: schema}},
			cancelID: idJSON(wire.ID{Kind: wire.IDString, Str: hostileName}),
		})...)
	}
	for _, m := range []string{"sampling/createMessage", "elicitation/create", "roots/list", hostileName} {
		all = append(all, answerTemplate(wire.ID{Kind: wire.IDString, Str: hostileName}, m))
	}
	checked := 0
	for _, tp := range all {
		if !json.Valid([]byte(tp.Text)) {
			t.Errorf("template %q is not valid JSON:\n%s", tp.Name, tp.Text)
			continue
		}
		if r, bad := unsafeIn(tp.Text); bad {
			t.Errorf("template %q keeps %U raw:\n%q", tp.Name, r, tp.Text)
		}
		if r, bad := unsafeIn(tp.Name); bad {
			t.Errorf("template name %q keeps %U raw", tp.Name, r)
		}
		checked++
	}
	// The hostile values survive, decoded.
	found := 0
	for _, tp := range all {
		var v struct {
			ID     any `json:"id"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
				RequestID any            `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(tp.Text), &v) != nil {
			continue
		}
		if v.Params.Name == hostileName && v.Params.Arguments[hostileName] == hostileName {
			found++
		}
		if v.ID == hostileName || v.Params.RequestID == hostileName {
			found++
		}
	}
	if found < 3+4 { // a tools/call per era, and four answers (+ the cancels)
		t.Errorf("the hostile names and ids were not kept as values (%d found)", found)
	}
	if checked < 20 || !strings.Contains(all[0].Text, "jsonrpc") {
		t.Errorf("only %d templates checked", checked)
	}
	t.Logf("%d templates checked against the hostile name", checked)
}
