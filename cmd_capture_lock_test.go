package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
)

// TestCaptureSecondRecorderRefused: two linesman runs recording to the same
// name used to interleave their records into a file no reader could open.
// The second now stops before starting its server, with a clear error,
// and the first run's capture opens whole.
func TestCaptureSecondRecorderRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.jsonl")
	first := exec.Command(linesmanBinary(t), "check", "--timeout", "60s", "--capture", path, "-e", "D="+dir,
		"--", "sh", "-c", `touch "$D/ready"; exec sleep 1000`)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Process.Kill(); first.Wait() })
	if !pollUntil(hangGuard, func() bool {
		_, err := os.Stat(filepath.Join(dir, "ready"))
		return err == nil && capture.CheckNotBusy(path) != nil
	}) {
		t.Fatal("the first run never started recording")
	}
	status, out, errOut := runBinary(t, nil, append([]string{"check", "--capture", path}, fakeServerArgs("headless-good")...)...)
	if status != exitUsage || !strings.Contains(string(errOut), "another linesman is recording to it") {
		t.Errorf("the second run: status %d, stderr %q, stdout %q", status, errOut, out)
	}
	first.Process.Signal(syscall.SIGTERM) // ends the run: it reports and closes its capture
	first.Wait()
	c, err := capture.Open(path)
	if err != nil || c.SkippedCount != 0 || c.Header.Command[0] != "sh" {
		t.Errorf("the first run's capture: %v, %+v\n%s", err, c, firstOut.String())
	}
}

// TestCaptureWriteFailureReportsExit1: when the capture cannot be written
// (here the file size limit, ulimit -f), the run exits 1 and its report
// says "exit status 1" (it said 0).
func TestCaptureWriteFailureReportsExit1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "small.jsonl")
	// The limit is set in the shell that execs linesman; stdout stays a
	// pipe (a file would hit the limit too).
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -f 3; exec "$0" "$@"`, linesmanBinary(t),
		"check", "--clean-env", "--capture", path}, fakeServerArgs("headless-good")...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		cmd.Process.Kill()
		t.Fatal("hung")
	}
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	}
	if !strings.Contains(errOut.String(), "file too large") {
		t.Fatalf("the capture did not fail as arranged (status %d):\n%s\n%s", status, out.String(), errOut.String())
	}
	if status != 1 || !strings.Contains(out.String(), "exit status 1") || strings.Contains(out.String(), "exit status 0") {
		t.Errorf("status %d; the report says:\n%s", status, out.String())
	}
}
