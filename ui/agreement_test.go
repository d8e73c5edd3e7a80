package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/session/report"
	"linesman/wire"
)

// oddLog is a session log with every odd pairing case, built as a live
// session builds its log: frames folded into the tracker under the log's
// lock, era decisions and restarts as typed events.
type oddLog struct {
	t   *testing.T
	log *eventlog.Log
	tr  *eventlog.Tracker
	at  time.Duration
	// want maps every frame's Seq to the Seq of the frame it pairs with
	// (0: none), worked out by hand from the cases, not by the tracker.
	want    map[uint64]uint64
	methods map[uint64]string // request Seq -> method
	frames  []uint64
}

func (o *oddLog) event(ev eventlog.Event) uint64 {
	o.at += time.Millisecond
	return o.log.AppendWith(func(seq uint64, _ time.Duration) eventlog.Event {
		ev.At = o.at
		switch ev.Type {
		case eventlog.EventFrame:
			o.tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: ev.Dir, Frame: ev.Frame, At: ev.At})
		case eventlog.EventEra, eventlog.EventRestart:
			o.tr.Apply(&ev)
		}
		return ev
	})
}

func (o *oddLog) frame(dir wire.Dir, line string) uint64 {
	fr := wire.FramesOf([]byte(line+"\n"), wire.Options{})
	if len(fr) != 1 {
		o.t.Fatalf("%q is %d frames", line, len(fr))
	}
	seq := o.event(eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: fr[0]})
	o.frames = append(o.frames, seq)
	o.want[seq] = 0
	if fr[0].Msg.Kind == wire.KindRequest {
		o.methods[seq] = fr[0].Msg.Method
	}
	return seq
}

func (o *oddLog) c2s(line string) uint64 { return o.frame(wire.ClientToServer, line) }
func (o *oddLog) s2c(line string) uint64 { return o.frame(wire.ServerToClient, line) }

func (o *oddLog) pair(req, resp uint64) { o.want[req], o.want[resp] = resp, req }

func (o *oddLog) process(p eventlog.ProcessEvent) {
	o.event(eventlog.Event{Type: eventlog.EventProcess, Process: &p})
}

// newOddLog builds the log: a legacy handshake whose result says a version
// other than the one asked for, then
//   - "3" answering 3 (id-type-mismatch: paired);
//   - two requests with id 5 and one answer (the first is answered);
//   - an answer before its request (paired with nothing);
//   - an answer to an id never used;
//   - a line that is not JSON sent on purpose, and the -32700 error with id
//     null that answers it (legal: no finding, no request);
//   - a restart between a request and its answer (the answer belongs to no
//     request of the new process).
func newOddLog(t *testing.T) (*oddLog, map[string]uint64) {
	o := &oddLog{t: t, log: eventlog.NewLogAt(time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), 0),
		tr: eventlog.NewTracker(eventlog.TrackerOptions{}), want: map[uint64]uint64{}, methods: map[uint64]string{}}
	s := map[string]uint64{}
	o.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7})
	o.event(eventlog.Event{Type: eventlog.EventEra, Era: &eventlog.EraDecision{Era: eventlog.EraLegacy, Version: "2025-11-25"},
		Note: "era legacy, as asked"})
	init := o.c2s(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	res := o.s2c(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"odd","version":"9"},"instructions":"be odd"}}`)
	o.pair(init, res)
	o.c2s(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	s["list"] = o.c2s(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	s["list-answer"] = o.s2c(`{"jsonrpc":"2.0","id":"3","result":{"tools":[]}}`)
	o.pair(s["list"], s["list-answer"])

	s["first5"] = o.c2s(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a"}}`)
	s["second5"] = o.c2s(`{"jsonrpc":"2.0","id":5,"method":"prompts/list"}`)
	s["answer5"] = o.s2c(`{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`)
	o.pair(s["first5"], s["answer5"])

	s["early"] = o.s2c(`{"jsonrpc":"2.0","id":7,"result":{}}`)
	s["late7"] = o.c2s(`{"jsonrpc":"2.0","id":7,"method":"resources/list"}`)
	s["unknown"] = o.s2c(`{"jsonrpc":"2.0","id":42,"result":{}}`)

	s["garbage"] = o.c2s(`this is not json`)
	s["parse-error"] = o.s2c(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)

	s["before-restart"] = o.c2s(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"slow"}}`)
	o.process(eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 7, ExitCode: -1, Signal: "SIGTERM", Step: eventlog.StepSIGTERM})
	o.event(eventlog.Event{Type: eventlog.EventRestart, Restart: &eventlog.RestartEvent{N: 1, Command: []string{"srv"}}, Note: "restart #1: starting srv again"})
	o.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 8})
	s["after-restart"] = o.s2c(`{"jsonrpc":"2.0","id":8,"result":{}}`)
	return o, s
}

// reportPairs reads the pairing a findings report gives: each response's
// inReplyTo and each request's responseSeq.
func reportPairs(t *testing.T, js []byte) (map[uint64]uint64, map[string]any) {
	t.Helper()
	var r struct {
		Frames []struct {
			Seq       uint64 `json:"seq"`
			InReplyTo *struct {
				Seq    uint64 `json:"seq"`
				Method string `json:"method"`
			} `json:"inReplyTo"`
		} `json:"frames"`
		Requests []struct {
			Seq         uint64  `json:"seq"`
			ResponseSeq *uint64 `json:"responseSeq"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	got := map[uint64]uint64{}
	for _, f := range r.Frames {
		got[f.Seq] = 0
		if f.InReplyTo != nil {
			got[f.Seq] = f.InReplyTo.Seq
		}
	}
	for _, q := range r.Requests {
		if q.ResponseSeq != nil {
			got[q.Seq] = *q.ResponseSeq
		}
	}
	var all map[string]any
	json.Unmarshal(js, &all)
	return got, all
}

var pairRe = regexp.MustCompile(`(?:response|request) #(\d+)`)

// uiPair reads the pairing the Pair tab shows for frame seq, and the frame
// list's marker ("result tools/list") for it.
func uiPair(m *Model, seq uint64) (other uint64, pairTab, marker string) {
	m.frames.selectSeq(seq)
	m.detail.setTab(tabPair)
	m.refresh()
	pairTab = ansi.Strip(m.detail.Render(false))
	if mm := pairRe.FindStringSubmatch(pairTab); mm != nil {
		fmt.Sscan(mm[1], &other)
	}
	ev, _ := m.c.ix.log.Get(seq)
	marker = m.frames.what(&ev)
	return other, pairTab, marker
}

// TestOnePairingEverywhere: on a log with every odd pairing case, the UI's
// Pair tab, the frame list's reply marker, the JSON report and `export
// --format findings` of the capture give the same pairing (the one worked
// out by hand above) and the same handshake facts.
func TestOnePairingEverywhere(t *testing.T) {
	o, s := newOddLog(t)

	// The JSON report, as check --json builds it.
	var jr bytes.Buffer
	rep := report.FromLog(o.log, o.tr, report.Meta{Mode: "check", Command: []string{"srv"}})
	if err := rep.WriteJSON(&jr); err != nil {
		t.Fatal(err)
	}
	repPairs, repAll := reportPairs(t, jr.Bytes())

	// export --format findings of the capture of the same log.
	path := filepath.Join(t.TempDir(), "odd.capture")
	rec, err := capture.Create(path, o.log, capture.Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var ex bytes.Buffer
	if err := capture.Export(&ex, "findings", c.Log, c.Tracker, c.Header); err != nil {
		t.Fatal(err)
	}
	expPairs, expAll := reportPairs(t, ex.Bytes())

	// The UI over the live log and its tracker.
	m := NewModel(Options{Log: o.log, Tracker: o.tr})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})

	for _, seq := range o.frames {
		want := o.want[seq]
		ev, _ := o.log.Get(seq)
		if got := repPairs[seq]; got != want {
			t.Errorf("frame #%d: the JSON report pairs it with #%d, want #%d", seq, got, want)
		}
		if got := expPairs[seq]; got != want {
			t.Errorf("frame #%d: export --format findings pairs it with #%d, want #%d", seq, got, want)
		}
		other, tab, marker := uiPair(m, seq)
		if other != want {
			t.Errorf("frame #%d: the Pair tab pairs it with #%d, want #%d:\n%s", seq, other, want, tab)
		}
		if ev.Frame.Msg.Kind == wire.KindResult {
			wantMarker := "result"
			if want != 0 {
				wantMarker += " " + o.methods[want]
			}
			if marker != wantMarker {
				t.Errorf("frame #%d: the frame list says %q, want %q", seq, marker, wantMarker)
			}
		}
	}

	// The odd cases, by name, as the findings say them.
	for name, code := range map[string]string{"list-answer": "id-type-mismatch", "second5": "reused-id-in-flight",
		"early": "unknown-response-id", "unknown": "unknown-response-id", "after-restart": "unknown-response-id"} {
		ev, _ := o.log.Get(s[name])
		if !hasCode(ev.Frame.Findings, code) {
			t.Errorf("%s (#%d): findings %v lack %s", name, s[name], ev.Frame.Findings, code)
		}
	}

	// The -32700 after a raw invalid send: no finding (it is legal), and the
	// Pair tab says so instead of pointing at the findings.
	_, tab, _ := uiPair(m, s["parse-error"])
	if strings.Contains(tab, "see the findings") || !strings.Contains(tab, fmt.Sprintf("most likely #%d", s["garbage"])) {
		t.Errorf("Pair tab of the -32700 answer:\n%s", tab)
	}
	if ev, _ := o.log.Get(s["parse-error"]); len(ev.Frame.Findings) != 0 {
		t.Errorf("the -32700 answer has findings %v", ev.Frame.Findings)
	}

	// The same handshake facts everywhere.
	status := ansi.Strip(m.statusBar())
	for _, want := range []string{"legacy 2025-06-18", "odd 9"} {
		if !strings.Contains(status, want) {
			t.Errorf("status bar %q lacks %q", status, want)
		}
	}
	for name, all := range map[string]map[string]any{"report": repAll, "export": expAll} {
		info, _ := all["serverInfo"].(map[string]any)
		if all["era"] != "legacy" || all["protocolVersion"] != "2025-06-18" || info["name"] != "odd" {
			t.Errorf("%s: era %v, protocolVersion %v, serverInfo %v", name, all["era"], all["protocolVersion"], all["serverInfo"])
		}
	}
	for name, tr := range map[string]*eventlog.Tracker{"live": o.tr, "capture": c.Tracker} {
		hs := tr.Handshake()
		if string(hs.ServerCapabilities) != `{"tools":{}}` || string(hs.ClientCapabilities) != `{"roots":{}}` || hs.Instructions != "be odd" {
			t.Errorf("%s handshake: %+v", name, hs)
		}
	}
}

func hasCode(fs []wire.Finding, code string) bool {
	for _, f := range fs {
		if f.Code == code {
			return true
		}
	}
	return false
}
