package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// verdict is what a check concludes about one server, without its times:
// the era, the findings (code and severity, sorted), the rule families'
// verdicts and whether it passed.
type verdict struct {
	Era      string
	Findings []string
	Families []string
	Status   int
}

func (v verdict) String() string {
	return fmt.Sprintf("status %d, era %s, findings %v, families %v", v.Status, v.Era, v.Findings, v.Families)
}

// verdictOf reads a verdict from one server's JSON report.
func verdictOf(t *testing.T, report []byte, status int) verdict {
	t.Helper()
	var r struct {
		Era      string `json:"era"`
		Findings []struct {
			Code, Severity string
		} `json:"findings"`
		Rules []struct {
			Family, Status string
		} `json:"rules"`
	}
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, report)
	}
	v := verdict{Era: r.Era, Status: status}
	for _, f := range r.Findings {
		v.Findings = append(v.Findings, f.Code+":"+f.Severity)
	}
	for _, f := range r.Rules {
		v.Families = append(v.Families, f.Family+":"+f.Status)
	}
	slices.Sort(v.Findings)
	return v
}

// TestDeterministicVerdicts: the same servers (two that start slowly, the
// demo, a crash at start, a good one) checked one at a time, and all at
// once with --parallel 4 while every core is kept busy, get the same era,
// findings and rule verdicts. Only verdicts are compared, never times.
func TestDeterministicVerdicts(t *testing.T) {
	config := writeAllConfig(t, map[string]string{
		"slow-start": "slow-start", "slow-answer": "slow-answer",
		"crash": "headless-exit-at-once", "good": "headless-good",
	}, `"demo": {"command": `+quoteJSON(linesmanBinary(t))+`, "args": ["demo-server"]}`)
	names := []string{"crash", "demo", "good", "slow-answer", "slow-start"}

	alone := map[string]verdict{}
	for _, name := range names { // one at a time, on a quiet machine
		status, out, errOut := runBinary(t, nil, "check", "--json", "--config", config, name)
		if !json.Valid(out) {
			t.Fatalf("%s alone: no report (status %d):\n%s", name, status, errOut)
		}
		alone[name] = verdictOf(t, out, status)
	}

	loadMachine(t)
	_, out, errOut := runBinary(t, nil, "check", "--json", "--config", config, "--all", "--parallel", "4")
	var doc struct {
		Servers []struct {
			Name       string          `json:"name"`
			ExitStatus int             `json:"exitStatus"`
			Report     json.RawMessage `json:"report"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("check --all: not JSON: %v\n%s\n%s", err, out, errOut)
	}
	seen := 0
	for _, s := range doc.Servers {
		want, ok := alone[s.Name]
		if !ok {
			continue
		}
		seen++
		if got := verdictOf(t, s.Report, s.ExitStatus); got.String() != want.String() {
			t.Errorf("%s: under --parallel 4 on a loaded machine\n  %s\nalone\n  %s", s.Name, got, want)
		}
	}
	if seen != len(names) {
		t.Errorf("check --all reported %d of the %d servers:\n%s", seen, len(names), strings.TrimSpace(string(errOut)))
	}
	for _, name := range []string{"slow-start", "slow-answer", "good"} {
		if v := alone[name]; len(v.Findings) != 0 || v.Era != "legacy" {
			t.Errorf("%s alone: %s; want era legacy, no findings", name, v)
		}
	}
	if v := alone["crash"]; v.Era != "unknown" || !slices.Contains(v.Findings, "exit-at-start:error") {
		t.Errorf("crash alone: %s; want era unknown and exit-at-start", v)
	}
}
