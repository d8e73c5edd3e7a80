package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"linesman/session"
	"linesman/session/eventlog"
	"linesman/wire"
)

// faultEvents returns the log's fault events, and every finding of a
// warning or more in it (what the judge charged the server with).
func faultEvents(s *session.Session) (faults []eventlog.Event, charged []string) {
	first, end := s.Log().Bounds()
	for _, ev := range s.Log().Range(first, end) {
		var fs []wire.Finding
		switch ev.Type {
		case eventlog.EventFault:
			faults = append(faults, ev)
		case eventlog.EventFrame:
			fs = s.Tracker().FindingsOf(&ev)
		case eventlog.EventFinding:
			fs = []wire.Finding{ev.Finding.Finding}
		}
		for _, f := range fs {
			if f.Severity >= wire.SeverityWarning {
				charged = append(charged, f.Code+": "+f.Message)
			}
		}
	}
	return faults, charged
}

// TestInjectFaultByKey: ! opens the fault prompt against the live demo
// server, a kind's key arms it, and the answer to the next request the
// composer sends gets it: the log records the fault event (injected: …)
// ahead of the server's answer, which is logged as it came and tracked as
// answered, and the judge charges the server with nothing.
func TestInjectFaultByKey(t *testing.T) {
	s, m := startDemo(t, eventlog.EraLegacy)
	press(m, "!")
	if got := ansi.Strip(m.bottomLine()); !strings.Contains(got, "inject into the next answer:") || !strings.Contains(got, "p drop") {
		t.Fatalf("! did not open the fault prompt: %q", got)
	}
	press(m, "p")
	if m.faultAsk || !strings.Contains(m.message, "fault armed: drop") {
		t.Fatalf("p did not arm the drop: prompt %v, message %q", m.faultAsk, m.message)
	}
	composeAndSend(t, s, m, `{"method":"tools/list"}`)
	faults, charged := faultEvents(s)
	if len(faults) != 1 || faults[0].Fault.Kind != eventlog.FaultDrop || faults[0].Fault.Method != "tools/list" ||
		!strings.HasPrefix(faults[0].Note, "injected: the answer to tools/list") {
		t.Fatalf("fault events %+v; want one drop of the tools/list answer", faults)
	}
	if s.Tracker().Faults() != 1 {
		t.Errorf("the fold counted %d injected faults; want 1", s.Tracker().Faults())
	}
	for _, r := range s.Tracker().Requests() {
		if r.Method == "tools/list" && (r.State != eventlog.ReqAnswered || r.ResponseSeq < faults[0].Seq) {
			t.Errorf("tools/list %v, answer #%d; want answered after the fault event #%d", r.State, r.ResponseSeq, faults[0].Seq)
		}
	}
	composeAndSend(t, s, m, `{"method":"tools/list"}`) // a fault is injected once
	if again, _ := faultEvents(s); len(again) != 1 {
		t.Errorf("%d fault events after a second request; want the one", len(again))
	}
	if len(charged) > 0 {
		t.Errorf("the server was charged with an injected fault: %v", charged)
	}
}

// TestInjectKillByKey: ! k kills the demo server as the next request
// passes; its end is linesman's (the request it left unanswered only a
// note), and the log says so.
func TestInjectKillByKey(t *testing.T) {
	s, m := startDemo(t, eventlog.EraLegacy)
	press(m, "!", "k")
	press(m, "c", "ctrl+x")
	typeText(m, `{"method":"tools/list"}`)
	press(m, "ctrl+s")
	select {
	case <-s.Done():
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the server was not killed")
	}
	faults, charged := faultEvents(s)
	if len(faults) != 1 || faults[0].Fault.Kind != eventlog.FaultKill || !strings.Contains(faults[0].Note, "SIGKILL") {
		t.Fatalf("fault events %+v; want one kill", faults)
	}
	if p := s.Tracker().Process(); p.Signal != "SIGKILL" {
		t.Errorf("process %+v; want killed by SIGKILL", p)
	}
	if len(charged) > 0 {
		t.Errorf("the server was charged with an injected kill: %v", charged)
	}
	m.Update(doneMsg{done: s.Done()})
	press(m, "!")
	if !strings.Contains(m.message, "exited") || m.faultAsk {
		t.Errorf("! after the exit: %q; want the reason it does nothing", m.message)
	}
}
