package main

// End-to-end tests of check's policy flags against real fake servers: each
// violation is a finding of the policy family, in every report, and fails
// the run.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// policyRules decodes the "rules" block of a JSON report.
func policyRule(t *testing.T, out []byte) (status string, listed bool) {
	t.Helper()
	var r struct {
		Rules []struct {
			Family, Status string
		} `json:"rules"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	for _, ru := range r.Rules {
		if ru.Family == "policy" {
			return ru.Status, true
		}
	}
	return "", false
}

// TestCheckPolicyToolsViolated: --expect-tool of a tool the server lacks
// and --forbid-tool matching the one it has are two errors, in JSON,
// JUnit and SARIF, and the run fails; the expected tool it has and a glob
// that matches nothing raise nothing.
func TestCheckPolicyToolsViolated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jp, sp := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out.sarif")
	args := append([]string{"check", "--json", "--junit", jp, "--sarif", sp,
		"--expect-tool", "echo", "--expect-tool", "delete_everything",
		"--forbid-tool", "e?h*", "--forbid-tool", "shell_*"}, fakeServerArgs("headless-good")...)
	status, out, errOut := runBinary(t, nil, args...)
	var r jReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("status %d: %v\n%s\n%s", status, err, out, errOut)
	}
	if status != 1 {
		t.Fatalf("status %d, want 1; findings %v", status, r.codes())
	}
	missing := r.findings(t, "expected-tool-missing")
	if len(missing) != 1 || !strings.Contains(missing[0].Message, `"delete_everything"`) || missing[0].Severity != "error" {
		t.Errorf("expected-tool-missing: %+v", missing)
	}
	forbidden := r.findings(t, "forbidden-tool-present")
	if len(forbidden) != 1 || !strings.Contains(forbidden[0].Message, `"echo"`) || !strings.Contains(forbidden[0].Message, `"e?h*"`) {
		t.Errorf("forbidden-tool-present: %+v", forbidden)
	}
	// It points at the tools/list answer that listed the tool.
	if f := r.frame(t, forbidden[0].Seq); f.InReplyTo == nil || f.InReplyTo.Method != "tools/list" {
		t.Errorf("forbidden-tool-present points at %+v, not the tools/list answer", f)
	}
	if st, ok := policyRule(t, out); !ok || st != "broken" {
		t.Errorf("policy family: %q (listed %v), want broken", st, ok)
	}
	j, s := readCI(t, jp, sp)
	policyFailed := false
	for _, c := range j.Suites[0].Cases {
		policyFailed = policyFailed || (strings.HasPrefix(c.Name, "policy") && c.Failure != nil)
	}
	if !policyFailed {
		t.Errorf("no failed policy test case: %+v", j.Suites[0].Cases)
	}
	rules := map[string]string{}
	for _, res := range s.Runs[0].Results {
		rules[res.RuleID] = res.Level
	}
	if rules["expected-tool-missing"] != "error" || rules["forbidden-tool-present"] != "error" {
		t.Errorf("SARIF results: %v", rules)
	}
}

// TestCheckPolicyHeld: a policy the server meets is a held family and a
// passing run; no policy at all lists no policy family.
func TestCheckPolicyHeld(t *testing.T) {
	t.Parallel()
	// Limits of an hour cannot be reached: the hang guard stops a run long before.
	args := append([]string{"check", "--json", "--expect-tool", "echo", "--forbid-tool", "shell_*",
		"--max-duration", "1h", "--max-latency", "1h"}, fakeServerArgs("headless-good")...)
	status, out, errOut := runBinary(t, nil, args...)
	if status != 0 {
		t.Fatalf("status %d\n%s\n%s", status, out, errOut)
	}
	if st, ok := policyRule(t, out); !ok || st != "held" {
		t.Errorf("policy family: %q (listed %v), want held", st, ok)
	}
	status, out, _ = runBinary(t, nil, append([]string{"check", "--json"}, fakeServerArgs("headless-good")...)...)
	if _, ok := policyRule(t, out); status != 0 || ok {
		t.Errorf("without a policy: status %d, policy family listed %v", status, ok)
	}
}

// TestCheckPolicyTimeLimits: limits no run can meet (1ns) raise
// run-over-max-duration once and request-over-max-latency on every
// request, each pointing at its request frame; the text report names them.
func TestCheckPolicyTimeLimits(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-good", "--max-duration", "1ns", "--max-latency", "1ns")
	if status != 1 {
		t.Fatalf("status %d", status)
	}
	if d := r.findings(t, "run-over-max-duration"); len(d) != 1 || d[0].Seq != nil || !strings.Contains(d[0].Message, "over --max-duration 1ns") {
		t.Errorf("run-over-max-duration: %+v", d)
	}
	slow := r.findings(t, "request-over-max-latency")
	answered := 0
	for _, q := range r.Requests {
		if q.Dir == "c2s" && q.State != "in-flight" {
			answered++
		}
	}
	if len(slow) != answered || answered < 3 {
		t.Fatalf("%d request-over-max-latency for %d requests", len(slow), answered)
	}
	for _, f := range slow {
		if fr := r.frame(t, f.Seq); fr.Dir != "c2s" || fr.Kind != "request" || !strings.Contains(f.Message, *fr.Method) {
			t.Errorf("%+v points at %+v", f, fr)
		}
	}
	status, text, _ := runBinary(t, nil, append([]string{"check", "--max-latency", "1ns"}, fakeServerArgs("headless-good")...)...)
	if status != 1 || !strings.Contains(string(text), "request-over-max-latency") {
		t.Errorf("text report: status %d\n%s", status, text)
	}
}

// TestCheckPolicyUsage: bad policy values are usage errors that name the flag.
func TestCheckPolicyUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ args []string }{
		{[]string{"--forbid-tool", "[a-"}},
		{[]string{"--max-latency", "5"}},
		{[]string{"--max-duration", "-1s"}},
		{[]string{"--expect-tool", ""}},
	} {
		args := append(append([]string{"check"}, c.args...), fakeServerArgs("headless-good")...)
		status, _, errOut := runBinary(t, nil, args...)
		if status != exitUsage || !strings.Contains(string(errOut), strings.TrimPrefix(c.args[0], "-")) {
			t.Errorf("%v: status %d, stderr %s", c.args, status, errOut)
		}
	}
	_, out, _ := runBinary(t, nil, "check", "--help")
	for _, flag := range []string{"-expect-tool", "-forbid-tool", "-max-duration", "-max-latency"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("--help does not list %s", flag)
		}
	}
}
