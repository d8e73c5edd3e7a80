package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"linesman/session/eventlog"
	"linesman/wire"
)

// handFrame builds a one-line frame by hand, the way the framer would.
func handFrame(text string, msg wire.Message, findings ...wire.Finding) *wire.Frame {
	return &wire.Frame{
		Lines:    []wire.Line{{Content: []byte(text), Term: wire.TermLF, Length: int64(len(text))}},
		Msg:      msg,
		Findings: findings,
	}
}

func appendFrame(l *eventlog.Log, dir wire.Dir, f *wire.Frame) uint64 {
	return l.Append(eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f})
}

// sampleLog is a small session: a legacy handshake, a stray print, an answer,
// a stderr line with an escape sequence, and a server that exited with code 3.
func sampleLog(t *testing.T) (*eventlog.Log, map[string]uint64) {
	t.Helper()
	l := eventlog.NewLog(0)
	seqs := map[string]uint64{}
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateStarting, Pid: 4242, Detail: "started"}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 4242}})
	seqs["init"] = appendFrame(l, wire.ClientToServer, handFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		wire.Message{Kind: wire.KindRequest, ID: wire.IntID(1), Method: "initialize"}))
	seqs["stray"] = appendFrame(l, wire.ServerToClient, handFrame("hello \x1b[2J world",
		wire.Message{Kind: wire.KindNonJSON},
		wire.Finding{Code: "non-json-line", Severity: wire.SeverityError, Message: "a line that is not JSON"},
		wire.Finding{Code: "control-characters", Severity: wire.SeverityWarning, Message: "ESC at byte 6"}))
	seqs["answer"] = appendFrame(l, wire.ServerToClient, handFrame(`{"jsonrpc":"2.0","id":"1","result":{}}`,
		wire.Message{Kind: wire.KindResult, ID: wire.StringID("1")},
		wire.Finding{Code: "id-type-mismatch", Severity: wire.SeverityError, Message: `"1" answers 1`}))
	l.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte("boom \x1b[31mred\x1b[0m"), Term: wire.TermLF}})
	seqs["late"] = l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
		Finding:  wire.Finding{Code: "unflushed-output", Severity: wire.SeverityNote, Message: "arrived only at exit"},
		FrameSeq: seqs["stray"], Dir: wire.ServerToClient}})
	l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
		Finding: wire.Finding{Code: "exit-at-start", Severity: wire.SeverityError, Message: "exited 3 after 12 ms"}}})
	l.Append(eventlog.Event{Type: eventlog.EventNote, Note: "era: legacy (no answer to server/discover)"})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 4242, ExitCode: 3}})
	return l, seqs
}

// handshaken is a tracker whose projection holds a legacy handshake with
// the given version and serverInfo: an era decision, then an initialize
// request and its result folded in (with Seqs far from the sample log's),
// and the process events of l (the projection tells the process block).
func handshaken(t testing.TB, l *eventlog.Log, version, serverInfo string) *eventlog.Tracker {
	t.Helper()
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	tr.Apply(&eventlog.Event{Type: eventlog.EventEra, Era: &eventlog.EraDecision{Era: eventlog.EraLegacy, Version: version}})
	req := wire.FramesOf([]byte(`{"jsonrpc":"2.0","id":"hs","method":"initialize","params":{}}`+"\n"), wire.Options{})[0]
	res := wire.FramesOf([]byte(`{"jsonrpc":"2.0","id":"hs","result":{"protocolVersion":"`+version+`","serverInfo":`+serverInfo+`}}`+"\n"), wire.Options{})[0]
	tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: 1000, Dir: wire.ClientToServer, Frame: req, At: time.Millisecond})
	tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: 1001, Dir: wire.ServerToClient, Frame: res, At: 2 * time.Millisecond})
	if hs := tr.Handshake(); hs.Era != eventlog.EraLegacy || hs.ProtocolVersion != version || len(hs.ServerInfo) == 0 {
		t.Fatalf("handshake not folded: %+v", hs)
	}
	first, next := l.Bounds()
	for _, ev := range l.Range(first, next) {
		if ev.Type == eventlog.EventProcess {
			tr.Apply(&ev)
		}
	}
	return tr
}

func decodeReport(t *testing.T, r Report) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, buf.Bytes())
	}
	return m
}

// TestReportSchema checks every field the issue promises, by its JSON name,
// against a log filled by hand.
func TestReportSchema(t *testing.T) {
	l, seqs := sampleLog(t)
	r := FromLog(l, handshaken(t, l, "2025-06-18", `{"name":"srv","version":"1.2"}`), Meta{
		Mode:    "check",
		Command: []string{"python3", "server.py"},
	})
	m := decodeReport(t, r)

	for _, k := range []string{"linesman", "command", "era", "protocolVersion", "serverInfo", "process",
		"stderr", "frames", "requests", "findings", "summary"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if m["linesman"] != eventlog.Version || m["era"] != "legacy" || m["protocolVersion"] != "2025-06-18" {
		t.Errorf("header: linesman %v era %v protocolVersion %v", m["linesman"], m["era"], m["protocolVersion"])
	}
	if got := m["serverInfo"].(map[string]any)["name"]; got != "srv" {
		t.Errorf("serverInfo.name = %v", got)
	}
	if cmd := m["command"].([]any); len(cmd) != 2 || cmd[0] != "python3" {
		t.Errorf("command = %v", cmd)
	}

	p := m["process"].(map[string]any)
	for _, k := range []string{"pid", "exitCode", "signal", "endedBy", "shutdownMs"} {
		if _, ok := p[k]; !ok {
			t.Errorf("process lacks %q", k)
		}
	}
	if p["pid"] != 4242.0 || p["exitCode"] != 3.0 || p["signal"] != nil || p["endedBy"] != "exit" {
		t.Errorf("process = %v", p)
	}

	if se := m["stderr"].([]any); len(se) != 1 || se[0] != "boom \x1b[31mred\x1b[0m" {
		t.Errorf("stderr = %q (JSON keeps the exact text; JSON escaping makes it inert)", se)
	}

	frames := m["frames"].([]any)
	if len(frames) != 3 {
		t.Fatalf("frames = %d, want 3", len(frames))
	}
	f0 := frames[0].(map[string]any)
	for _, k := range []string{"seq", "time", "dir", "kind", "id", "method", "bytes", "lines", "findings"} {
		if _, ok := f0[k]; !ok {
			t.Errorf("frame lacks %q", k)
		}
	}
	if f0["seq"] != float64(seqs["init"]) || f0["dir"] != "c2s" || f0["kind"] != "request" ||
		f0["id"] != 1.0 || f0["method"] != "initialize" || f0["lines"] != 1.0 ||
		f0["bytes"] != float64(len(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)+1) {
		t.Errorf("frame 0 = %v", f0)
	}
	if ts, err := time.Parse(time.RFC3339Nano, f0["time"].(string)); err != nil || ts.IsZero() {
		t.Errorf("frame time %v: %v", f0["time"], err)
	}
	f1 := frames[1].(map[string]any)
	if f1["kind"] != "non-json" || f1["id"] != nil || f1["method"] != nil {
		t.Errorf("stray frame = %v", f1)
	}
	// The frame lists its own codes, then later findings that point at it.
	if got := strings.Join(toStrings(f1["findings"]), ","); got != "non-json-line,control-characters,unflushed-output" {
		t.Errorf("stray frame findings = %s", got)
	}
	if f2 := frames[2].(map[string]any); f2["id"] != "1" || f2["kind"] != "result" {
		t.Errorf("answer frame = %v", f2)
	}

	fs := m["findings"].([]any)
	want := []struct {
		code, sev string
		seq       any
		dir       any
	}{
		{"non-json-line", "error", float64(seqs["stray"]), "s2c"},
		{"control-characters", "warning", float64(seqs["stray"]), "s2c"},
		{"id-type-mismatch", "error", float64(seqs["answer"]), "s2c"},
		{"unflushed-output", "note", float64(seqs["stray"]), "s2c"},
		{"exit-at-start", "error", nil, nil},
	}
	if len(fs) != len(want) {
		t.Fatalf("findings = %v", fs)
	}
	for i, w := range want {
		f := fs[i].(map[string]any)
		if f["code"] != w.code || f["severity"] != w.sev || f["seq"] != w.seq || f["dir"] != w.dir || f["message"] == "" {
			t.Errorf("finding %d = %v, want %+v", i, f, w)
		}
		if _, ok := f["seq"]; !ok {
			t.Errorf("finding %d has no seq key (null is required)", i)
		}
	}
	s := m["summary"].(map[string]any)
	if s["errors"] != 3.0 || s["warnings"] != 1.0 || s["notes"] != 1.0 {
		t.Errorf("summary = %v", s)
	}
	if r.ExitStatus() != 1 {
		t.Errorf("ExitStatus = %d, want 1", r.ExitStatus())
	}
	if notes := m["linesmanNotes"].([]any); len(notes) != 1 {
		t.Errorf("notes = %v", notes)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestReportSignalledProcess: a process ended by SIGKILL has exitCode null
// and names the signal and the step.
func TestReportSignalledProcess(t *testing.T) {
	l := eventlog.NewLog(0)
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExiting, Step: eventlog.StepSIGTERM, Pid: 7}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExited, Step: eventlog.StepSIGKILL, Pid: 7,
		ExitCode: -1, Signal: "SIGKILL", ShutdownTook: 4012 * time.Millisecond}})
	r := FromLog(l, nil, Meta{})
	p := decodeReport(t, r)["process"].(map[string]any)
	if p["exitCode"] != nil || p["signal"] != "SIGKILL" || p["endedBy"] != "sigkill" || p["shutdownMs"] != 4012.0 {
		t.Errorf("process = %v", p)
	}
	if r.ExitStatus() != 0 {
		t.Errorf("no findings: ExitStatus = %d", r.ExitStatus())
	}
	var b strings.Builder
	r.WriteText(&b)
	// The ladder's own signal is named once ("on SIGKILL, after SIGKILL" said it twice).
	if !strings.Contains(b.String(), "pid 7, killed by the shutdown ladder's SIGKILL (shutdown took 4012 ms)") {
		t.Errorf("text report:\n%s", b.String())
	}
}

// TestReportEmpty: a log with nothing in it still gives every list as [],
// never null, and a null serverInfo.
func TestReportEmpty(t *testing.T) {
	r := FromLog(eventlog.NewLog(0), nil, Meta{})
	var buf bytes.Buffer
	r.WriteJSON(&buf)
	for _, k := range []string{`"stderr": []`, `"frames": []`, `"requests": []`, `"findings": []`, `"serverInfo": null`, `"command": []`, `"era": "unknown"`, `"exitCode": null`, `"endedBy": null`} {
		if !strings.Contains(buf.String(), k) {
			t.Errorf("empty report lacks %s:\n%s", k, buf.String())
		}
	}
}

// TestReportTextInert: nothing the server wrote reaches the terminal as
// control bytes in the human report.
func TestReportTextInert(t *testing.T) {
	l, seqs := sampleLog(t)
	r := FromLog(l, handshaken(t, l, "2025-06-18", `{"name":"evil\u001b]0;pwned\u0007","version":"1"}`),
		Meta{Mode: "check", Command: []string{"srv", "a b"}})
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i := 0; i < len(out); i++ {
		if c := out[i]; c < 0x20 && c != '\n' {
			t.Fatalf("control byte %#x in the text report:\n%s", c, out)
		}
	}
	for _, want := range []string{
		"srv 'a b'",
		"evil␛]0;pwned␇ 1",
		"legacy, protocol version 2025-06-18",
		"pid 4242, exited with code 3, on its own",
		"errors (3):",
		"warnings (1):",
		"notes (1):",
		"non-json-line",
		"frame #" + itoa(seqs["stray"]) + " s2c `hello ␛[2J world`",
		"exit-at-start",
		"at process: exited 3 after 12 ms",
		"| boom ␛[31mred␛[0m",
		"3 errors, 1 warning, 1 note — exit status 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	// Errors come before warnings, warnings before notes.
	if e, w, n := strings.Index(out, "errors ("), strings.Index(out, "warnings ("), strings.Index(out, "notes ("); !(e < w && w < n) {
		t.Errorf("severity groups out of order:\n%s", out)
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// TestReportFrameText: send's report carries each frame's text, cut at the limit.
func TestReportFrameText(t *testing.T) {
	l := eventlog.NewLog(0)
	appendFrame(l, wire.ServerToClient, handFrame(strings.Repeat("x", 100), wire.Message{Kind: wire.KindNonJSON}))
	appendFrame(l, wire.ServerToClient, handFrame(`{"a":1}`, wire.Message{Kind: wire.KindInvalid}))
	r := FromLog(l, nil, Meta{Mode: "send", FrameText: true, FrameTextLimit: 10})
	if f := r.Frames[0]; f.Text == nil || *f.Text != strings.Repeat("x", 10) || !f.TextTruncated {
		t.Errorf("frame 0 text = %v truncated %v", f.Text, f.TextTruncated)
	}
	if f := r.Frames[1]; f.Text == nil || *f.Text != "{\"a\":1}\n" || f.TextTruncated {
		t.Errorf("frame 1 text = %q", *f.Text)
	}
	if r2 := FromLog(l, nil, Meta{}); r2.Frames[0].Text != nil {
		t.Errorf("text present without FrameText")
	}
}

// TestReportStderrLimit: the JSON keeps the last lines and counts them all.
func TestReportStderrLimit(t *testing.T) {
	l := eventlog.NewLog(0)
	for i := range 50 {
		l.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte(strconv.Itoa(i))}})
	}
	r := FromLog(l, nil, Meta{StderrLimit: 5})
	if r.StderrLines != 50 || len(r.Stderr) != 5 || r.Stderr[0] != "45" || r.Stderr[4] != "49" {
		t.Errorf("stderr = %v (of %d)", r.Stderr, r.StderrLines)
	}
}

// TestReportRestart: after a restart the process block is the new process's.
func TestReportRestart(t *testing.T) {
	l := eventlog.NewLog(0)
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 1}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 1, ExitCode: 1}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateStarting, Pid: 2}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 2}})
	r := FromLog(l, nil, Meta{})
	if p := r.Process; p.Pid != 2 || p.State != "running" || p.ExitCode != nil || p.EndedBy != nil || p.Restarts != 1 {
		t.Errorf("process = %+v", p)
	}
}

// TestReportRegistry: titles and fixes come from the registry, and the human
// report shows the fix's first sentence.
func TestReportRegistry(t *testing.T) {
	l, _ := sampleLog(t)
	r := FromLog(l, nil, Meta{})
	info, ok := wire.Lookup("non-json-line")
	if !ok {
		t.Fatal("non-json-line is not in the registry")
	}
	f := r.Findings[0]
	if f.Code != "non-json-line" || f.Title != info.Title || f.Fix != info.Fix {
		t.Errorf("finding = %+v", f)
	}
	var b strings.Builder
	r.WriteText(&b)
	if want := "fix: " + firstSentence(info.Fix) + "\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, b.String())
	}
}

func TestFirstSentence(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Send logs to stderr, never stdout. Python: print(..., file=sys.stderr).", "Send logs to stderr, never stdout."},
		{"Use json.dumps(msg), e.g. like this. Node: x", "Use json.dumps(msg), e.g. like this."},
		{"One line only", "One line only"},
		{"First line\nsecond line", "First line"},
		// A colon that introduces examples does not end the line.
		{"Exit when reading stdin returns end-of-file: Python, leave the loop.", "Exit when reading stdin returns end-of-file."},
		{"Do not let subprocesses inherit stdout:", "Do not let subprocesses inherit stdout."},
	} {
		if got := firstSentence(c.in); got != c.want {
			t.Errorf("firstSentence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestReportExitingAfterExit: a shutdown step logged just after the exit it
// caused does not make the process look alive again.
func TestReportExitingAfterExit(t *testing.T) {
	l := eventlog.NewLog(0)
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 9}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExited, Step: eventlog.StepSIGKILL, Pid: 9, ExitCode: -1, Signal: "SIGKILL"}})
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateExiting, Step: eventlog.StepSIGKILL, Pid: 9}})
	r := FromLog(l, nil, Meta{})
	if p := r.Process; p.State != "exited" || p.Signal == nil || *p.Signal != "SIGKILL" || p.Restarts != 0 {
		t.Errorf("process = %+v", p)
	}
}

// TestReportRequests: frames logged through a tracker give the requests
// list, with durations, and responses point back at their requests.
func TestReportRequests(t *testing.T) {
	l := eventlog.NewLog(0)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	logFrame := func(dir wire.Dir, text string) uint64 {
		f := wire.FramesOf([]byte(text+"\n"), wire.Options{})[0]
		return l.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
			tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: dir, Frame: f, At: at})
			return eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f}
		})
	}
	req := logFrame(wire.ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	resp := logFrame(wire.ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	logFrame(wire.ClientToServer, `{"jsonrpc":"2.0","id":"a","method":"ping"}`)

	r := FromLog(l, tr, Meta{})
	if len(r.Requests) != 2 {
		t.Fatalf("requests = %+v", r.Requests)
	}
	q := r.Requests[0]
	if q.Dir != "c2s" || string(q.ID) != "1" || q.Method != "tools/list" || q.State != "answered" ||
		q.Ms == nil || *q.Ms < 0 || q.Seq != req || q.ResponseSeq == nil || *q.ResponseSeq != resp {
		t.Errorf("request 0 = %+v", q)
	}
	if q := r.Requests[1]; string(q.ID) != `"a"` || q.State != "in-flight" || q.Ms != nil || q.ResponseSeq != nil {
		t.Errorf("request 1 = %+v", q)
	}
	if rt := r.Frames[1].InReplyTo; rt == nil || rt.Seq != req || rt.Method != "tools/list" {
		t.Errorf("inReplyTo = %+v", rt)
	}
	if r.Frames[0].InReplyTo != nil {
		t.Errorf("a request has inReplyTo")
	}
}

// benchLog is a log of n request/answer pairs logged through a tracker, with
// a stray line every 100 frames.
func benchLog(b *testing.B, n int) (*eventlog.Log, *eventlog.Tracker) {
	l := eventlog.NewLog(0)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	logFrame := func(dir wire.Dir, text string) {
		f := wire.FramesOf([]byte(text+"\n"), wire.Options{})[0]
		l.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
			tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: dir, Frame: f, At: at})
			return eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f}
		})
	}
	for i := range n {
		id := strconv.Itoa(i + 1)
		logFrame(wire.ClientToServer, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"echo"}}`)
		if i%50 == 0 {
			logFrame(wire.ServerToClient, "debug: handling "+id)
		}
		logFrame(wire.ServerToClient, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}
	return l, tr
}

// BenchmarkReportFromLog measures building the report of a 20k-request
// session; BenchmarkReportBaselineRange is the floor it is compared with:
// only copying the same events out of the log.
func BenchmarkReportFromLog(b *testing.B) {
	l, tr := benchLog(b, 10000)
	_, next := l.Bounds()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := FromLog(l, tr, Meta{})
		if len(r.Frames) == 0 {
			b.Fatal("empty report")
		}
	}
	b.ReportMetric(float64(next-1)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkReportBaselineRange(b *testing.B) {
	l, _ := benchLog(b, 10000)
	first, next := l.Bounds()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n := 0
		for from := first; from < next; from += 4096 {
			n += len(l.Range(from, min(from+4096, next)))
		}
		if n == 0 {
			b.Fatal("empty log")
		}
	}
	b.ReportMetric(float64(next-1)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkReportWriteJSON measures encoding that report.
func BenchmarkReportWriteJSON(b *testing.B) {
	l, tr := benchLog(b, 10000)
	r := FromLog(l, tr, Meta{})
	var buf bytes.Buffer
	r.WriteJSON(&buf)
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		buf.Reset()
		r.WriteJSON(&buf)
	}
}

// TestReportInterrupted: an interrupted run says so, and the status the text
// report announces is the one linesman exits with (130), not 1.
func TestReportInterrupted(t *testing.T) {
	l, _ := sampleLog(t)
	r := FromLog(l, nil, Meta{Mode: "check", Error: "interrupted", Interrupted: true})
	if r.ExitStatus() != ExitInterrupted {
		t.Errorf("ExitStatus = %d, want %d", r.ExitStatus(), ExitInterrupted)
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "exit status 130\n") {
		t.Errorf("text report:\n%s", b.String())
	}
	if m := decodeReport(t, r); m["interrupted"] != true {
		t.Errorf("interrupted = %v", m["interrupted"])
	}
}

// TestReportInterruptedBySignal: the status an interrupted report calls
// for (and its text announces) is 128+n of the signal that stopped the run,
// which the JSON names.
func TestReportInterruptedBySignal(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		want int
	}{
		{syscall.SIGHUP, "SIGHUP", 129},
		{syscall.SIGINT, "SIGINT", 130},
		{syscall.SIGTERM, "SIGTERM", 143},
	} {
		l, _ := sampleLog(t)
		r := FromLog(l, nil, Meta{Mode: "send", Error: "interrupted", Interrupted: true, InterruptSignal: tc.sig})
		if got, _ := r.ExitStatusAt("note"); got != tc.want || r.ExitStatus() != tc.want {
			t.Errorf("%s: ExitStatus %d, ExitStatusAt(note) %d; want %d", tc.name, r.ExitStatus(), got, tc.want)
		}
		var b strings.Builder
		r.WriteText(&b)
		if !strings.Contains(b.String(), fmt.Sprintf("exit status %d\n", tc.want)) {
			t.Errorf("%s: text report:\n%s", tc.name, b.String())
		}
		if m := decodeReport(t, r); m["interruptedBy"] != tc.name {
			t.Errorf("%s: interruptedBy = %v", tc.name, m["interruptedBy"])
		}
	}
}

// TestReportStreamFinding: a finding about the server's stdin as a whole
// (no frame) says so in words, and counts read as English.
func TestReportStreamFinding(t *testing.T) {
	l := eventlog.NewLog(0)
	appendFrame(l, wire.ClientToServer, handFrame(`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		wire.Message{Kind: wire.KindNotification, Method: "notifications/initialized"}))
	l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
		Finding: wire.Finding{Code: "stdin-not-read", Severity: wire.SeverityWarning, Message: "blocked"},
		Dir:     wire.ClientToServer}})
	r := FromLog(l, nil, Meta{})
	var b strings.Builder
	r.WriteText(&b)
	for _, want := range []string{"at the server's stdin: blocked", "1 frame sent, 0 received"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestReportTextCutsLongStderrLines: a blob on stderr does not flood the
// terminal through the human report; the JSON report keeps it whole.
func TestReportTextCutsLongStderrLines(t *testing.T) {
	l := eventlog.NewLog(0)
	blob := strings.Repeat("é", 600_000) // 1.2 MB, two bytes a rune
	l.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte(blob), Term: wire.TermLF, Length: int64(len(blob))}})
	r := FromLog(l, nil, Meta{})
	var b strings.Builder
	r.WriteText(&b)
	if b.Len() > 8<<10 || !strings.Contains(b.String(), "…(1200000 bytes in all)") {
		t.Errorf("human report of a 1.2 MB stderr line is %d bytes:\n%.300s", b.Len(), b.String())
	}
	if !utf8.ValidString(b.String()) {
		t.Error("the cut split a character")
	}
	if r.Stderr[0] != blob {
		t.Error("the JSON report must keep the line whole")
	}
}

// TestReportExplainHintOnce: the pointer to linesman explain closes the
// findings once, not after each severity.
func TestReportExplainHintOnce(t *testing.T) {
	l, _ := sampleLog(t) // errors, a warning and a note
	r := FromLog(l, nil, Meta{})
	var b strings.Builder
	r.WriteText(&b)
	if n := strings.Count(b.String(), "linesman explain CODE"); n != 1 {
		t.Errorf("the explain hint appears %d times:\n%s", n, b.String())
	}
}

func TestReportTimeIsTheLayout(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 12, 2, 11, 52, 3, 4005, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", -7*3600)),
		time.Date(10000, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(-5, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Unix(1764676323, 123).In(time.FixedZone("y", 5*3600+1800)),
	} {
		if got, want := reportTime(tm), tm.UTC().Format(reportTimeLayout); got != want {
			t.Errorf("reportTime(%v) = %q, want %q", tm, got, want)
		}
	}
}
