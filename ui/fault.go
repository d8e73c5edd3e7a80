package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"linesman/wire"
)

// Injecting a fault by key (!): a prompt on the bottom line asks which
// kind, and the live session arms it (the tap's --fault injector, on the
// session's stdout path) for the answer to the next request sent. The
// fault is logged as an event of its own when it is injected, and the
// judge charges the server for none of it (see [faultInjector]).

// faultInjector is a live session that can inject a fault into its own
// conversation: *session.Session's InjectFault, which takes a --fault spec.
type faultInjector interface{ InjectFault(spec string) error }

// faultKinds are the prompt's keys and the spec each arms.
var faultKinds = []struct{ key, spec, what string }{
	{"d", "delay:3s", "delay 3s"},
	{"p", "drop", "drop"},
	{"e", "error:-32603:injected by linesman", "error"},
	{"t", "truncate", "cut"},
	{"u", "corrupt", "bad UTF-8"},
	{"s", "stray", "stray line"},
	{"o", "close-stdout", "close stdout"},
	{"k", "kill:SIGKILL", "kill"},
}

// addFault adds ! and the keys of its prompt (ctrl+c quits from it, as
// from every prompt: scopeTyping).
func (k *KeyMap) addFault() {
	k.Fault = k.add("Everywhere", scopeMain, keys("!"), "!", "inject a fault into the next answer", act((*Model).openFaultPrompt))
	k.Fault.disabled = (*Model).whyNoFault
	k.Fault.bar = "fault"
	var ks []string
	for _, f := range faultKinds {
		ks = append(ks, f.key)
	}
	k.FaultKind = k.add("Fault prompt", scopeFaultKind, ks, strings.Join(ks, "/"),
		"the kind (the prompt names each)", (*Model).armFault)
	k.CancelFault = k.add("Fault prompt", scopeFaultKind, keys("esc"), "esc", "cancel", act(func(m *Model) {
		m.faultAsk = false
		m.setMessage("no fault armed", false)
	}))
}

func (m *Model) whyNoFault() string {
	if why := m.whyNotLive(); why != "" {
		return why
	}
	if _, ok := m.opts.Session.(faultInjector); !ok {
		return "this session cannot inject faults"
	}
	return ""
}

func (m *Model) openFaultPrompt() { m.faultAsk = true }

// armFault arms the kind whose key was pressed.
func (m *Model) armFault(msg tea.KeyPressMsg) tea.Cmd {
	m.faultAsk = false
	for _, f := range faultKinds {
		if msg.String() != f.key {
			continue
		}
		if err := m.opts.Session.(faultInjector).InjectFault(f.spec); err != nil {
			m.setMessage("fault: "+err.Error(), true)
			return nil
		}
		when := "the answer to the next request"
		if f.spec == "close-stdout" || strings.HasPrefix(f.spec, "kill") {
			when = "as the next request passes"
		}
		m.setMessage("fault armed: "+f.spec+", "+when+" (the server is not charged for it)", false)
	}
	return nil
}

// faultLine is the bottom line while the fault prompt is open.
func (m *Model) faultLine() string {
	st := m.c.st
	parts := []string{st.Accent.Render("inject into the next answer:")}
	for _, f := range faultKinds {
		parts = append(parts, st.Help.ShortKey.Render(f.key)+" "+st.Help.ShortDesc.Render(wire.VisibleString(f.what, wire.Pictures)))
	}
	parts = append(parts, st.Help.ShortKey.Render("esc")+" "+st.Help.ShortDesc.Render("cancel"))
	return fit(strings.Join(parts, "  "), m.width)
}
