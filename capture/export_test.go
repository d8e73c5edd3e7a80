package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// TestReplayReproducesBytes runs the replay script of a capture whose client
// frames hold every byte value, CRLF, printf's own metacharacters and an
// unterminated last frame, through real shells, with a "server" that saves
// its stdin: the saved bytes are the client bytes, exactly.
func TestReplayReproducesBytes(t *testing.T) {
	s := newScript(0, 0)
	var all []byte
	for c := range 256 {
		if c != '\n' {
			all = append(all, byte(c))
		}
	}
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"s\":\"100% 'quoted' \\\\n \\\\0101 %s %d\"}}\n")
	s.send(string(all) + "\n")
	s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n\n")
	s.send("{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}\n")
	s.send("digits after escapes: \x01" + "234\x7f567")
	s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")) // not replayed

	dir := t.TempDir()
	out := filepath.Join(dir, "server's stdin")
	h := Header{Command: []string{"sh", "-c", `cat > "$0"`, out}}
	c, err := Open(record(t, s.log, h))
	if err != nil {
		t.Fatal(err)
	}
	var script bytes.Buffer
	if err := WriteReplay(&script, c.Log, c.Header); err != nil {
		t.Fatal(err)
	}
	for i, b := range script.Bytes() {
		if b != '\n' && (b < 0x20 || b >= 0x7f) {
			t.Fatalf("the script is not plain ASCII: byte %#x at %d", b, i)
		}
	}
	path := filepath.Join(dir, "replay.sh")
	if err := os.WriteFile(path, script.Bytes(), 0o700); err != nil {
		t.Fatal(err)
	}
	shells := []string{"sh"}
	for _, sh := range []string{"bash", "dash"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		}
	}
	for _, sh := range shells {
		os.Remove(out)
		if msg, err := exec.Command(sh, path).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", sh, path, err, msg)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, s.c2s) {
			t.Errorf("%s: the replay wrote\n%q\nwant\n%q", sh, got, s.c2s)
		}
	}
	if !strings.Contains(script.String(), "# frame 1 initialize\n") {
		t.Errorf("the script does not label its frames:\n%s", script.String())
	}
}

func TestReplayNeedsACommand(t *testing.T) {
	s := newScript(0, 0)
	s.send("{}\n")
	if err := WriteReplay(&bytes.Buffer{}, s.log, Header{}); err != ErrNoCommand {
		t.Errorf("got %v, want ErrNoCommand", err)
	}
}

// TestTranscriptIsInert: nothing the server wrote reaches the terminal raw.
func TestTranscriptIsInert(t *testing.T) {
	s := newScript(0, 0)
	s.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7, Detail: "started \x1b[2Jsrv"})
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r\n")
	s.serve(t, []byte("oops \x1b]52;c;Zm9v\x07 \xff\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"))
	s.stderr(t, []byte("\x1b[31merror\x1b[0m \xc2\x9b\n"))
	s.finding(eventlog.LoggedFinding{Finding: wire.NewFinding("stderr-escape-sequences", "ESC \x1b[1m"), FrameSeq: 2})
	s.note("note\x07")
	// A crafted file's code and signal (the export of a capture X writes).
	crafted := "\x1b]2;title\x07\x1b_apc\x1b\\\u009b2J\u202eevil"
	s.finding(eventlog.LoggedFinding{Finding: wire.Finding{Code: crafted, Severity: wire.SeverityError, Message: "m"}})
	s.process(eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 7, ExitCode: -1, Signal: crafted})
	var b bytes.Buffer
	if err := WriteTranscript(&b, s.log, Header{Command: []string{"srv", "a b"}}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for i, r := range text {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || r == 0x202e {
			t.Fatalf("control %U at %d in transcript:\n%s", r, i, text)
		}
	}
	for _, want := range []string{"srv 'a b'", "c2s  #2 request id=1 tools/list", "[\\r\\n]", "\uFFFD", "[no newline]",
		"␛[31merror", "non-json-line", "(frame #2)", "pid 7"} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q:\n%s", want, text)
		}
	}
}

// TestFindingsExport: the findings export is the report of `check --json`,
// with the handshake's facts worked out from the frames.
func TestFindingsExport(t *testing.T) {
	s := newScript(0, 0)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n")
	s.serve(t, []byte("print debugging\n"+`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"srv","version":"1"},"capabilities":{}}}`+"\n"))
	c, err := Open(record(t, s.log, Header{Command: []string{"srv"}}))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteFindings(&b, c.Log, c.Tracker, c.Header); err != nil {
		t.Fatal(err)
	}
	var r struct {
		Linesman        string          `json:"linesman"`
		Command         []string        `json:"command"`
		Era             string          `json:"era"`
		ProtocolVersion string          `json:"protocolVersion"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Frames          []struct {
			Seq      uint64   `json:"seq"`
			Findings []string `json:"findings"`
		} `json:"frames"`
		Findings []struct {
			Code string  `json:"code"`
			Seq  *uint64 `json:"seq"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(b.Bytes(), &r); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if r.Era != "legacy" || r.ProtocolVersion != "2025-06-18" || !strings.Contains(string(r.ServerInfo), `"srv"`) ||
		fmt.Sprint(r.Command) != "[srv]" || len(r.Frames) != 3 {
		t.Errorf("report: %s", b.String())
	}
	found := false
	for _, f := range r.Findings {
		found = found || (f.Code == "non-json-line" && f.Seq != nil && *f.Seq == 2)
	}
	if !found {
		t.Errorf("no non-json-line finding on frame 2: %s", b.String())
	}
}

// TestReplayCommandIsPlainASCII: a server argument holding control bytes,
// C1, quotes or trailing newlines reaches the server exactly, and the script
// stays plain ASCII (the command line used to be written raw, so cat of the
// script could drive a terminal).
func TestReplayCommandIsPlainASCII(t *testing.T) {
	s := newScript(0, 0)
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
	dir := t.TempDir()
	out := filepath.Join(dir, "arg")
	arg := "a\u009b2J\x1b]0;t\x07 'q' %s \\n 日本\n\n"
	h := Header{Command: []string{"sh", "-c", `cat >/dev/null; printf %s "$1" > "$2"`, "sh", arg, out}}
	var script bytes.Buffer
	if err := WriteReplay(&script, s.log, h); err != nil {
		t.Fatal(err)
	}
	for i, b := range script.Bytes() {
		if b != '\n' && (b < 0x20 || b >= 0x7f) {
			t.Fatalf("the script is not plain ASCII: byte %#x at %d\n%s", b, i, script.Bytes())
		}
	}
	path := filepath.Join(dir, "replay.sh")
	if err := os.WriteFile(path, script.Bytes(), 0o700); err != nil {
		t.Fatal(err)
	}
	shells := []string{"sh"}
	for _, sh := range []string{"bash", "dash"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		}
	}
	for _, sh := range shells {
		os.Remove(out)
		if msg, err := exec.Command(sh, path).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", sh, path, err, msg)
		}
		if got, err := os.ReadFile(out); err != nil || string(got) != arg {
			t.Errorf("%s: the server got %q (%v), want %q", sh, got, err, arg)
		}
	}
}
