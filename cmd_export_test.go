package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureExportMatchesCheck: `send --json --capture F` and `export F
// --format findings` print the same report (only "mode" differs): the
// findings are recomputed from the capture exactly as the live session
// found them. The replay export of the same capture, run by a shell into a
// server that saves its stdin, reproduces the client bytes exactly.
func TestCaptureExportMatchesCheck(t *testing.T) {
	t.Parallel()
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

// TestReplayKeepsNonUTF8Argument: a server argument that is not valid UTF-8
// is replayed byte for byte (the capture's header keeps it in commandB64
// too); it came back as U+FFFD, the replay running another command.
func TestReplayKeepsNonUTF8Argument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath := filepath.Join(dir, "c.jsonl")
	odd := "\xff\xfeodd"
	status, _, errOut := runBinary(t, nil, "check", "--capture", capPath, "--", "/bin/sh", "-c", `exec "$1" demo-server`, odd, linesmanBinary(t))
	if status != exitOK {
		t.Fatalf("check: %d\n%s", status, errOut)
	}
	_, script, errOut := runBinary(t, nil, "export", capPath, "--format", "replay")
	if err := terminalSafe(script); err != nil {
		t.Errorf("replay: %v", err)
	}
	if !strings.Contains(string(script), `\377\376odd`) {
		t.Errorf("the replay does not rebuild the argument's bytes:\n%s\n%s", script, errOut)
	}
}
