package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"linesman/wire"
)

// TestHeadlessExplainList: without a code, every registered code is listed
// with its severity and title.
func TestHeadlessExplainList(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if st := runArgs([]string{"explain"}, nil, &out, &errb); st != exitOK {
		t.Fatalf("status %d, stderr %s", st, errb.String())
	}
	codes := wire.Codes()
	if len(codes) < 30 {
		t.Fatalf("registry has only %d codes", len(codes))
	}
	for _, info := range codes {
		found := false
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && f[0] == info.Severity.String() && f[1] == info.Code && strings.Contains(line, info.Title) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line for %s (%s) in:\n%s", info.Code, info.Severity, out.String())
		}
	}
}

// TestHeadlessExplainCode runs the real binary on one code.
func TestHeadlessExplainCode(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(linesmanBinary(t), "explain", "non-json-line")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	info, _ := wire.Lookup("non-json-line")
	for _, want := range []string{"non-json-line (error)", info.Title, "Why it matters:", "How to fix it:",
		"file=sys.stderr", "Specification:", "MUST NOT write anything to its stdout"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
}

// TestHeadlessExplainUnknown: an unknown code is a usage error that lists
// the known ones.
func TestHeadlessExplainUnknown(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(linesmanBinary(t), "explain", "utf8")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != exitUsage {
		t.Fatalf("exit: %v, want status %d", err, exitUsage)
	}
	if len(out) != 0 {
		t.Errorf("stdout not empty: %s", out)
	}
	msg := errb.String()
	for _, want := range []string{`unknown finding code "utf8"`, "did you mean: invalid-utf8, utf8-bom", "known codes:", "non-json-line", "unflushed-output"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
}

func TestHeadlessExplainJSON(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if st := runArgs([]string{"explain", "--json", "batch-array", "reused-id"}, nil, &out, &errb); st != exitOK {
		t.Fatalf("status %d: %s", st, errb.String())
	}
	var entries []map[string]string
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0]["code"] != "batch-array" || entries[0]["severity"] != "error" || entries[1]["fix"] == "" {
		t.Errorf("entries = %v", entries)
	}
}
