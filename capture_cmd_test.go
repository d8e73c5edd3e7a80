package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/wire"
)

// captureMessyInput is what the tests send with `send --raw`: a request, a
// CRLF line, invalid UTF-8, printf's metacharacters, a multi-line frame.
const captureMessyInput = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"s\":\"100% \\\\ 'q'\"}}\n" +
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\r\n" +
	"bad \xff\xfe bytes\n" +
	"{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}\n"

func init() {
	// capture-messy answers request 1 with a pretty-printed result after a
	// stray print, writes invalid UTF-8 and CRLF on stdout and escape
	// sequences on stderr, then waits for stdin to close.
	registerFake("capture-messy", func() {
		in := bufio.NewReader(os.Stdin)
		if _, err := in.ReadString('\n'); err != nil {
			os.Exit(1)
		}
		os.Stderr.WriteString("\x1b[31mstarting\x1b[0m \x1b]0;title\x07\n")
		os.Stdout.WriteString("DEBUG: stray print\n")
		os.Stdout.WriteString("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"content\": []}\n}\n")
		os.Stdout.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"caf\xe9\"}}\r\n")
		io.Copy(io.Discard, in)
	})
	// capture-sink saves its stdin to $CAPTURE_SINK: the server a replay
	// script is tested against.
	registerFake("capture-sink", func() {
		b, _ := io.ReadAll(os.Stdin)
		os.WriteFile(os.Getenv("CAPTURE_SINK"), b, 0o600)
	})
}

// TestCaptureExportMatchesCheck: `send --json --capture F` and `export F
// --format findings` print the same report (only "mode" differs): the
// findings are recomputed from the capture exactly as the live session
// found them. The replay export of the same capture, run by a shell into a
// server that saves its stdin, reproduces the client bytes exactly.
func TestCaptureExportMatchesCheck(t *testing.T) {
	bin := linesmanBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "messy.jsonl")
	args := append([]string{"send", "--raw", "--json", "--timeout", "20s", "--capture", path}, fakeServerArgs("capture-messy")...)
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(captureMessyInput)
	live, err := cmd.Output()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() > 1 {
		t.Fatalf("send: %v\n%s", err, live)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("capture file: %v, %v", fi, err)
	}
	exported, err := exec.Command(bin, "export", path, "--format", "findings").Output()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	var a, b map[string]any
	if err := json.Unmarshal(live, &a); err != nil {
		t.Fatalf("%v\n%s", err, live)
	}
	if err := json.Unmarshal(exported, &b); err != nil {
		t.Fatalf("%v\n%s", err, exported)
	}
	if a["mode"] == b["mode"] {
		t.Errorf("mode %v in both", a["mode"])
	}
	delete(a, "mode")
	delete(b, "mode")
	// send puts each frame's text in its report; the export, like check,
	// does not.
	for _, f := range a["frames"].([]any) {
		delete(f.(map[string]any), "text")
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("the export differs from the live report:\nlive:   %s\nexport: %s", live, exported)
	}
	codes := fmt.Sprint(a["findings"])
	for _, code := range []string{"non-json-line", "multi-line-frame", "crlf-line-ending", "invalid-utf8", "stderr-escape-sequences"} {
		if !strings.Contains(codes, code) {
			t.Errorf("no %s among the findings: %s", code, codes)
		}
	}

	// The replay, run by a real shell into a server that saves its stdin.
	script, err := exec.Command(bin, "export", path, "--format", "replay").Output()
	if err != nil {
		t.Fatalf("export replay: %v", err)
	}
	scriptPath := filepath.Join(dir, "replay.sh")
	if err := os.WriteFile(scriptPath, script, 0o700); err != nil {
		t.Fatal(err)
	}
	sink := filepath.Join(dir, "sink")
	sh := exec.Command("sh", scriptPath)
	sh.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=capture-sink", "CAPTURE_SINK="+sink)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("sh replay.sh: %v\n%s\n%s", err, out, script)
	}
	got, err := os.ReadFile(sink)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != captureMessyInput {
		t.Errorf("the replay sent\n%q\nwant\n%q\nscript:\n%s", got, captureMessyInput, script)
	}

	// The transcript shows it all, inertly.
	text, err := exec.Command(bin, "view", path).Output()
	if err != nil {
		t.Fatalf("view: %v", err)
	}
	if bytes.ContainsAny(text, "\x1b\x07") || !bytes.Contains(text, []byte("␛[31mstarting")) || !bytes.Contains(text, []byte("DEBUG: stray print")) {
		t.Errorf("transcript:\n%s", text)
	}
}

// TestViewFollow runs `linesman view --follow --text` on a capture that a
// recorder in this test is still writing: the reader prints every event, in
// order, while the writer goes on (the writer waits to see some of them
// printed before appending more, so following is really live), and ends
// cleanly on SIGINT.
func TestViewFollow(t *testing.T) {
	bin := linesmanBinary(t)
	path := filepath.Join(t.TempDir(), "live.jsonl")
	log := session.NewLog(0)
	tr := session.NewTracker(session.TrackerOptions{})
	rec, err := capture.Create(path, log, capture.Header{Command: []string{"srv"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()

	cmd := exec.Command(bin, "view", "--follow", "--text", "--poll", "2ms", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	rows := make(chan string, 1024)
	go func() {
		defer close(rows)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			rows <- sc.Text()
		}
	}()

	marker := regexp.MustCompile(`(?:#(\d+) |note note-(\d+)$)`)
	seen := 0 // Seq of the last event the reader printed
	waitFor := func(seq int) {
		t.Helper()
		deadline := time.After(time.Minute)
		for seen < seq {
			select {
			case row, ok := <-rows:
				if !ok {
					t.Fatalf("view ended before printing event %d", seq)
				}
				m := marker.FindStringSubmatch(row)
				if m == nil {
					continue
				}
				n, _ := strconv.Atoi(m[1] + m[2])
				if n != seen+1 {
					t.Fatalf("printed event %d after %d: %q", n, seen, row)
				}
				seen = n
			case <-deadline:
				t.Fatalf("event %d not printed after a minute (last %d)", seq, seen)
			}
		}
	}
	const n = 400
	for i := 1; i <= n; i++ {
		if i%2 == 1 {
			raw := fmt.Appendf(nil, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"i\":%d,\"pad\":%q}}\n", i, strings.Repeat("z", i*97%5000))
			for _, f := range wire.FramesOf(raw, wire.Options{}) {
				log.AppendWith(func(seq uint64, at time.Duration) session.Event {
					tr.Frame(seq, wire.ServerToClient, f, at)
					return session.Event{Type: session.EventFrame, Dir: wire.ServerToClient, Frame: f}
				})
			}
		} else {
			log.Append(session.Event{Type: session.EventNote, Note: fmt.Sprintf("note-%d", i)})
		}
		if i%100 == 0 {
			waitFor(i)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for range rows {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("view --follow after SIGINT: %v", err)
	}
}

// TestCaptureCheckDemo records `linesman check --json` against the
// built-in demo server (era probe, handshake, listing, shutdown ladder) and
// exports the capture's findings: the same report as the live one.
func TestCaptureCheckDemo(t *testing.T) {
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
