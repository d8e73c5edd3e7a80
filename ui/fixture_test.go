package ui

import (
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// fixture builds a log by hand, with fixed times, so that renders are
// deterministic. Its frames go through a real tracker, as a live session's
// do: tr is the log's projection, to hand to the model.
type fixture struct {
	t   testing.TB
	log *eventlog.Log
	tr  *eventlog.Tracker
	at  time.Duration
}

func newFixture(t testing.TB) *fixture {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	return &fixture{t: t, log: eventlog.NewLogAt(start, 0), tr: eventlog.NewTracker(eventlog.TrackerOptions{})}
}

// append logs ev at the fixture's clock, folding it into the tracker first
// as eventlog.Record does. An exit is followed by the end of the
// conversation, applied but not logged: its findings are the fixture's.
func (f *fixture) append(ev eventlog.Event) uint64 {
	ev.At = f.at
	_, ev.Seq = f.log.Bounds()
	f.tr.Apply(&ev)
	if ev.Type == eventlog.EventProcess && ev.Process.State == eventlog.StateExited {
		defer f.tr.Apply(&eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{Exited: true}, At: ev.At})
	}
	return f.log.Append(ev)
}

// step advances the fixture clock.
func (f *fixture) step(d time.Duration) *fixture { f.at += d; return f }

// frames appends every frame of b (framed exactly as the session would)
// in direction dir, adding extra findings to the first.
func (f *fixture) frames(dir wire.Dir, b string, extra ...wire.Finding) []uint64 {
	var seqs []uint64
	for i, fr := range wire.FramesOf([]byte(b), wire.Options{}) {
		if i == 0 {
			fr.Findings = append(fr.Findings, extra...)
		}
		f.step(time.Millisecond)
		seqs = append(seqs, f.append(eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: fr}))
	}
	return seqs
}

func (f *fixture) c2s(b string, extra ...wire.Finding) uint64 {
	return f.frames(wire.ClientToServer, b, extra...)[0]
}

func (f *fixture) s2c(b string, extra ...wire.Finding) uint64 {
	return f.frames(wire.ServerToClient, b, extra...)[0]
}

func (f *fixture) stderr(line string) {
	f.step(time.Millisecond)
	f.append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte(line), Term: wire.TermLF, Length: int64(len(line))}})
}

func (f *fixture) process(p eventlog.ProcessEvent) {
	f.step(time.Millisecond)
	f.append(eventlog.Event{Type: eventlog.EventProcess, Process: &p})
}

func (f *fixture) finding(code, msg string, frameSeq uint64) {
	f.step(time.Millisecond)
	f.append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{Finding: wire.NewFinding(code, msg), FrameSeq: frameSeq}})
}

func (f *fixture) note(s string) {
	f.step(time.Millisecond)
	f.append(eventlog.Event{Type: eventlog.EventNote, Note: s})
}

// misbehaving builds a legacy-era session with every kind of finding in
// the registry: framing findings from the real framer, protocol and process
// findings attached by hand where the framer cannot produce them.
//
// With running set, the process is left running with requests in flight
// (no shutdown, no exit).
func misbehaving(t testing.TB, running bool) *fixture {
	f := newFixture(t)
	nf := wire.NewFinding
	f.process(eventlog.ProcessEvent{State: eventlog.StateStarting, Pid: 4242, Detail: "started ./server.py --stdio"})
	f.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 4242})
	f.note("era probe: no answer to server/discover; using the legacy era")
	f.step(20 * time.Millisecond)
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"linesman","version":"0.1.0"}}}` + "\n")
	f.stderr("INFO starting weather server")
	f.s2c("Starting server on stdio...\n")
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"weather","version":"1.2.0"}}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	f.s2c("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"result\": {\"tools\": [{\"name\": \"forecast\", \"inputSchema\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}, \"days\": {\"type\": \"integer\"}}, \"required\": [\"city\"]}}]}\n}\n")
	f.s2c("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"crlf\"}}\r\n")
	f.stderr("\x1b[2J\x1b[Hgotcha \x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 \x1b[99999999999;99999999999H")
	f.finding("stderr-escape-sequences", "stderr line 2 holds escape sequences (clear screen, OSC 0, OSC 52)", 0)
	f.s2c("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"bad \xff byte \x01 ctl\"}}\n")
	f.s2c("\n")
	f.s2c(`[{"jsonrpc":"2.0","method":"notifications/message"}]` + "\n")
	f.s2c(`{"jsonrpc":"2.0","jsonrpc":"2.0","method":"notifications/message"}` + "\n")
	f.s2c(`{"jsonrpc":"1.0","method":"x"}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo"},"_meta":{"progressToken":"p3"}}}` + "\n")
	// The tracker raises the protocol findings it can (progress, reused
	// and mismatched ids, unknown and duplicate answers) from the frames.
	f.s2c(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p3","progress":2,"total":1}}`+"\n",
		nf("progress-not-increasing", "progress went from 5 to 2 for token \"p3\""))
	f.s2c(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"zz","progress":1}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Bergen"}}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":"3","result":{"content":[]}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":99,"result":{}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":1.5,"result":{}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n")
	f.s2c(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[]}}`+"\n", nf("server-request-in-modern-era", "sampling/createMessage sent by the server"))
	f.s2c(`{"jsonrpc":"2.0","id":4,"result":{}}`+"\n", nf("late-response", "id 4 answered after it was cancelled"),
		nf("missing-result-type", "no resultType"), nf("unknown-result-type", `resultType "partial"`),
		nf("message-before-initialized", "sent before notifications/initialized"))
	slow := f.c2s(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n")
	f.stderr("Traceback (most recent call last):")
	f.stderr("  File \"server.py\", line 12, in slow  # 日本語 wide")
	f.stderr("ZeroDivisionError: division by zero")
	f.finding("request-timeout", "no answer to id 5 within 60s", slow)
	f.finding("unflushed-output", "the process ended with a partial line on stdout", slow)
	if running {
		return f
	}
	f.s2c(`{"jsonrpc":"2.0","id":6,"result":{}}`) // no terminator: unterminated-frame
	f.process(eventlog.ProcessEvent{State: eventlog.StateExiting, Step: eventlog.StepStdinClose, Pid: 4242})
	f.process(eventlog.ProcessEvent{State: eventlog.StateExiting, Step: eventlog.StepSIGTERM, Pid: 4242})
	f.process(eventlog.ProcessEvent{State: eventlog.StateExited, Step: eventlog.StepSIGTERM, Pid: 4242, ExitCode: -1, Signal: "SIGTERM", ShutdownTook: 2100 * time.Millisecond})
	// Findings the fixture cannot produce from bytes alone, attached as logged findings.
	seen := map[string]bool{}
	for _, ev := range f.log.Range(0, 1<<62) {
		if ev.Frame != nil {
			for _, x := range ev.Frame.Findings {
				seen[x.Code] = true
			}
		}
		if ev.Finding != nil {
			seen[ev.Finding.Code] = true
		}
	}
	for _, in := range wire.Codes() {
		if !seen[in.Code] {
			f.finding(in.Code, "(added by the fixture)", 0)
		}
	}
	return f
}

// model returns a model over the fixture's log at the given size, with the
// clock fixed 10 s after the last event.
func (f *fixture) model(w, h int, live Server) *Model {
	now := f.at + 10*time.Second
	m := NewModel(Options{Log: f.log, Tracker: f.tr, Session: live, Theme: "dark", Title: "fixture", Now: func() time.Duration { return now }})
	f.t.Cleanup(m.Close)
	m.Update(tea_WindowSize(w, h))
	return m
}
