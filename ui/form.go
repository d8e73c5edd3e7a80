package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The form fills in the arguments of a tool (from its inputSchema), of a
// prompt (its declared arguments) or the variables of a resource template,
// checks each value against what was declared (type, required, choices,
// bounds) and says what is wrong next to the field; it then builds the
// request for the composer (a last look) or sends it at once.

// formTarget is what the form builds a request for.
type formTarget int

const (
	formTool      formTarget = iota // tools/call
	formPrompt                      // prompts/get
	formRTemplate                   // resources/read of an expanded URI template
)

// form is the state of an open form.
type form struct {
	c      *common
	target formTarget
	name   string // the tool or prompt name, or the URI template
	title  string // the title line's extra text (server text)
	desc   string // the description (server text)
	fields []*formField
	focus  int
	// note says why the form could not model the schema ("" = it could):
	// the arguments are then one JSON field.
	note string
	w, h int
}

// newToolForm builds the form of a tool from its input schema.
func newToolForm(c *common, t toolInfo) *form {
	f := &form{c: c, target: formTool, name: t.Name, title: t.Title, desc: t.Description}
	fields, ok := schemaFields(t.Schema)
	if !ok {
		f.note = "the input schema is not an object with properties: the arguments are JSON"
		fields = []*formField{{name: "arguments", kind: fieldJSON, typ: "object (JSON)", choice: -1}}
		fields[0].init()
		fields[0].in.SetValue("{}")
	}
	f.fields = fields
	f.focusField(0)
	return f
}

// newPromptForm builds the form of a prompt from its arguments (strings).
func newPromptForm(c *common, p promptInfo) *form {
	f := &form{c: c, target: formPrompt, name: p.Name, title: p.Title, desc: p.Description}
	for _, a := range p.Arguments {
		d := a.Description
		if d == "" {
			d = a.Title
		}
		f.fields = append(f.fields, textField(a.Name, d, a.Required))
	}
	f.focusField(0)
	return f
}

// newTemplateForm builds the form of a resource template: one field per
// variable of its URI template.
func newTemplateForm(c *common, r resourceInfo) *form {
	f := &form{c: c, target: formRTemplate, name: r.URI, title: r.Name, desc: r.Description}
	for _, v := range uriTemplateVars(r.URI) {
		f.fields = append(f.fields, textField(v.name, "a variable of the URI template", v.required))
	}
	f.focusField(0)
	return f
}

// method is the request the form builds.
func (f *form) method() string {
	return [...]string{"tools/call", "prompts/get", "resources/read"}[f.target]
}

// focusField moves the focus to field i (clamped). The fields take the
// theme's text input styles (whose cursor does not blink) on the way.
func (f *form) focusField(i int) {
	if len(f.fields) == 0 {
		return
	}
	for _, fd := range f.fields {
		if !fd.styled {
			fd.in.SetStyles(f.c.st.TextInput)
			fd.styled = true
		}
	}
	f.fields[f.focus].in.Blur()
	f.focus = max(0, min(i, len(f.fields)-1))
	if k := f.fields[f.focus].kind; k != fieldChoice {
		f.fields[f.focus].in.Focus()
		f.fields[f.focus].in.CursorEnd()
	}
}

// current is the focused field (nil in a form without fields).
func (f *form) current() *formField {
	if len(f.fields) == 0 {
		return nil
	}
	return f.fields[f.focus]
}

// cycle moves a choice field's choice by d, through "left out" for an
// optional field. It reports whether the focused field is a choice.
func (f *form) cycle(d int) bool {
	fd := f.current()
	if fd == nil || fd.kind != fieldChoice {
		return false
	}
	lo := 0
	if !fd.required {
		lo = -1
	}
	n := len(fd.choices) - lo
	fd.choice = (fd.choice-lo+d+n)%n + lo
	fd.err = ""
	return true
}

// typed gives a key to the focused text field. The first printable key
// typed into an untouched default replaces it (as a selected field would);
// any other key (an arrow, backspace) starts editing the default instead.
func (f *form) typed(msg tea.KeyPressMsg) tea.Cmd {
	fd := f.current()
	if fd == nil || fd.kind == fieldChoice {
		return nil
	}
	if fd.pristine && msg.Text != "" {
		fd.in.SetValue("")
	}
	fd.pristine = false
	fd.err = ""
	var cmd tea.Cmd
	fd.in, cmd = fd.in.Update(msg)
	return cmd
}

// check checks every field, marking those with an error, and returns the
// arguments as ordered members (name, JSON value) and how many fields are
// wrong. The focus moves to the first wrong field.
func (f *form) check() (members [][2]string, bad int) {
	first := -1
	for i, fd := range f.fields {
		v, err := fd.value()
		fd.err = ""
		if err != nil {
			fd.err = err.Error()
			bad++
			if first < 0 {
				first = i
			}
			continue
		}
		if v != nil {
			members = append(members, [2]string{fd.name, string(v)})
		}
	}
	if first >= 0 {
		f.focusField(first)
	}
	return members, bad
}

// request builds the request text (pretty, as the templates write it) for
// the template context c, or says how many fields are wrong.
func (f *form) request(c templateCtx) (template, error) {
	members, bad := f.check()
	if bad > 0 {
		return template{}, fmt.Errorf("%d field(s) need a fix (marked ✖)", bad)
	}
	title := f.method() + " " + f.name
	switch f.target {
	case formPrompt:
		return inertTemplate(template{title, c.request("prompts/get", fmt.Sprintf("\"name\": %s,\n    \"arguments\": %s", jsonText(f.name), membersJSON(members, "    ")))}), nil
	case formRTemplate:
		vals := map[string]string{}
		for _, m := range members {
			var s string
			_ = json.Unmarshal([]byte(m[1]), &s)
			vals[m[0]] = s
		}
		uri := expandURITemplate(f.name, vals)
		return inertTemplate(template{"resources/read " + uri, c.request("resources/read", "\"uri\": "+jsonText(uri))}), nil
	}
	args := membersJSON(members, "    ")
	if f.note != "" && len(members) == 1 {
		args = members[0][1] // the arguments field is the whole object
	}
	return inertTemplate(template{title, c.requestWith("tools/call", fmt.Sprintf("\"name\": %s,\n    \"arguments\": %s", jsonText(f.name), args), true)}), nil
}

// membersJSON writes an object of the members, one a line at indent+2.
func membersJSON(members [][2]string, indent string) string {
	if len(members) == 0 {
		return "{}"
	}
	parts := make([]string, len(members))
	for i, m := range members {
		parts[i] = fmt.Sprintf("%s  %s: %s", indent, jsonText(m[0]), m[1])
	}
	return "{\n" + strings.Join(parts, ",\n") + "\n" + indent + "}"
}

// SetSize sets the form's area.
func (f *form) SetSize(w, h int) { f.w, f.h = w, h }

// formDescLines bounds the description shown above the fields.
const formDescLines = 4

// formValueMax bounds the width of a value's text input (JSON that needs
// more scrolls in it, or goes to the composer).
const formValueMax = 60

// Render draws the form: title, description, then the fields, scrolled so
// that the focused one shows whole.
func (f *form) Render() string {
	st := f.c.st
	head := []string{f.c.titleLine(f.w, f.method()+" "+inertLine(f.name), true, st.Subtle.Render(inertLine(f.title)))}
	desc := inertWrapped(f.desc, f.w-2)
	if len(desc) > formDescLines {
		desc = append(desc[:formDescLines-1], desc[formDescLines-1]+" …")
	}
	for _, d := range desc {
		if d != "" {
			head = append(head, " "+st.Subtle.Render(d))
		}
	}
	if f.note != "" {
		head = append(head, " "+st.Warning.Render(f.note))
	}
	if len(f.fields) == 0 {
		head = append(head, "", "  "+st.Subtle.Render("no arguments: enter puts the request in the composer, ctrl+s sends it"))
	}
	head = append(head, "")
	var body []string
	focusAt, focusEnd := 0, 0
	for i, fd := range f.fields {
		if i == f.focus {
			focusAt = len(body)
		}
		body = append(body, f.fieldLines(fd, i == f.focus)...)
		if i == f.focus {
			focusEnd = len(body)
		}
	}
	room := max(f.h-len(head), 1)
	top := 0
	if focusEnd > room {
		top = min(focusAt, focusEnd-room)
	}
	body = body[top:]
	return block(append(head, body...), f.w, f.h)
}

// labelWidth is the width of the field names' column.
func (f *form) labelWidth() int {
	w := 4
	for _, fd := range f.fields {
		w = max(w, ansi.StringWidth(inertLine(fd.name))+1)
	}
	return min(w, 24)
}

// fieldLines draws one field: name (* when required), type and value on
// the first line; under it what is wrong, then the description and what
// the field accepts (in full for the focused field).
func (f *form) fieldLines(fd *formField, focused bool) []string {
	st := f.c.st
	lw := f.labelWidth()
	name := inertLine(fd.name)
	if fd.required {
		name += "*"
	}
	label := fit(name, lw)
	mark := "  "
	if focused {
		mark = "▌ "
		label = st.Accent.Render(label)
	}
	fd.in.SetWidth(min(max(f.w-2-lw-1-16-1, 8), formValueMax)) // a cell left for the cursor
	first := mark + label + " " + st.Subtle.Render(fit(fd.typ, 15)) + " " + f.valueView(fd, focused)
	out := []string{first}
	indent := strings.Repeat(" ", 2+lw+1)
	if fd.err != "" {
		out = append(out, indent+st.Error.Render("✖ "+fd.err))
	}
	about := strings.TrimSpace(strings.Join(nonEmpty(inertLine(fd.desc), fd.hintInert()), " · "))
	if focused && fd.pristine {
		about = strings.TrimSpace(about + " · typing replaces the default, ←/→ edit it")
	}
	switch {
	case about == "":
	case focused:
		for _, l := range strings.Split(ansi.Wrap(about, max(f.w-len(indent), 10), ""), "\n") {
			out = append(out, indent+st.Subtle.Render(l))
		}
	default:
		out = append(out, indent+st.Subtle.Render(truncate(about, max(f.w-len(indent), 1))))
	}
	return out
}

// valueView draws the value: a choice between arrows, or the text input.
func (f *form) valueView(fd *formField, focused bool) string {
	if fd.kind != fieldChoice {
		return fd.in.View()
	}
	v := "(left out)"
	if fd.choice >= 0 {
		v = inertLine(string(fd.choices[fd.choice]))
	}
	if focused {
		return f.c.st.Accent.Render("◂ " + v + " ▸")
	}
	return "  " + v
}

// hintInert is the field's hint made inert (defaults and choices are
// server text).
func (fd *formField) hintInert() string { return inertLine(fd.hint()) }

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
