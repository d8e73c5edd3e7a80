package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"linesman/wire"
)

// requester sends a request with a fresh id (*session.Session does); the
// picker uses it to list what the server declares but nobody listed yet.
type requester interface {
	Request(method string, params any) (wire.ID, error)
}

// openPicker opens the picker, listing in the background the prompts,
// resources and templates the server declares and nobody listed yet.
func (m *Model) openPicker() tea.Cmd {
	cmd := m.picker.show(m.pickItems())
	return tea.Batch(cmd, m.listMissing())
}

// listMissing asks the server for the lists its capabilities promise that
// no answer has given yet (once per list: an answer, or an error, ends it).
func (m *Model) listMissing() tea.Cmd {
	rq, ok := m.opts.Session.(requester)
	if !ok || !m.live() {
		return nil
	}
	hs := m.c.ix.tr.Handshake()
	var methods []string
	for _, c := range []struct{ cap, method string }{
		{"tools", "tools/list"}, {"prompts", "prompts/list"},
		{"resources", "resources/list"}, {"resources", "resources/templates/list"},
	} {
		if hs.ServerDeclares(c.cap) && !m.c.ix.listedMethods[c.method] && !m.asked[c.method] {
			methods = append(methods, c.method)
		}
	}
	if len(methods) == 0 {
		return nil
	}
	if m.asked == nil {
		m.asked = map[string]bool{}
	}
	for _, meth := range methods {
		m.asked[meth] = true
	}
	return func() tea.Msg {
		for _, meth := range methods {
			if _, err := rq.Request(meth, nil); err != nil {
				return resultMsg{"listing for the picker: " + meth, err}
			}
		}
		return nil
	}
}

func (m *Model) closePicker() {
	m.picker.close()
}

// refreshPicker gives an open picker the lists as they are now.
func (m *Model) refreshPicker() {
	if m.picker != nil && m.picker.open {
		m.picker.setItems(m.pickItems())
	}
}

// updatePicker gives a message that is not a key (a cursor blink) to the
// picker's or the form's text input; ok is false when neither is open.
func (m *Model) updatePicker(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch {
	case m.form != nil:
		if fd := m.form.current(); fd != nil && fd.kind != fieldChoice {
			if _, paste := msg.(tea.PasteMsg); paste && fd.pristine {
				fd.in.SetValue("") // a paste replaces the default, as typing does
				fd.pristine = false
			}
			fd.in, cmd = fd.in.Update(msg)
		}
		return cmd, true
	case m.picker.open:
		m.picker.in, cmd = m.picker.in.Update(msg)
		return cmd, true
	}
	return nil, false
}

// pickItems lists what the picker offers: the server's tools, prompts,
// resources and resource templates, the request templates, and the
// requests sent, newest first.
func (m *Model) pickItems() []pickItem {
	cat := &m.c.ix.catalog
	var out []pickItem
	for i, t := range cat.tools {
		out = append(out, pickItem{itemTool, t.Name, firstNonEmpty(t.Title, t.Description), i})
	}
	for i, p := range cat.prompts {
		out = append(out, pickItem{itemPrompt, p.Name, firstNonEmpty(p.Title, p.Description), i})
	}
	for i, r := range cat.resources {
		out = append(out, pickItem{itemResource, firstNonEmpty(r.Name, r.URI), r.URI, i})
	}
	for i, r := range cat.rtemplates {
		out = append(out, pickItem{itemRTemplate, firstNonEmpty(r.Name, r.URI), r.URI, i})
	}
	for i, t := range templates(m.templateContext()) {
		out = append(out, pickItem{itemRequest, t.Name, "", i})
	}
	for i, text := range m.composer.hist.sentTexts() {
		out = append(out, pickItem{itemSent, sentName(text), compactLine(text), i})
	}
	return out
}

// sentName names a sent request in the picker: its method, and the tool,
// prompt or resource it names.
func sentName(text string) string {
	var r struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal([]byte(text), &r)
	return strings.TrimSpace(firstNonEmpty(r.Method, "(not a request)") + " " + firstNonEmpty(r.Params.Name, r.Params.URI))
}

// compactLine is JSON text on one line (text as it is when not JSON).
func compactLine(text string) string { return compactJSON(json.RawMessage(text)) }

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// pickerCounts says how many of each the server offers, and which lists
// were never answered.
func (m *Model) pickerCounts() string {
	cat := &m.c.ix.catalog
	var parts []string
	for _, c := range []struct {
		n      int
		what   string
		method string
	}{
		{len(cat.tools), "tools", "tools/list"}, {len(cat.prompts), "prompts", "prompts/list"},
		{len(cat.resources), "resources", "resources/list"}, {len(cat.rtemplates), "templates", "resources/templates/list"},
	} {
		if cat.listedMethods[c.method] {
			parts = append(parts, fmt.Sprintf("%s %d", c.what, c.n))
		} else {
			parts = append(parts, c.what+" not listed")
		}
	}
	return strings.Join(parts, " · ")
}

// pickerDetail is the selected row told in full: what choosing it does,
// and the server's description, wrapped.
func (m *Model) pickerDetail(w int) []string {
	it, ok := m.picker.selected()
	if !ok {
		return nil
	}
	cat := &m.c.ix.catalog
	var head, desc string
	switch it.kind {
	case itemTool:
		t := cat.tools[it.idx]
		head, desc = "enter: a form for its arguments · tools/call "+t.Name, t.Description
	case itemPrompt:
		p := cat.prompts[it.idx]
		head, desc = "enter: a form for its arguments · prompts/get "+p.Name, p.Description
	case itemResource:
		r := cat.resources[it.idx]
		head, desc = "enter: resources/read "+r.URI+" "+r.MimeType, r.Description
	case itemRTemplate:
		r := cat.rtemplates[it.idx]
		head, desc = "enter: a form for its variables · resources/read "+r.URI, r.Description
	case itemRequest:
		head = "enter: this request in the composer (ctrl+t there cycles the others)"
		if ts := templates(m.templateContext()); it.idx < len(ts) {
			desc = compactLine(ts[it.idx].Text)
		}
	case itemSent:
		head, desc = "enter: again in the composer, with a fresh id", it.detail
	}
	out := []string{m.c.st.Accent.Render(truncate(inertLine(head), w))}
	return append(out, inertWrapped(desc, w)...)
}
