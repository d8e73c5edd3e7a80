package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// What the picker's and the form's keys do, and the composer's history.

// choosePicked acts on the selected row: a tool, prompt or resource
// template opens its form (sendNow: sends at once when the defaults pass
// the checks); a resource, a request template or a sent request goes into
// the composer (sendNow: is sent at once).
func (m *Model) choosePicked(sendNow bool) tea.Cmd {
	it, _ := m.picker.selected()
	cat := &m.c.ix.catalog
	switch it.kind {
	case itemTool, itemPrompt, itemRTemplate:
		switch it.kind {
		case itemTool:
			m.form = newToolForm(m.c, cat.tools[it.idx])
		case itemPrompt:
			m.form = newPromptForm(m.c, cat.prompts[it.idx])
		default:
			m.form = newTemplateForm(m.c, cat.rtemplates[it.idx])
		}
		if sendNow {
			return m.formSend()
		}
		return nil
	case itemResource:
		c := m.templateContext()
		r := cat.resources[it.idx]
		m.composeText(inertTemplate(template{"resources/read " + r.URI, c.request("resources/read", "\"uri\": "+jsonText(r.URI))}))
	case itemRequest:
		m.picker.close()
		m.composer.openWith(templates(m.templateContext()), it.idx)
		m.focusComposer()
	case itemSent:
		text, _, _ := renewID([]byte(m.composer.hist.sentTexts()[it.idx]), m.templateContext().id)
		m.composeText(template{"again: " + sentName(string(text)), string(text)})
	}
	if sendNow {
		return m.sendComposed(false)
	}
	return nil
}

// composeText closes the picker and the form and opens the composer on t.
func (m *Model) composeText(t template) {
	m.picker.close()
	m.form = nil
	m.composer.openText(t.Name, t.Text)
	m.focusComposer()
}

// formCompose checks the form and, when it passes, puts the request in the
// composer for a last look.
func (m *Model) formCompose() {
	t, err := m.form.request(m.templateContext())
	if err != nil {
		m.setMessage(err.Error(), true)
		return
	}
	m.composeText(t)
	m.composer.status = "built from the form: ctrl+s sends it"
}

// formSend checks the form and, when it passes, sends the request at once
// (through the composer's checks, so a reused id still asks first).
func (m *Model) formSend() tea.Cmd {
	t, err := m.form.request(m.templateContext())
	if err != nil {
		m.setMessage(err.Error(), true)
		return nil
	}
	m.composeText(t)
	return m.sendComposed(false)
}

// formBack closes the form and returns to the picker.
func (m *Model) formBack() {
	m.form = nil
}

// historyUp shows the previous entry of the history when the cursor is
// on the first line (else it moves the cursor up).
func (m *Model) historyUp(msg tea.KeyPressMsg) tea.Cmd {
	p := m.composer
	if p.big == "" && p.ta.Line() > 0 {
		return m.typed(scopeComposer, msg)
	}
	m.historyStep(-1)
	return nil
}

// historyDown shows the next entry when the cursor is on the last line.
func (m *Model) historyDown(msg tea.KeyPressMsg) tea.Cmd {
	p := m.composer
	if p.big == "" && p.ta.Line() < p.ta.LineCount()-1 {
		return m.typed(scopeComposer, msg)
	}
	m.historyStep(1)
	return nil
}

// historyStep moves d entries in the history and shows the entry: a sent
// request with the next free id, a draft as it was. The cursor goes where
// the next step in the same direction is one key away.
func (m *Model) historyStep(d int) {
	p := m.composer
	h := &p.hist
	if len(h.entries) == 0 {
		p.status, p.statusBad = whyNoHistory, false
		return
	}
	if !h.walking() {
		h.written = p.edited()
	}
	text, ok := h.step(d, p.value())
	if !ok {
		p.status, p.statusBad = map[bool]string{true: "the oldest entry of the history", false: "your own draft: nothing newer"}[d < 0], false
		return
	}
	title, status := "your draft", "back to your draft"
	if h.walking() {
		e := h.entries[h.pos]
		n := len(h.entries)
		title, status = "put aside", fmt.Sprintf("draft put aside %d of %d", h.pos+1, n)
		if e.sent {
			renewed, old, ok := renewID([]byte(text), m.templateContext().id)
			text = string(renewed)
			title, status = "sent before: "+sentName(text), fmt.Sprintf("sent request %d of %d", h.pos+1, n)
			if ok {
				status += ", with a fresh id (was " + old + ")"
			}
		}
	}
	p.title = title
	p.setDraft(text)
	p.loaded, p.base, p.edits = text, text, ""
	if h.walking() {
		p.loaded = "" // an entry shown counts as written: esc keeps it
	}
	p.status, p.statusBad, p.confirm = status+" · ↑ older · ↓ newer", false, ""
	if d < 0 {
		p.ta.MoveToBegin()
	} else {
		p.ta.MoveToEnd()
	}
}

// dropDraft clears the draft esc kept (esc pressed twice), saying so; it
// stays in the history.
func (m *Model) dropDraft() {
	p := m.composer
	p.putAside()
	p.kept = false
	p.big, p.loaded, p.base, p.edits = "", "", "", ""
	p.ta.Reset()
	m.setMessage("draft cleared (c, then ↑ in the composer, brings it back)", false)
}

// resendAsIs sends the selected client frame again byte for byte, its id
// included; a reused id is warned about first, as the era judges it, and
// a second ctrl+r sends.
func (m *Model) resendAsIs() tea.Cmd {
	ev, _ := m.selectedEvent()
	if c, err := check(string(frameText(ev.Frame))); err == nil && c.isReq && m.resendConfirm != ev.Seq {
		if w := reuseWarning(m.c.ix, m.inflight.reqs, m.templateContext().era, c.id, "ctrl+r"); w != "" {
			m.resendConfirm = ev.Seq
			m.setMessage(w, false)
			return nil
		}
	}
	m.resendConfirm = 0
	raw := ev.Frame.Raw()
	m.composer.hist.add(prettyText(raw), true)
	return m.sendBytes(raw, fmt.Sprintf("resent frame #%d as is", ev.Seq))
}

// sendBytes sends raw and reports what as the result; the frame list
// follows the newest frames to show it.
func (m *Model) sendBytes(raw []byte, what string) tea.Cmd {
	s := m.opts.Session
	m.frames.follow = true
	return func() tea.Msg { return resultMsg{what, s.Send(raw)} }
}

// renderPicker draws the picker or the form over the panes, in the w×h
// body; "" when neither is open.
func (m *Model) renderPicker(w, h int) string {
	switch {
	case m.form != nil:
		m.form.SetSize(w, h)
		return m.form.Render()
	case m.picker.open:
		m.picker.SetSize(w, h)
		return m.picker.Render(m.pickerCounts(), m.pickerDetail(w))
	}
	return ""
}

// pickerOpen reports whether the picker or a form covers the panes.
func (m *Model) pickerOpen() bool { return m.form != nil || m.picker.open }
