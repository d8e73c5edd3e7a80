package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/wire"
)

// TestCaptureCommandLine drives view and export through run(): usage
// errors are exit status 2 with a message, a file that is not a capture is
// a runtime failure (1), and each export format writes what it should.
func TestCaptureCommandLine(t *testing.T) {
	dir := t.TempDir()
	log := session.NewLog(0)
	for _, f := range wire.FramesOf([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"), wire.Options{}) {
		log.Append(session.Event{Type: session.EventFrame, Dir: wire.ClientToServer, Frame: f})
	}
	log.Append(session.Event{Type: session.EventStderr, Stderr: &wire.Line{Content: []byte("\x1b[2Jboom"), Term: wire.TermLF, Length: 8}})
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
		status := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if status != tc.status || !strings.Contains(stdout.String(), tc.out) || !strings.Contains(stderr.String(), tc.errOut) {
			t.Errorf("linesman %q: status %d, stdout %q, stderr %q; want %d, %q, %q",
				tc.args, status, stdout.String(), stderr.String(), tc.status, tc.out, tc.errOut)
		}
		if strings.ContainsRune(stdout.String(), 0x1b) {
			t.Errorf("linesman %q wrote a raw ESC: %q", tc.args, stdout.String())
		}
	}
}

// TestCaptureHeaderEnv: the header names the server's environment (ours
// plus -e) but keeps values out unless --capture-env; cwd is absolute.
func TestCaptureHeaderEnv(t *testing.T) {
	t.Setenv("CAPTURE_TEST_SECRET", "hunter2")
	flags := commonFlags{cwd: ".", env: envFlag{"CAPTURE_TEST_OVERRIDE=x=y"}, era: "legacy", timeout: 7 * time.Second, maxFrame: 4096}
	h := captureHeader(&flags, []string{"srv", "a"})
	names := map[string]*string{}
	for _, v := range h.Env {
		names[v.Name] = v.Value
	}
	if v, ok := names["CAPTURE_TEST_SECRET"]; !ok || v != nil {
		t.Errorf("CAPTURE_TEST_SECRET: present %v, value %v; want the name only", ok, v)
	}
	if _, ok := names["CAPTURE_TEST_OVERRIDE"]; !ok {
		t.Error("the -e override is not named")
	}
	if !filepath.IsAbs(h.Cwd) || h.Era != "legacy" || h.TimeoutNs != int64(7*time.Second) || h.MaxFrame != 4096 || fmt.Sprint(h.Command) != "[srv a]" {
		t.Errorf("header %+v", h)
	}
	flags.captureEnv = true
	for _, v := range captureHeader(&flags, nil).Env {
		switch {
		case v.Value == nil:
			t.Errorf("%s without its value under --capture-env", v.Name)
		case v.Name == "CAPTURE_TEST_SECRET" && *v.Value != "hunter2",
			v.Name == "CAPTURE_TEST_OVERRIDE" && *v.Value != "x=y":
			t.Errorf("%s=%q", v.Name, *v.Value)
		}
	}
}
