package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/session/eventlog"
	"linesman/session/run"
	"linesman/wire"
)

// TestCaptureCommandLine drives view and export through runArgs(): usage
// errors are exit status 2 with a message, a file that is not a capture is
// a runtime failure (1), and each export format writes what it should.
func TestCaptureCommandLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := eventlog.NewLog(0)
	for _, f := range wire.FramesOf([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"), wire.Options{}) {
		log.Append(eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ClientToServer, Frame: f})
	}
	log.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte("\x1b[2Jboom"), Term: wire.TermLF, Length: 8}})
	path := filepath.Join(dir, "c.jsonl")
	rec, err := capture.Create(path, log, capture.Header{Command: []string{"srv", "--stdio"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	notCapture := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notCapture, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		args   []string
		status int
		out    string // in stdout
		errOut string // in stderr
	}{
		{[]string{"view"}, exitUsage, "", "want exactly one capture FILE"},
		{[]string{"view", "a", "b"}, exitUsage, "", "want exactly one capture FILE"},
		{[]string{"view", "--help"}, exitOK, "--follow", ""},
		{[]string{"view", notCapture}, exitFindings, "", "not a linesman capture"},
		{[]string{"view", filepath.Join(dir, "missing")}, exitFindings, "", "no such file"},
		{[]string{"view", path}, exitOK, "c2s  #1 request id=1 ping", ""},
		{[]string{"export"}, exitUsage, "", "want exactly one capture FILE"},
		{[]string{"export", path, "--format", "pdf"}, exitUsage, "", `--format "pdf"`},
		{[]string{"export", "--help"}, exitOK, "replay", ""},
		{[]string{"export", notCapture, "--format", "replay"}, exitFindings, "", "not a linesman capture"},
		{[]string{"export", path, "--format", "replay"}, exitOK, "} | srv --stdio\n", ""},
		{[]string{"export", "--format", "replay", path}, exitOK, "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\\n'", ""},
		{[]string{"export", path, "--format", "transcript"}, exitOK, "err  ␛[2Jboom", ""},
		{[]string{"export", path, "--format", "findings"}, exitOK, `"command": [`, ""},
	} {
		var stdout, stderr bytes.Buffer
		status := runArgs(tc.args, strings.NewReader(""), &stdout, &stderr)
		if status != tc.status || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.errOut) {
			t.Errorf("linesman %q: status %d, stdout %q, stderr %q; want %d, %q, %q",
				tc.args, status, stdout.String(), stderr.String(), tc.status, tc.out, tc.errOut)
		}
		if strings.ContainsRune(stdout.String(), 0x1b) {
			t.Errorf("linesman %q wrote a raw ESC: %q", tc.args, stdout.String())
		}
	}
}

// TestCaptureSurvivesSIGKILL runs the real binary, `linesman send --capture
// F` against a server flooding frames, kills linesman with SIGKILL in the
// middle of the flood, and opens F: every record before the torn one (if
// the kill cut one) is there, in order and byte for byte; the torn one is
// reported and skipped; and the server did not outlive linesman.
func TestCaptureSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	for round := range 2 {
		path := filepath.Join(t.TempDir(), "killed.jsonl")
		args := append([]string{"send", "--raw", "--timeout", "10m", "--capture", path}, fakeServerArgs("capture-flood")...)
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood"}}` + "\n")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the capture grow well into the flood (a guard, not a timing
		// assertion: the deadline only stops a hung test).
		deadline := time.Now().Add(time.Minute)
		for {
			if fi, err := os.Stat(path); err == nil && fi.Size() > int64(4+round*8)<<20 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the capture did not grow past a few MiB in a minute")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("linesman ended with %v, not by SIGKILL", err)
		}

		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := capture.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		complete := strings.Count(string(raw), "\n") - 1 // less the header
		if int(c.Records) != complete || c.Log.Len() != complete {
			t.Fatalf("%d records read back, %d events; the file has %d complete records", c.Records, c.Log.Len(), complete)
		}
		if torn := len(raw) - (strings.LastIndexByte(string(raw), '\n') + 1); c.Torn != torn {
			t.Errorf("torn %d, want %d", c.Torn, torn)
		}
		if fmt.Sprint(c.Header.Command) != fmt.Sprint([]string{testBinary, "-test.run=^$"}) {
			t.Errorf("header command %q", c.Header.Command)
		}

		// Every server frame, in order, exactly as the server wrote it.
		next, pid := 1, 0
		for _, ev := range c.Log.Range(1, uint64(complete)+1) {
			switch {
			case ev.Type == eventlog.EventProcess && ev.Process.Pid != 0:
				pid = ev.Process.Pid
			case ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient:
				if got := string(ev.Frame.Raw()); got != floodFrame(next) {
					t.Fatalf("server frame %d (seq %d): %.80q, want %.80q", next, ev.Seq, got, floodFrame(next))
				}
				next++
			}
		}
		if next < 100 {
			t.Fatalf("only %d server frames in the capture", next-1)
		}
		t.Logf("round %d: %d records intact (%d server frames), torn last record: %d bytes", round, complete, next-1, c.Torn)

		// The server must not outlive linesman (parent-death signal).
		if pid == 0 {
			t.Fatal("no process event with the server's pid")
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if gone(pid) {
				break
			}
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the server (pid %d) outlived linesman by 30 s", pid)
			}
		}
	}
}

// TestCaptureRoundTripLiveSession records a real session (a child process
// over real pipes, through --capture's startCapture) with invalid UTF-8,
// CRLF, multi-line frames, stderr escape sequences and a 20 MiB frame, then
// opens the capture: the event log read back is the live one — types,
// order, Seqs, times, directions, raw bytes, classification and findings.
func TestCaptureRoundTripLiveSession(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "live.jsonl")
	opts := run.Options{Era: "legacy", Session: session.Config{
		Command: []string{testBinary, "-test.run=^$"}, Env: []string{"LINESMAN_FAKE_SERVER=capture-roundtrip"},
		Era: eventlog.EraLegacy, Timeout: 30 * time.Second, MaxFrame: 32 << 20,
		StdinCloseWait: 5 * time.Second, SIGTERMWait: 2 * time.Second, Headless: true, NoHandshake: true,
	}}
	s, err := session.Start(opts.Session)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := capture.Create(path, s.Log(), run.Header(&opts))
	if err != nil {
		s.Kill()
		<-s.Done()
		t.Fatal(err)
	}
	sent := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"s\":\"\xff\"}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}\r\n" +
		"{\n\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/initialized\"\n}\n"
	if err := s.Send([]byte(sent)); err != nil {
		t.Fatal(err)
	}
	// Wait for the big frame, then shut the server down politely.
	sig, cancel := s.Log().Subscribe()
	deadline := time.After(2 * time.Minute)
	for from := uint64(1); ; {
		_, next := s.Log().Bounds()
		big := false
		for _, ev := range s.Log().Range(from, next) {
			big = big || (ev.Type == eventlog.EventFrame && ev.Frame.Size() > roundTripBig)
		}
		from = next
		if big {
			break
		}
		select {
		case <-sig:
		case <-deadline:
			t.Fatal("no 20 MiB frame after two minutes")
		}
	}
	cancel()
	s.Shutdown()
	<-s.Done()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	live := s.Log()
	if c.Torn != 0 || c.Dropped != 0 {
		t.Errorf("torn %d, dropped %d", c.Torn, c.Dropped)
	}
	if !c.Log.Start().Equal(live.Start()) {
		t.Errorf("start %v, want %v", c.Log.Start(), live.Start())
	}
	_, ln := live.Bounds()
	_, cn := c.Log.Bounds()
	if ln != cn {
		t.Fatalf("%d events read back, want %d", cn-1, ln-1)
	}
	var raw [3][]byte // by direction, then stderr
	kinds := map[string]bool{}
	for seq := uint64(1); seq < ln; seq++ {
		w, _ := live.Get(seq)
		g, _ := c.Log.Get(seq)
		if err := sameEvent(&w, &g); err != nil {
			t.Fatalf("event %d (%v): %v", seq, w.Type, err)
		}
		switch w.Type {
		case eventlog.EventFrame:
			raw[w.Dir] = append(raw[w.Dir], g.Frame.Raw()...)
			for _, f := range g.Frame.Findings {
				kinds[f.Code] = true
			}
		case eventlog.EventStderr:
			raw[0] = append(raw[0], g.Stderr.Content...)
			raw[0] = append(raw[0], g.Stderr.Term.Bytes()...)
		case eventlog.EventFinding:
			kinds[g.Finding.Code] = true
		}
	}
	if string(raw[wire.ClientToServer]) != sent {
		t.Errorf("client bytes: %q, want %q", raw[wire.ClientToServer], sent)
	}
	if n := len(raw[wire.ServerToClient]); n < roundTripBig || !bytes.HasSuffix(raw[wire.ServerToClient], []byte("cdef\"}}\n")) {
		t.Errorf("server bytes: %d, ending %q", n, raw[wire.ServerToClient][max(0, n-20):])
	}
	if want := "\x1b[1;31mERROR\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \xc2\x9b\xff\r\nbye, no newline"; !strings.Contains(string(raw[0]), want) {
		t.Errorf("stderr bytes: %q", raw[0])
	}
	for _, code := range []string{"invalid-utf8", "crlf-line-ending", "multi-line-frame", "stderr-escape-sequences"} {
		if !kinds[code] {
			t.Errorf("no %s finding in the session; the test lost its point: %v", code, kinds)
		}
	}
}

// sameEvent compares two log events field by field, payloads included.
func sameEvent(w, g *eventlog.Event) error {
	if w.Seq != g.Seq || w.Type != g.Type || w.At != g.At || !w.Wall.Equal(g.Wall) || w.Dir != g.Dir || w.Note != g.Note {
		return fmt.Errorf("got %d %v at %v %v %v %q, want %d %v at %v %v %v %q",
			g.Seq, g.Type, g.At, g.Wall, g.Dir, g.Note, w.Seq, w.Type, w.At, w.Wall, w.Dir, w.Note)
	}
	sameLine := func(a, b *wire.Line) error {
		if !bytes.Equal(a.Content, b.Content) || a.Term != b.Term || a.Length != b.Length || a.Truncated != b.Truncated {
			return fmt.Errorf("line %.60q %v %d %v, want %.60q %v %d %v", b.Content, b.Term, b.Length, b.Truncated, a.Content, a.Term, a.Length, a.Truncated)
		}
		return nil
	}
	switch w.Type {
	case eventlog.EventFrame:
		if len(w.Frame.Lines) != len(g.Frame.Lines) {
			return fmt.Errorf("%d lines, want %d", len(g.Frame.Lines), len(w.Frame.Lines))
		}
		for i := range w.Frame.Lines {
			if err := sameLine(&w.Frame.Lines[i], &g.Frame.Lines[i]); err != nil {
				return err
			}
		}
		if !w.Frame.Msg.Equal(&g.Frame.Msg) || fmt.Sprint(w.Frame.Findings) != fmt.Sprint(g.Frame.Findings) {
			return fmt.Errorf("frame %+v %v, want %+v %v", g.Frame.Msg, g.Frame.Findings, w.Frame.Msg, w.Frame.Findings)
		}
	case eventlog.EventStderr:
		return sameLine(w.Stderr, g.Stderr)
	case eventlog.EventProcess:
		if *w.Process != *g.Process {
			return fmt.Errorf("process %+v, want %+v", *g.Process, *w.Process)
		}
	case eventlog.EventFinding:
		if *w.Finding != *g.Finding {
			return fmt.Errorf("finding %+v, want %+v", *g.Finding, *w.Finding)
		}
	}
	return nil
}

// TestCaptureCheckDemo records `linesman check --json` against the
// built-in demo server (era probe, handshake, listing, shutdown ladder) and
// exports the capture's findings: the same report as the live one.
func TestCaptureCheckDemo(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	path := filepath.Join(t.TempDir(), "demo.jsonl")
	live, err := exec.Command(bin, "check", "--json", "--capture", path, "--", bin, "demo-server").Output()
	if err != nil {
		t.Fatalf("check: %v\n%s", err, live)
	}
	exported, err := exec.Command(bin, "export", path, "--format", "findings").Output()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	var a, b map[string]any
	if err := json.Unmarshal(live, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(exported, &b); err != nil {
		t.Fatal(err)
	}
	delete(a, "mode")
	delete(b, "mode")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the export differs from the live report:\nlive:   %s\nexport: %s", live, exported)
	}
	if a["era"] != "modern" || len(a["frames"].([]any)) < 4 {
		t.Errorf("the demo session is not what the test expects: era %v, %d frames", a["era"], len(a["frames"].([]any)))
	}
}

// TestCaptureDoesNotClobberOtherFiles: --capture over a file that is not a
// capture is refused before any server starts (it used to be truncated);
// an older capture is overwritten as before.
func TestCaptureDoesNotClobberOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	precious := filepath.Join(dir, "server.py")
	if err := os.WriteFile(precious, []byte("print('my server')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", precious}, fakeServerArgs("headless-good")...)...)
	if b, _ := os.ReadFile(precious); status != exitUsage || string(b) != "print('my server')\n" || !strings.Contains(string(errOut), "not a linesman capture") {
		t.Errorf("status %d, file now %q, stderr %q", status, b, errOut)
	}
	old := filepath.Join(dir, "old.jsonl")
	for i := range 2 { // the second run overwrites the first capture
		if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", old}, fakeServerArgs("headless-good")...)...); status != 0 {
			t.Fatalf("run %d over a capture: status %d, %s", i, status, errOut)
		}
	}
}
