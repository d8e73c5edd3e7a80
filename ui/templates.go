package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"linesman/session/eventlog"
	"linesman/wire"
)

// template is a starting point for a hand-written message.
type template struct {
	Name string
	Text string
}

// Templates quote the server: tool and property names, schema defaults,
// ids of its requests, its protocol version. Every such value is written by
// the JSON encoder (jsonText), never by Go's %q, whose \x1b is not JSON; so a
// template is always a valid JSON document. The finished text then goes
// through wire.InertJSON (inertTemplate), which writes C1, bidi and other
// format controls as \u escapes, so the composer never puts them on the
// terminal; names shown as titles go through wire.VisibleString.

// jsonText is v as compact JSON, HTML characters as they are.
func jsonText(v any) string {
	b, err := wire.Marshal(v)
	if err != nil {
		return "null"
	}
	return strings.TrimSuffix(string(b), "\n")
}

// idJSON is an id as JSON text (wire.ID.String quotes the Go way).
func idJSON(id wire.ID) string {
	switch id.Kind {
	case wire.IDString:
		return jsonText(id.Str)
	case wire.IDOther:
		if json.Valid([]byte(id.Str)) {
			return id.Str
		}
		return jsonText(id.Str)
	}
	return id.String()
}

// inertTemplate finishes a template: its text made inert (\u escapes, same
// meaning) and its name shown with visible symbols.
func inertTemplate(t template) template {
	return template{Name: wire.VisibleString(t.Name, wire.Pictures), Text: string(wire.InertJSON([]byte(t.Text)))}
}

// templateCtx is what the templates are filled from.
type templateCtx struct {
	era      eventlog.Era
	version  string
	id       string // the next free id, as JSON
	tools    []toolInfo
	cancelID string // the selected in-flight request's id, as JSON ("" if none)
}

// meta is the _meta every modern-era request carries.
func (c templateCtx) meta() string { return c.metaWith("") }

// metaWith is meta with extra members (e.g. a progress token) first.
func (c templateCtx) metaWith(extra string) string {
	return fmt.Sprintf(`"_meta": {
      %s"io.modelcontextprotocol/protocolVersion": %s,
      "io.modelcontextprotocol/clientCapabilities": {}
    }`, extra, jsonText(c.modernVersion()))
}

func (c templateCtx) modernVersion() string {
	if c.era == eventlog.EraModern && c.version != "" {
		return c.version
	}
	return eventlog.ModernProtocolVersion
}

func (c templateCtx) legacyVersion() string {
	if c.era == eventlog.EraLegacy && c.version != "" {
		return c.version
	}
	return eventlog.LegacyProtocolVersion
}

// request builds a request template with params (a JSON object body without
// braces, or ""), adding _meta in the modern era.
func (c templateCtx) request(method, params string) string {
	return c.requestWith(method, params, false)
}

// requestWith is request, asking for progress notifications when progress
// is set (the token is the request's id).
func (c templateCtx) requestWith(method, params string, progress bool) string {
	var body []string
	if params != "" {
		body = append(body, params)
	}
	switch {
	case c.era == eventlog.EraModern && progress:
		body = append(body, c.metaWith(fmt.Sprintf("\"progressToken\": %s,\n      ", c.id)))
	case c.era == eventlog.EraModern:
		body = append(body, c.meta())
	case progress:
		body = append(body, fmt.Sprintf("\"_meta\": {\"progressToken\": %s}", c.id))
	}
	p := ""
	if len(body) > 0 {
		p = fmt.Sprintf(",\n  \"params\": {\n    %s\n  }", strings.Join(body, ",\n    "))
	}
	return fmt.Sprintf("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"method\": %s%s\n}", c.id, jsonText(method), p)
}

// templates returns the templates for the context: the requests of the
// era, then the handshake messages of both eras — first when no era is known
// yet, since the conversation then still has to be opened.
func templates(c templateCtx) []template {
	var out []template
	add := func(name, text string) { out = append(out, inertTemplate(template{name, text})) }

	legacyInit := fmt.Sprintf(`"protocolVersion": %s,
    "capabilities": {},
    "clientInfo": {"name": "linesman", "version": %s}`, jsonText(c.legacyVersion()), jsonText(eventlog.Version))
	discover := fmt.Sprintf("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"method\": \"server/discover\",\n  \"params\": {\n    %s\n  }\n}", c.id, c.meta())
	initReq := fmt.Sprintf("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"method\": \"initialize\",\n  \"params\": {\n    %s\n  }\n}", c.id, legacyInit)
	initialized := "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}"

	if c.era == eventlog.EraUnknown {
		// Nothing has opened the conversation yet (--no-handshake, or
		// the probe still under way): the openings come first.
		add("server/discover (modern)", discover)
		add("initialize (legacy)", initReq)
		add("notifications/initialized (legacy)", initialized)
	}
	add("tools/list", c.request("tools/list", ""))
	for _, t := range c.tools {
		add("tools/call "+t.Name, c.requestWith("tools/call", fmt.Sprintf("\"name\": %s,\n    \"arguments\": %s", jsonText(t.Name), skeleton(t.Schema, "    ")), true))
	}
	if len(c.tools) == 0 {
		add("tools/call", c.request("tools/call", "\"name\": \"TOOL\",\n    \"arguments\": {}"))
	}
	add("ping", c.request("ping", ""))
	add("resources/list", c.request("resources/list", ""))
	add("resources/templates/list", c.request("resources/templates/list", ""))
	add("resources/read", c.request("resources/read", "\"uri\": \"URI\""))
	add("prompts/list", c.request("prompts/list", ""))
	add("prompts/get", c.request("prompts/get", "\"name\": \"PROMPT\",\n    \"arguments\": {}"))
	if c.cancelID != "" {
		add("notifications/cancelled "+c.cancelID, fmt.Sprintf("{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/cancelled\",\n  \"params\": {\"requestId\": %s, \"reason\": \"cancelled by hand\"}\n}", c.cancelID))
	}
	switch c.era {
	case eventlog.EraModern:
		add("server/discover", discover)
		add("initialize (legacy)", initReq)
		add("notifications/initialized (legacy)", initialized)
	case eventlog.EraLegacy:
		add("initialize", initReq)
		add("notifications/initialized", initialized)
		add("server/discover (modern)", discover)
	}
	return out
}

// answerTemplate is a response to a server request (sampling, elicitation,
// or anything else) for the user to complete.
func answerTemplate(id wire.ID, method string) template {
	result := "{}"
	switch method {
	case "sampling/createMessage":
		result = "{\n    \"role\": \"assistant\",\n    \"content\": {\"type\": \"text\", \"text\": \"\"},\n    \"model\": \"human\",\n    \"stopReason\": \"endTurn\"\n  }"
	case "elicitation/create":
		result = "{\n    \"action\": \"accept\",\n    \"content\": {}\n  }"
	case "roots/list":
		result = "{\"roots\": []}"
	}
	return inertTemplate(template{"answer " + method, fmt.Sprintf("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": %s,\n  \"result\": %s\n}", idJSON(id), result)})
}

// skeleton builds example arguments from a JSON Schema: each required
// property with a placeholder of its type (or its default, first enum value
// or minimum), then the optional ones that have such a known value.
func skeleton(schema json.RawMessage, indent string) (out string) {
	var s struct {
		Properties map[string]struct {
			Type    any      `json:"type"`
			Default any      `json:"default"`
			Enum    []any    `json:"enum"`
			Minimum *float64 `json:"minimum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return "{}"
	}
	defer func() {
		if out == "{\n"+"\n"+indent+"}" {
			out = "{}"
		}
	}()
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		p := s.Properties[n]
		if !req[n] && p.Default == nil && len(p.Enum) == 0 && p.Minimum == nil {
			// An optional argument without a known good value: leave it
			// out rather than send a placeholder the tool may refuse.
			continue
		}
		var v any
		switch {
		case p.Default != nil:
			v = p.Default
		case len(p.Enum) > 0:
			v = p.Enum[0]
		default:
			t, _ := p.Type.(string)
			if ts, ok := p.Type.([]any); ok && len(ts) > 0 {
				t, _ = ts[0].(string)
			}
			switch t {
			case "string":
				v = ""
			case "integer", "number":
				v = 0
				if p.Minimum != nil {
					v = *p.Minimum
				}
			case "boolean":
				v = false
			case "array":
				v = []any{}
			case "object":
				v = map[string]any{}
			}
		}
		parts = append(parts, fmt.Sprintf("%s  %s: %s", indent, jsonText(n), jsonText(v)))
	}
	return "{\n" + strings.Join(parts, ",\n") + "\n" + indent + "}"
}
