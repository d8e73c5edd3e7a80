package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCaptureUnreadRecordsSaid: a capture with a record no reader can read
// (here, a line that is not JSON) is still read, and every reader says what
// it skipped, on stderr and in what it prints: check --from in its report's
// notes, diff in its comparison, view on stderr. Before, check --from and
// diff said nothing, and their answers were silently wrong.
func TestCaptureUnreadRecordsSaid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	args := append([]string{"check", "--capture", path}, driftArgs(driftToolsA, driftPromptsA)...)
	if status, out, errOut := runBinary(t, nil, args...); status != 0 {
		t.Fatalf("check: status %d\n%s\n%s", status, out, errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	bad := append(append(append([][]byte{}, lines[:3]...), []byte("{this is no record\n")), lines[3:]...)
	if err := os.WriteFile(path, bytes.Join(bad, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"check", "--from", path, "--json"}, `not read from ` + path},
		{[]string{"check", "--from", path}, `not read from ` + path},
		{[]string{"diff", path, path}, `not read: ` + path},
		{[]string{"diff", "--json", path, path}, `"unread"`},
		{[]string{"view", "--text", path}, ""},
	} {
		_, out, errOut := runBinary(t, nil, c.args...)
		if !strings.Contains(string(errOut), ":4: skipped a bad record") {
			t.Errorf("%s: stderr does not name the skipped record:\n%s", strings.Join(c.args[:1], " "), errOut)
		}
		if !strings.Contains(string(out), c.out) || c.out != "" && !strings.Contains(string(out), "line 4") {
			t.Errorf("%s: the output does not say what was not read (%q):\n%s", strings.Join(c.args, " "), c.out, out)
		}
	}
}
