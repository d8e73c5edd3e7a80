package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"

	"linesman/wire"
)

// fieldKind is how a form field is edited and checked.
type fieldKind int

const (
	fieldText    fieldKind = iota // a string
	fieldInteger                  // a JSON integer
	fieldNumber                   // a JSON number
	fieldChoice                   // one of a list: an enum, a boolean
	fieldJSON                     // JSON text: objects, arrays, anything the form does not model
)

// formField is one property of a schema (or argument of a prompt,
// variable of a URI template) as the form edits it. name, desc and the
// choices are server text: inert when shown, JSON-encoded when sent.
type formField struct {
	name     string
	required bool
	kind     fieldKind
	typ      string // as shown: "string", "integer", "enum", "object (JSON)", …
	desc     string
	choices  []json.RawMessage // fieldChoice, compact JSON values
	choice   int               // index into choices; -1 = left out (optional only)
	in       textinput.Model   // the text of the other kinds
	pristine bool              // holds the default, untouched: typing replaces it
	styled   bool              // in has the theme's styles
	// defHidden: the default holds what the terminal must not get raw
	// (controls, bidi overrides), so it was not put in the text input.
	defHidden bool
	def       string // the default as JSON text ("" = none)
	min, max  *float64
	err       string // what is wrong with the value, after a check
	// schema is the property's own schema: a JSON field's value is
	// checked against it (form_check.go).
	schema json.RawMessage
}

// schemaProp is what the form reads of one property's schema.
type schemaProp struct {
	Type        json.RawMessage   `json:"type"`
	Description string            `json:"description"`
	Title       string            `json:"title"`
	Default     json.RawMessage   `json:"default"`
	Enum        []json.RawMessage `json:"enum"`
	Const       json.RawMessage   `json:"const"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
	Properties  json.RawMessage   `json:"properties"`
}

// schemaFields builds the fields of an object schema: required properties
// first, each group in the schema's own order. ok is false when the schema
// cannot be read as an object with properties.
func schemaFields(schema json.RawMessage) (fields []*formField, ok bool) {
	var s struct {
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, true // no schema: no arguments
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, false
	}
	var raw struct {
		Properties json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &raw)
	var rawProps map[string]json.RawMessage
	_ = json.Unmarshal(raw.Properties, &rawProps)
	names := objectKeys(raw.Properties)
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	for _, n := range names {
		fd := propField(n, s.Properties[n], slices.Contains(s.Required, n))
		fd.schema = rawProps[n]
		fields = append(fields, fd)
	}
	return fields, true
}

// objectKeys lists the keys of a JSON object in the order written, each once.
func objectKeys(obj json.RawMessage) []string {
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		if k, _ := tok.(string); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// schemaTypes lists the types a property's "type" names, "null" left out.
func schemaTypes(t json.RawMessage) []string {
	var one string
	if json.Unmarshal(t, &one) == nil {
		t = json.RawMessage(`["` + one + `"]`)
	}
	var many []string
	_ = json.Unmarshal(t, &many)
	return slices.DeleteFunc(many, func(s string) bool { return s == "null" })
}

// propField builds the field for one property.
func propField(name string, p schemaProp, required bool) *formField {
	f := &formField{name: name, required: required, desc: p.Description, min: p.Minimum, max: p.Maximum, choice: -1}
	if f.desc == "" {
		f.desc = p.Title
	}
	if len(p.Default) > 0 {
		f.def = compactJSON(p.Default)
	}
	types := schemaTypes(p.Type)
	switch {
	case len(p.Enum) > 0:
		f.kind, f.typ = fieldChoice, "enum"
		for _, v := range p.Enum {
			f.choices = append(f.choices, json.RawMessage(compactJSON(v)))
		}
	case len(p.Const) > 0:
		f.kind, f.typ, f.choices = fieldChoice, "const", []json.RawMessage{json.RawMessage(compactJSON(p.Const))}
	case len(types) == 1 && types[0] == "boolean":
		f.kind, f.typ, f.choices = fieldChoice, "boolean", []json.RawMessage{json.RawMessage("true"), json.RawMessage("false")}
	case len(types) == 1 && types[0] == "string":
		f.kind, f.typ = fieldText, "string"
	case len(types) == 1 && types[0] == "integer":
		f.kind, f.typ = fieldInteger, "integer"
	case len(types) == 1 && types[0] == "number":
		f.kind, f.typ = fieldNumber, "number"
	case len(types) == 1:
		f.kind, f.typ = fieldJSON, types[0]+" (JSON)"
	case len(types) == 0 && len(p.Properties) > 0:
		f.kind, f.typ = fieldJSON, "object (JSON)"
	default:
		f.kind, f.typ = fieldJSON, "JSON"
	}
	f.init()
	return f
}

// textField is a plain string field (a prompt's argument, a URI
// template's variable).
func textField(name, desc string, required bool) *formField {
	f := &formField{name: name, desc: desc, required: required, kind: fieldText, typ: "string", choice: -1}
	f.init()
	return f
}

// init sets the field's starting value: its default, else (a required
// choice) the first choice, else nothing.
func (f *formField) init() {
	f.in = textinput.New()
	f.in.Prompt = ""
	f.in.CharLimit = 0
	f.in.Placeholder = "(left out)"
	if f.required {
		f.in.Placeholder = "(required)"
	}
	if f.kind == fieldChoice {
		for i, c := range f.choices {
			if f.def != "" && string(c) == f.def {
				f.choice = i
			}
		}
		if f.choice < 0 && f.required {
			f.choice = 0
		}
		return
	}
	if f.def == "" {
		return
	}
	s := f.def
	var str string
	if f.kind == fieldText && json.Unmarshal([]byte(f.def), &str) == nil {
		s = str
	}
	if wire.VisibleString(s, wire.Pictures) != s {
		// The text input shows its value as it is: a default holding
		// controls or bidi overrides stays out of it (the hint shows it
		// inert; left out, the server applies it itself).
		f.defHidden = true
		return
	}
	f.in.SetValue(s)
	f.pristine = true
}

// compactJSON is raw as compact JSON text (raw as it is if it is not JSON).
func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// value checks the field and returns its JSON value; nil (and no error)
// when an optional field is left out. The error says what is wrong in the
// user's words.
func (f *formField) value() (json.RawMessage, error) {
	if f.kind == fieldChoice {
		if f.choice < 0 {
			if f.required {
				return nil, fmt.Errorf("required: choose a value (←/→)")
			}
			return nil, nil
		}
		return f.choices[f.choice], nil
	}
	text := f.in.Value()
	if f.kind != fieldText {
		text = strings.TrimSpace(text)
	}
	if text == "" {
		if f.required {
			return nil, fmt.Errorf("required: type a value")
		}
		return nil, nil
	}
	switch f.kind {
	case fieldText:
		return json.RawMessage(jsonText(text)), nil
	case fieldInteger, fieldNumber:
		return f.numberValue(text)
	}
	v, err := jsonFieldValue(text, f.typ)
	if err != nil {
		return nil, err
	}
	decoded, _ := decodeJSON(string(v))
	if err := checkAgainst(f.schema, decoded, f.name); err != nil {
		return nil, err
	}
	return v, nil
}

// numberValue checks a number (an integer for fieldInteger) and its bounds.
func (f *formField) numberValue(text string) (json.RawMessage, error) {
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || !json.Valid([]byte(text)) || math.IsInf(n, 0) {
		return nil, fmt.Errorf("not a number: write it as JSON does (5, -2.5, 1e3)")
	}
	if f.kind == fieldInteger && n != math.Trunc(n) {
		return nil, fmt.Errorf("not an integer: no fraction allowed")
	}
	if f.min != nil && n < *f.min {
		return nil, fmt.Errorf("too small: at least %v", *f.min)
	}
	if f.max != nil && n > *f.max {
		return nil, fmt.Errorf("too large: at most %v", *f.max)
	}
	return json.RawMessage(text), nil
}

// jsonFieldValue checks JSON text, and that an object or array field holds
// one.
func jsonFieldValue(text, typ string) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	switch {
	case strings.HasPrefix(typ, "object"):
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("not a JSON object: write {…}")
		}
	case strings.HasPrefix(typ, "array"):
		if _, ok := v.([]any); !ok {
			return nil, fmt.Errorf("not a JSON array: write […]")
		}
	}
	return json.RawMessage(compactJSON(json.RawMessage(text))), nil
}

// hint is what the field accepts, in a few words: its default, choices,
// bounds.
func (f *formField) hint() string {
	var parts []string
	if f.def != "" {
		d := "default " + f.def
		if f.defHidden {
			d += " (not filled in: it holds control characters)"
		}
		parts = append(parts, d)
	}
	if f.kind == fieldChoice && len(f.choices) > 1 {
		cs := make([]string, len(f.choices))
		for i, c := range f.choices {
			cs[i] = string(c)
		}
		parts = append(parts, "one of "+strings.Join(cs, ", "))
	}
	if f.min != nil {
		parts = append(parts, fmt.Sprintf("≥ %v", *f.min))
	}
	if f.max != nil {
		parts = append(parts, fmt.Sprintf("≤ %v", *f.max))
	}
	return strings.Join(parts, " · ")
}
