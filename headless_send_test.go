package main

// End-to-end tests of `linesman send`: hand-written frames, with ids filled
// in or sent raw, against real child servers.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func sendJSON(t *testing.T, fake string, input string, flags ...string) (jReport, int) {
	t.Helper()
	args := append(append([]string{"send", "--json"}, flags...), fakeServerArgs(fake)...)
	return decodeRun(t, []byte(input), args...)
}

func (r *jReport) c2s() []jFrame {
	var out []jFrame
	for _, f := range r.Frames {
		if f.Dir == "c2s" {
			out = append(out, f)
		}
	}
	return out
}

func frameMethod(f jFrame) string {
	if f.Method == nil {
		return ""
	}
	return *f.Method
}

// TestHeadlessSendFillsIDs: after the handshake, requests written without an
// id get fresh ones, past every id used (the handshake's and those typed by
// hand); notifications and lines with an id are sent as written.
func TestHeadlessSendFillsIDs(t *testing.T) {
	input := `{"jsonrpc":"2.0","method":"tools/list"}
{"jsonrpc":"2.0","id":7,"method":"ping"}

{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from send"}}}
{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}
`
	r, status := sendJSON(t, "headless-good", input)
	if status != 0 || len(r.Findings) != 0 {
		t.Errorf("status %d, findings %v", status, r.codes())
	}
	var handshakeIDs []string
	byMethod := map[string]jFrame{}
	for _, f := range r.c2s() {
		switch m := frameMethod(f); m {
		case "server/discover", "initialize":
			handshakeIDs = append(handshakeIDs, string(f.ID))
		default:
			byMethod[m] = f
		}
	}
	if len(handshakeIDs) == 0 {
		t.Fatalf("no handshake before the frames")
	}
	list, call, ping, note := byMethod["tools/list"], byMethod["tools/call"], byMethod["ping"], byMethod["notifications/roots/list_changed"]
	var listID, callID int
	if json.Unmarshal(list.ID, &listID) != nil || json.Unmarshal(call.ID, &callID) != nil {
		t.Fatalf("ids not filled in: tools/list %s, tools/call %s", list.ID, call.ID)
	}
	if slices.Contains(handshakeIDs, string(list.ID)) || listID == 7 || callID <= 7 || callID == listID {
		t.Errorf("ids: handshake %v, tools/list %d, ping 7, tools/call %d", handshakeIDs, listID, callID)
	}
	if string(ping.ID) != "7" || string(note.ID) != "null" || note.Kind != "notification" {
		t.Errorf("ping %+v, notification %+v", ping, note)
	}
	// The id goes first; the rest of the line is as written.
	if want := `{"id":` + string(list.ID) + `,"jsonrpc":"2.0","method":"tools/list"}` + "\n"; list.Text == nil || *list.Text != want {
		t.Errorf("tools/list sent as %q, want %q", deref(list.Text), want)
	}
	// Every request was answered before stdin closed; the answers are in the report.
	for _, q := range r.Requests {
		if q.Dir == "c2s" && q.Method != "server/discover" && q.State != "answered" {
			t.Errorf("%s (id %s) %s", q.Method, q.ID, q.State)
		}
	}
	answered := false
	for _, f := range r.Frames {
		if f.Dir == "s2c" && string(f.ID) == string(call.ID) && f.Text != nil && strings.Contains(*f.Text, "hello from send") {
			answered = true
		}
	}
	if !answered {
		t.Errorf("no answer to tools/call with its text")
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestHeadlessSendRaw: --raw sends the input byte for byte, malformed lines
// and CRLF included, with no handshake and no ids filled in.
func TestHeadlessSendRaw(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,` + "\n" +
		"not json at all\r\n" +
		`{"jsonrpc":"2.0","method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	r, status := sendJSON(t, "headless-good", input, "--raw")
	var sent strings.Builder
	for _, f := range r.c2s() {
		if frameMethod(f) == "server/discover" {
			t.Errorf("--raw made a handshake: %+v", f)
		}
		if f.Text == nil {
			t.Fatalf("frame #%d has no text", f.Seq)
		}
		sent.WriteString(*f.Text)
		if frameMethod(f) == "tools/list" && string(f.ID) != "null" {
			t.Errorf("--raw filled in an id: %s", *f.Text)
		}
	}
	if sent.String() != input {
		t.Errorf("sent %q\nwant %q", sent.String(), input)
	}
	var c2sCodes []string
	for _, f := range r.Findings {
		if f.Dir != nil && *f.Dir == "c2s" {
			c2sCodes = append(c2sCodes, f.Code)
		}
	}
	if !slices.Contains(c2sCodes, "non-json-line") || !slices.Contains(c2sCodes, "crlf-line-ending") {
		t.Errorf("findings on the client's frames: %v", c2sCodes)
	}
	if status != 1 {
		t.Errorf("status %d: error findings make it 1 (%v)", status, r.codes())
	}
	if _, state, _ := r.request(t, "initialize"); state != "answered" {
		t.Errorf("initialize %s", state)
	}
	if _, state, _ := r.request(t, "ping"); state != "answered" {
		t.Errorf("ping %s", state)
	}
}

// TestHeadlessSendFile: frames from --file, and the human report shows what
// came back.
func TestHeadlessSendFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "frames.jsonl")
	os.WriteFile(file, []byte(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"escape \u001b[2J here"}}}`+"\n"), 0o600)
	status, out, errOut := runBinary(t, []byte("ignored: stdin is not read with --file\n"),
		append([]string{"send", "--file", file}, fakeServerArgs("headless-good")...)...)
	if status != 0 {
		t.Errorf("status %d, stderr %s", status, errOut)
	}
	for _, want := range []string{"frames:", `,"jsonrpc":"2.0","method":"tools/call"`, `,"jsonrpc":"2.0","result":{"content":[{"text":"escape \u001b[2J here"`, "→ {", "← {", "exit status 0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("ignored: stdin")) {
		t.Errorf("stdin was read despite --file")
	}
}

// TestHeadlessSendTimeout: a request never answered is waited for at most
// --timeout, then reported timed out.
func TestHeadlessSendTimeout(t *testing.T) {
	r, status := sendJSON(t, "headless-no-answer",
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n", "--timeout", "500ms")
	f := r.findings(t, "request-timeout")[0]
	if fr := r.frame(t, f.Seq); frameMethod(fr) != "tools/call" || fr.Dir != "c2s" {
		t.Errorf("request-timeout points at %+v", fr)
	}
	if _, state, _ := r.request(t, "tools/call"); state != "timed-out" {
		t.Errorf("tools/call %s, want timed-out", state)
	}
	if status != 0 {
		t.Errorf("status %d (a timeout is a warning)", status)
	}
}

// TestHeadlessSendServerGone: sending to a server that exits at once ends
// promptly with the exit in the report.
func TestHeadlessSendServerGone(t *testing.T) {
	r, status := sendJSON(t, "headless-exit-at-once", `{"jsonrpc":"2.0","method":"tools/list"}`+"\n")
	if status != 1 {
		t.Errorf("status %d", status)
	}
	r.findings(t, "exit-at-start")
	if p := r.Process; p.ExitCode == nil || *p.ExitCode != 1 {
		t.Errorf("process %+v", p)
	}
	r, status = sendJSON(t, "headless-exit-at-once", `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", "--raw")
	if status != 1 || r.Process.ExitCode == nil {
		t.Errorf("--raw: status %d, process %+v", status, r.Process)
	}
}

// interruptAt runs linesman with args and stdin, waits until the fake
// server touches the file HEADLESS_MARK names (the moment to interrupt),
// sends linesman an interrupt, and returns the report it still prints.
func interruptAt(t *testing.T, stdin string, args ...string) jReport {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "mark")
	args = append([]string{args[0], "-e", "HEADLESS_MARK=" + mark}, args[1:]...)
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(hangGuard)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("linesman ended before the mark: %v\n%s", err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			t.Fatal("the server never reached the mark")
		}
	}
	cmd.Process.Signal(os.Interrupt)
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatal("linesman did not end after the interrupt")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitSignal {
		t.Errorf("exit: %v, want status %d", err, exitSignal)
	}
	var r jReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("no report: %v\n%s", err, out.String())
	}
	return r
}

// TestHeadlessSendInterrupt: ^C while waiting for an answer still shuts the
// server down and prints the report, then exits 130.
func TestHeadlessSendInterrupt(t *testing.T) {
	args := append([]string{"send", "--json", "--timeout", "1m"}, fakeServerArgs("headless-no-answer")...)
	r := interruptAt(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n", args...)
	if r.Error != "interrupted" || r.Process.EndedBy == nil || r.Process.ExitCode == nil || *r.Process.ExitCode != 0 {
		t.Errorf("error %q, process %+v", r.Error, r.Process)
	}
	if _, state, _ := r.request(t, "tools/call"); state == "in-flight" || state == "answered" {
		t.Errorf("tools/call %s after the interrupt", state)
	}
}

// TestHeadlessCheckInterruptLadder: ^C during a long shutdown ladder kills
// the process group at once and still reports.
func TestHeadlessCheckInterruptLadder(t *testing.T) {
	args := append([]string{"check", "--json", "--stdin-wait", "1m", "--sigterm-wait", "1m"}, fakeServerArgs("headless-ignore-sigterm")...)
	r := interruptAt(t, "", args...)
	p := r.Process
	if p.Signal == nil || *p.Signal != "SIGKILL" || p.ExitCode != nil || r.Error != "interrupted" {
		t.Errorf("error %q, process %+v", r.Error, p)
	}
}

// TestHeadlessSendStrayDuringCall: a print while a tool runs lands between
// the tools/call and its answer, and is reported on that frame.
func TestHeadlessSendStrayDuringCall(t *testing.T) {
	r, status := sendJSON(t, "headless-stray-call",
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`+"\n")
	if status != 1 {
		t.Errorf("status %d", status)
	}
	req, state, resp := r.request(t, "tools/call")
	var stray []uint64
	for _, f := range r.findings(t, "non-json-line") {
		stray = append(stray, *f.Seq)
		if fr := r.frame(t, f.Seq); fr.Text == nil || *fr.Text != "DEBUG: handling tools/call\n" {
			t.Errorf("stray frame %+v", fr)
		}
	}
	if state != "answered" || !slices.ContainsFunc(stray, func(s uint64) bool { return req < s && s < resp }) {
		t.Errorf("tools/call #%d %s by #%d; stray prints at %v", req, state, resp, stray)
	}
}
