package main

// End-to-end tests of `linesman send`: hand-written frames, with ids filled
// in or sent raw, against real child servers.

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestHeadlessSendFillsIDs: after the handshake, requests written without an
// id get fresh ones, past every id used (the handshake's and those typed by
// hand); notifications and lines with an id are sent as written.
func TestHeadlessSendFillsIDs(t *testing.T) {
	t.Parallel()
	input := `{"jsonrpc":"2.0","method":"tools/list"}
{"jsonrpc":"2.0","id":7,"method":"ping"}

{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from send"}}}
{"jsonrpc":"2.0","method":"notifications/acme/hello"}
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
	list, call, ping, note := byMethod["tools/list"], byMethod["tools/call"], byMethod["ping"], byMethod["notifications/acme/hello"]
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

// TestSendFillsDistinctIDsIntoInvalidLines: a request written without
// "jsonrpc" is no JSON-RPC request to the tracker, but the id filled into it
// is taken all the same: the next line gets another (they all got the same
// one, which made the server's answers, if any, ambiguous).
func TestSendFillsDistinctIDsIntoInvalidLines(t *testing.T) {
	t.Parallel()
	r, _ := sendJSON(t, "headless-good", "{\"method\":\"tools/list\"}\n{\"method\":\"prompts/list\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n")
	seen := map[string]string{}
	for _, f := range r.c2s() {
		m := frameMethod(f)
		if m == "server/discover" || m == "initialize" || m == "notifications/initialized" {
			seen[string(f.ID)] = m
			continue
		}
		if other, dup := seen[string(f.ID)]; dup || len(f.ID) == 0 {
			t.Errorf("%s got id %s, as %s did", m, f.ID, other)
		}
		seen[string(f.ID)] = m
	}
	if len(seen) < 5 {
		t.Errorf("frames sent: %v", seen)
	}
}

// TestHeadlessSendRaw: --raw sends the input byte for byte, malformed lines
// and CRLF included, with no handshake and no ids filled in.
func TestHeadlessSendRaw(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestHeadlessSendStrayDuringCall: a print while a tool runs lands between
// the tools/call and its answer, and is reported on that frame.
func TestHeadlessSendStrayDuringCall(t *testing.T) {
	t.Parallel()
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

// TestSendRawUnterminatedLastFrame: a request in --raw input without a final
// newline cannot be read by a line-reading server until its stdin closes.
// send closes it once the other answers are in, instead of waiting out the
// whole --timeout and calling the request timed out.
func TestSendRawUnterminatedLastFrame(t *testing.T) {
	t.Parallel()
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	r, status := sendJSON(t, "headless-good", input, "--raw", "--timeout", "30s")
	if status != 1 { // unterminated-frame is an error
		t.Errorf("exit status %d", status)
	}
	if got := r.findings(t, "unterminated-frame"); len(got) != 1 || got[0].Dir == nil || *got[0].Dir != "c2s" {
		t.Errorf("unterminated-frame findings %+v", got)
	}
	for _, f := range r.Findings {
		if f.Code == "request-timeout" {
			t.Errorf("send waited out the timeout for the unterminated request: %+v", f)
		}
	}
	if _, state, _ := r.request(t, "ping"); state != "answered" {
		t.Errorf("ping %s, want answered once stdin closed", state)
	}
}

// TestSendTerminalHint: typing frames at a terminal, a person is told what
// send waits for (it reads everything before it starts the server, so
// otherwise nothing at all happens).
func TestSendTerminalHint(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(linesmanBinary(t), append([]string{"send", "--json"}, fakeServerArgs("headless-good")...)...)
	cmd.Stdin = tty
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the child has its copy
	// Drain what the terminal echoes, so writes never block.
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := ptmx.Read(buf); err != nil {
				return
			}
		}
	}()
	ptmx.WriteString(`{"jsonrpc":"2.0","method":"ping"}` + "\n\x04")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatal("send did not end after ctrl+d")
	}
	if !strings.Contains(errb.String(), "end with ctrl+d") {
		t.Errorf("no hint on stderr: %q", errb.String())
	}
	if !strings.Contains(out.String(), `"method": "ping"`) {
		t.Errorf("the typed frame was not sent:\n%s", out.String())
	}
}

// TestSendJoinsPrettyPrintedRequest: `send < request.json` with the request
// pretty-printed sends it as one compact line (it used to go out line by
// line, a broken multi-line frame the user never meant to send).
func TestSendJoinsPrettyPrintedRequest(t *testing.T) {
	t.Parallel()
	r, status := sendJSON(t, "headless-good", "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"tools/list\"\n}\n")
	if status != 0 {
		t.Errorf("exit status %d", status)
	}
	if _, state, _ := r.request(t, "tools/list"); state != "answered" {
		t.Errorf("tools/list %s", state)
	}
	for _, f := range r.Findings {
		if f.Code == "multi-line-frame" || f.Code == "non-json-line" {
			t.Errorf("finding %+v", f)
		}
	}
}

// TestSendCompletesModernRequests: against the demo server (modern era), a
// hand-written request gets the _meta the era requires, so the server sees
// a conformant request; with --era legacy nothing is added.
func TestSendCompletesModernRequests(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	for _, era := range []string{"modern", "legacy"} {
		r, status := decodeRun(t, []byte(`{"jsonrpc":"2.0","method":"tools/list"}`+"\n"),
			"send", "--json", "--era", era, "--", bin, "demo-server")
		if status != 0 {
			t.Fatalf("%s: status %d, findings %v", era, status, r.codes())
		}
		var sent string
		for _, f := range r.c2s() {
			if frameMethod(f) == "tools/list" && f.Text != nil {
				sent = *f.Text
			}
		}
		hasMeta := strings.Contains(sent, `"io.modelcontextprotocol/protocolVersion"`)
		if hasMeta != (era == "modern") {
			t.Errorf("%s era: tools/list sent as %s", era, sent)
		}
		if era == "modern" && strings.Contains(strings.Join(r.Stderr, "\n"), "no _meta protocol version") {
			t.Errorf("the demo server saw a request without _meta:\n%s", strings.Join(r.Stderr, "\n"))
		}
	}
}

// TestSendReturnsAnswersWhole: send is for the answer, so a 100 KiB answer
// (past the 64 KiB the report used to keep, and the 4 KiB of the text
// report) comes back whole in --json and in the text report; --max-text
// cuts it only when asked, and says so.
func TestSendReturnsAnswersWhole(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	input := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"big_reply","arguments":{"mib":0.1}}}` + "\n"
	const size = 104858 // 0.1 MiB, rounded up as the demo does
	const unit = "big_reply: one line, no newline inside. "
	answer := func(r jReport) jFrame {
		t.Helper()
		for _, f := range r.Frames {
			if f.Dir == "s2c" && f.InReplyTo != nil && f.InReplyTo.Method == "tools/call" {
				return f
			}
		}
		t.Fatalf("no answer to tools/call in %d frames", len(r.Frames))
		return jFrame{}
	}
	r, status := decodeRun(t, []byte(input), "send", "--json", "--", bin, "demo-server")
	a := answer(r)
	if status != 0 || a.Text == nil || int64(len(*a.Text)) != a.Bytes || a.Bytes < int64(size) || a.TextTruncated {
		t.Fatalf("status %d: the answer's text is %d of %d bytes (truncated %v)", status, len(deref(a.Text)), a.Bytes, a.TextTruncated)
	}

	r, _ = decodeRun(t, []byte(input), "send", "--json", "--max-text", "1000", "--", bin, "demo-server")
	if a := answer(r); a.Text == nil || len(*a.Text) != 1000 || !a.TextTruncated {
		t.Errorf("--max-text 1000: %d bytes kept, truncated %v", len(deref(a.Text)), a.TextTruncated)
	}

	status, out, errOut := runBinary(t, []byte(input), "send", "--", bin, "demo-server")
	text := string(out)
	if status != 0 || !strings.Contains(text, strings.Repeat(unit, size/len(unit)-1)) ||
		strings.Contains(text, "bytes in all") {
		t.Errorf("status %d: the text report does not hold the whole answer (%d bytes of output)\nstderr:\n%s", status, len(text), errOut)
	}
}

// TestSendStreamsItsInput: each line goes to the server as it is read, so a
// slow producer paces the conversation: the answer to the first request is
// logged before the second line is even written (linesman used to read all
// of its input before it started the server, and logged every server frame
// after every client line).
func TestSendStreamsItsInput(t *testing.T) {
	t.Parallel()
	capPath := filepath.Join(t.TempDir(), "run.jsonl")
	args := append([]string{"send", "--json", "--capture", capPath}, fakeServerArgs("headless-good")...)
	cmd := exec.Command(linesmanBinary(t), args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	call := func(text string) string {
		return `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}` + "\n"
	}
	io.WriteString(stdin, call("one"))
	// The answer to "one" must be in the capture (logged) while the input
	// is still open. A failure deadline, not a timing assertion.
	answered := `{"text":"one","type":"text"}`
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(capPath)
		if bytes.Contains(b, []byte(answered)) {
			break
		}
		select {
		case err := <-ended:
			t.Fatalf("linesman ended before its input did: %v\n%s", err, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			stdin.Close()
			<-ended
			t.Fatalf("the first request was not answered while the input was open; stderr:\n%s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(stdin, call("two"))
	stdin.Close()
	if err := <-ended; err != nil {
		t.Fatalf("linesman: %v\n%s", err, errb.String())
	}
	var r jReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	var answerOne, requestTwo uint64
	for _, f := range r.Frames {
		switch {
		case f.Dir == "s2c" && f.Text != nil && strings.Contains(*f.Text, answered):
			answerOne = f.Seq
		case f.Dir == "c2s" && f.Text != nil && strings.Contains(*f.Text, `"text":"two"`):
			requestTwo = f.Seq
		}
	}
	if answerOne == 0 || requestTwo == 0 || answerOne > requestTwo {
		t.Errorf("answer to one at seq %d, request two at seq %d: want the answer first", answerOne, requestTwo)
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings: %v", r.codes())
	}
}

// TestSendRawAddsNothing: with --raw the server gets the input and nothing
// else — its ping is not answered by linesman (it used to be, adding a
// client frame that was never in the input) unless --answer asks for it.
func TestSendRawAddsNothing(t *testing.T) {
	t.Parallel()
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	for _, c := range []struct {
		flags   []string
		answers int
	}{{[]string{"--raw"}, 0}, {[]string{"--raw", "--answer"}, 1}} {
		r, _ := sendJSON(t, "send-pinged", input, c.flags...)
		var sent []string
		answers := 0
		for _, f := range r.c2s() {
			if f.Kind == "result" || f.Kind == "error" {
				answers++
			}
			sent = append(sent, deref(f.Text))
		}
		if len(sent) != 3+c.answers || answers != c.answers {
			t.Errorf("%v: the client sent %d frames (%d answers), want %d (%d):\n%s", c.flags, len(sent), answers, 3+c.answers, c.answers, strings.Join(sent, "\n"))
		}
		pinged := false
		for _, f := range r.Frames {
			pinged = pinged || f.Dir == "s2c" && frameMethod(f) == "ping"
		}
		if !pinged {
			t.Errorf("%v: the server's ping is not in the report", c.flags)
		}
	}
	// --answer without --raw is a usage error: linesman answers anyway.
	if status, _, _ := runBinary(t, nil, append([]string{"send", "--answer"}, fakeServerArgs("send-pinged")...)...); status != exitUsage {
		t.Errorf("--answer without --raw: status %d, want %d", status, exitUsage)
	}
}

// TestSendRawHonoursEra: --raw judges the conversation in the era asked
// for (it used to ignore --era).
func TestSendRawHonoursEra(t *testing.T) {
	t.Parallel()
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"
	for _, era := range []string{"legacy", "modern"} {
		r, _ := sendJSON(t, "headless-good", input, "--raw", "--era", era)
		if r.Era != era {
			t.Errorf("--raw --era %s: the report says era %q", era, r.Era)
		}
	}
}

// TestSendFixFollowsWhoWroteTheLine: a line that is not JSON gets the fix
// for whoever wrote it: the server's stray print the server's advice (logs
// to stderr), the user's own line sent with --raw the client's, never the
// server's; the text report gives each once.
func TestSendFixFollowsWhoWroteTheLine(t *testing.T) {
	t.Parallel()
	input := "not json at all\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	r, _ := sendJSON(t, "headless-stray-start", input, "--raw")
	fixes := map[string]string{}
	for _, f := range r.Findings {
		if f.Code == "non-json-line" && f.Dir != nil {
			fixes[*f.Dir] = f.Fix
		}
	}
	if c2s := fixes["c2s"]; c2s == "" || strings.Contains(c2s, "stderr") || !strings.Contains(c2s, "The client sent this line") {
		t.Errorf("the user's line got the fix %q", c2s)
	}
	if s2c := fixes["s2c"]; !strings.HasPrefix(s2c, "Send logs to stderr") {
		t.Errorf("the server's stray print got the fix %q", s2c)
	}
	_, out, _ := runBinary(t, []byte(input), append([]string{"send", "--raw"}, fakeServerArgs("headless-stray-start")...)...)
	text := string(out)
	if strings.Count(text, "fix: Send logs to stderr") != 1 || strings.Count(text, "fix: The client sent this line") != 1 {
		t.Errorf("the text report does not give each side's fix once:\n%s", text)
	}
}
