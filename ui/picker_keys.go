package ui

import (
	tea "charm.land/bubbletea/v2"
)

// pickerKeys are the bindings of the picker, the form, the composer's
// history and drafts, and resending as is; part of the one key table
// ([KeyMap]).
type pickerKeys struct {
	PickOpen                                        *Binding
	PickUp, PickDown, PickPgUp, PickPgDown          *Binding
	PickChoose, PickSend, PickClose                 *Binding
	FormNext, FormPrev, FormChoose, FormCompose     *Binding
	FormSend, FormBack                              *Binding
	HistoryPrev, HistoryNext, DropDraft, ResendAsIs *Binding
}

// Why a picker key does nothing.
const (
	whyNoPick    = "nothing matches the filter"
	whyNoHistory = "nothing sent or put aside yet"
)

// addPickOpen adds t, which opens the picker (in the main screen's group).
func (k *KeyMap) addPickOpen(group string) {
	k.PickOpen = k.add(group, scopeMain, keys("t"), "t", "pick a tool, prompt, resource or request", actCmd((*Model).openPicker))
	k.PickOpen.disabled = (*Model).whyNotLive
	k.PickOpen.bar = "call a tool"
}

// addResendAsIs adds ctrl+r in the Frames pane (r resends with a fresh id).
func (k *KeyMap) addResendAsIs() {
	k.ResendAsIs = k.add("Frames", scopeFrames, keys("ctrl+r"), "ctrl+r", "resend as is (same id; asks first)", actCmd((*Model).resendAsIs))
	k.ResendAsIs.disabled = (*Model).whyNoClientFrame
}

// addHistory adds the composer's history keys and the esc that clears a
// kept draft.
func (k *KeyMap) addHistory(group string) {
	k.HistoryPrev = k.add(group, scopeComposer, keys("up"), "↑", "history: older (from the first line)", (*Model).historyUp)
	k.HistoryNext = k.add(group, scopeComposer, keys("down"), "↓", "history: newer (from the last line)", (*Model).historyDown)
	k.DropDraft = k.add(group, scopeDraftKept, keys("esc"), "esc esc", "close and clear the draft", act((*Model).dropDraft))
}

// addPicker adds the keys of the picker and of the form.
func (k *KeyMap) addPicker() {
	const pick, frm = "Picker", "Form"
	add := k.add
	k.PickUp = add(pick, scopePicker, keys("up", "ctrl+p"), "↑", "up", act(func(m *Model) { m.picker.move(-1) }))
	k.PickDown = add(pick, scopePicker, keys("down", "ctrl+n"), "↓", "down", act(func(m *Model) { m.picker.move(1) }))
	k.PickPgUp = add(pick, scopePicker, keys("pgup"), "pgup", "page up", act(func(m *Model) { m.picker.move(-max(m.picker.h/2, 1)) }))
	k.PickPgDown = add(pick, scopePicker, keys("pgdown"), "pgdn", "page down", act(func(m *Model) { m.picker.move(max(m.picker.h/2, 1)) }))
	k.PickChoose = add(pick, scopePicker, keys("enter"), "enter", "choose", actCmd(func(m *Model) tea.Cmd { return m.choosePicked(false) }))
	k.PickChoose.disabled = (*Model).whyNoPick
	k.PickSend = add(pick, scopePicker, keys("ctrl+s"), "ctrl+s", "send now (as it is)", actCmd(func(m *Model) tea.Cmd { return m.choosePicked(true) }))
	k.PickSend.disabled = (*Model).whyNoPick
	k.PickClose = add(pick, scopePicker, keys("esc"), "esc", "close", act((*Model).closePicker))

	k.FormNext = add(frm, scopeForm, keys("tab", "down"), "tab/↓", "next field", act(func(m *Model) { m.form.focusField(m.form.focus + 1) }))
	k.FormPrev = add(frm, scopeForm, keys("shift+tab", "up"), "shift+tab/↑", "previous field", act(func(m *Model) { m.form.focusField(m.form.focus - 1) }))
	k.FormChoose = add(frm, scopeForm, keys("left", "right", "space"), "←/→", "choose", (*Model).formChoose)
	k.FormCompose = add(frm, scopeForm, keys("enter"), "enter", "to composer", act((*Model).formCompose))
	k.FormSend = add(frm, scopeForm, keys("ctrl+s"), "ctrl+s", "send", actCmd((*Model).formSend))
	k.FormBack = add(frm, scopeForm, keys("esc"), "esc", "back", act((*Model).formBack))
}

// pickerHelp is the help line while the picker or a form is open (nil
// otherwise).
func (m *Model) pickerHelp() []*Binding {
	k := m.c.km
	switch {
	case m.form != nil:
		return []*Binding{k.FormSend, k.FormCompose, k.FormNext, k.FormChoose, k.FormBack}
	case m.picker.open:
		return []*Binding{k.PickChoose, k.PickSend, k.PickUp, k.PickDown, k.PickClose}
	}
	return nil
}

// draftScope is scopeDraftKept right after esc closed the composer with a
// draft in it.
func (m *Model) draftScope() scope {
	if m.draftArmed {
		return scopeDraftKept
	}
	return 0
}

func (m *Model) whyNoPick() string {
	_, ok := m.picker.selected()
	return when(!ok, whyNoPick)
}

// formChoose cycles a choice field; in a text field the key edits the text
// (← and → move the cursor, space is typed).
func (m *Model) formChoose(msg tea.KeyPressMsg) tea.Cmd {
	d := 1
	if msg.String() == "left" {
		d = -1
	}
	if m.form.cycle(d) {
		return nil
	}
	return m.form.typed(msg)
}
