package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// severityReport is a report whose findings are one of each severity in
// mask (1: an error, 2: a warning, 4: a note), each of another family.
func severityReport(t *testing.T, mask int) Report {
	t.Helper()
	l := eventlog.NewLog(0)
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7}})
	for bit, f := range []wire.Finding{
		{Code: "id-type-mismatch", Severity: wire.SeverityError, Message: "an error"},
		{Code: "logging-undeclared", Severity: wire.SeverityWarning, Message: "a warning"},
		{Code: "unflushed-output", Severity: wire.SeverityNote, Message: "a note"},
	} {
		if mask&(1<<bit) != 0 {
			l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{Finding: f}})
		}
	}
	return FromLog(l, handshaken(t, l, "2025-06-18", `{"name":"s"}`), Meta{Mode: "check", Command: []string{"srv"}})
}

// junitVerdicts reads a JUnit document: per suite, its failing cases
// (failure or error) as counted from the elements, as a dashboard counts them.
func junitVerdicts(t *testing.T, out []byte) map[string]int {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]int{}
	for _, s := range doc.Suites {
		got[s.Name] += 0
		for _, c := range s.Cases {
			if c.Failure != nil || c.Error != nil {
				got[s.Name]++
			}
		}
	}
	return got
}

// TestJUnitAgreesWithExitStatus: for every combination of severities and
// every --fail-on level, a JUnit test case fails exactly when the run's
// exit status does (a warning fails nothing under --fail-on error, a note
// fails its family under --fail-on note), alone and under --all, where the
// suites that fail are the servers the table calls failed.
func TestJUnitAgreesWithExitStatus(t *testing.T) {
	for _, failOn := range FailOnLevels {
		var servers []ServerResult
		for mask := range 8 {
			r := severityReport(t, mask)
			status, _ := r.ExitStatusAt(failOn)
			var buf bytes.Buffer
			if err := r.WriteJUnit(&buf, CIOptions{FailOn: failOn}); err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, n := range junitVerdicts(t, buf.Bytes()) {
				failed += n
			}
			if want := bitsAtOrAbove(mask, failOn); failed != want || (failed > 0) != (status != 0) {
				t.Errorf("--fail-on %s, findings %03b: %d failing cases, exit status %d; want %d\n%s", failOn, mask, failed, status, want, buf.Bytes())
			}
			res := ServerResult{Name: fmt.Sprintf("s%d", mask), Report: &r, ExitStatus: status, Status: "passed"}
			if status != 0 {
				res.Status = "failed"
			}
			servers = append(servers, res)
		}
		m := NewMulti("servers.txt", servers)
		var buf bytes.Buffer
		if err := m.WriteJUnit(&buf, CIOptions{FailOn: failOn}); err != nil {
			t.Fatal(err)
		}
		verdicts, failedSuites := junitVerdicts(t, buf.Bytes()), 0
		for _, s := range servers {
			if (verdicts[s.Name] > 0) != (s.Status == "failed") {
				t.Errorf("--all --fail-on %s: server %s %s, %d failing cases", failOn, s.Name, s.Status, verdicts[s.Name])
			}
			if verdicts[s.Name] > 0 {
				failedSuites++
			}
		}
		if failedSuites != m.Summary.Failed {
			t.Errorf("--all --fail-on %s: %d suites fail, the table says %d servers failed", failOn, failedSuites, m.Summary.Failed)
		}
	}
}

// bitsAtOrAbove counts the findings of mask (1 error, 2 warning, 4 note)
// that fail a run under --fail-on failOn.
func bitsAtOrAbove(mask int, failOn string) int {
	n := 0
	for bit, sev := range []string{"error", "warning", "note"} {
		if mask&(1<<bit) != 0 && fails(sev, failOn) {
			n++
		}
	}
	return n
}

// TestJUnitFindingsOutsideFamilies: a finding that fails the run but
// belongs to no family listed (a drift note under --fail-on note with no
// baseline applied) still fails the file, in a case of its own.
func TestJUnitFindingsOutsideFamilies(t *testing.T) {
	l := eventlog.NewLog(0)
	l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
		Finding: wire.Finding{Code: "tool-added", Severity: wire.SeverityNote, Message: "a new tool"}}})
	r := FromLog(l, handshaken(t, l, "2025-06-18", `{"name":"s"}`), Meta{Mode: "check", Command: []string{"srv"}})
	if status, _ := r.ExitStatusAt("note"); status != 1 {
		t.Fatalf("exit status %d", status)
	}
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf, CIOptions{FailOn: "note"}); err != nil {
		t.Fatal(err)
	}
	if n := junitVerdicts(t, buf.Bytes())["s"]; n != 1 || !bytes.Contains(buf.Bytes(), []byte("tool-added")) {
		t.Errorf("%d failing cases, want 1 naming tool-added:\n%s", n, buf.Bytes())
	}
}

// sarifVerdicts reads a SARIF log as code scanning does: per server (the
// "server" property, "" for one server), the results at level error, and
// every result's kind and level.
func sarifVerdicts(t *testing.T, out []byte) (errors map[string]int, pairs []string) {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				Kind       string         `json:"kind"`
				Level      string         `json:"level"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	errors = map[string]int{}
	for _, res := range log.Runs[0].Results {
		server, _ := res.Properties["server"].(string)
		if res.Level == "error" {
			errors[server]++
		}
		pairs = append(pairs, res.Kind+"/"+res.Level)
	}
	return errors, pairs
}

// TestSARIFAgreesWithExitStatus: for every combination of severities and
// every --fail-on level, a SARIF result is a "fail" at level error
// exactly when its finding fails the run (so a log has an error exactly
// when the run exits 1), the others keep their severity as level, and
// the invocation's exitCode is the run's; under --all the servers with an
// error-level result are those the table calls failed.
func TestSARIFAgreesWithExitStatus(t *testing.T) {
	for _, failOn := range FailOnLevels {
		var servers []ServerResult
		for mask := range 8 {
			r := severityReport(t, mask)
			status, _ := r.ExitStatusAt(failOn)
			var buf bytes.Buffer
			if err := r.WriteSARIF(&buf, CIOptions{FailOn: failOn}); err != nil {
				t.Fatal(err)
			}
			errs, pairs := sarifVerdicts(t, buf.Bytes())
			if want := bitsAtOrAbove(mask, failOn); errs[""] != want || (errs[""] > 0) != (status != 0) {
				t.Errorf("--fail-on %s, findings %03b: %d results at level error, exit status %d; want %d", failOn, mask, errs[""], status, want)
			}
			for _, p := range pairs {
				if p != "fail/error" && p != "fail/warning" && p != "fail/note" {
					t.Errorf("--fail-on %s, findings %03b: a result is %s", failOn, mask, p)
				}
			}
			if !bytes.Contains(buf.Bytes(), []byte(fmt.Sprintf(`"exitCode": %d`, status))) {
				t.Errorf("--fail-on %s, findings %03b: no exitCode %d in the invocation", failOn, mask, status)
			}
			res := ServerResult{Name: fmt.Sprintf("s%d", mask), Report: &r, ExitStatus: status, Status: "passed"}
			if status != 0 {
				res.Status = "failed"
			}
			servers = append(servers, res)
		}
		m := NewMulti("servers.txt", servers)
		var buf bytes.Buffer
		if err := m.WriteSARIF(&buf, CIOptions{FailOn: failOn}); err != nil {
			t.Fatal(err)
		}
		errs, _ := sarifVerdicts(t, buf.Bytes())
		failing := 0
		for _, s := range servers {
			if (errs[s.Name] > 0) != (s.Status == "failed") {
				t.Errorf("--all --fail-on %s: server %s %s, %d results at level error", failOn, s.Name, s.Status, errs[s.Name])
			}
			if errs[s.Name] > 0 {
				failing++
			}
		}
		if failing != m.Summary.Failed {
			t.Errorf("--all --fail-on %s: %d servers have errors in SARIF, the table says %d failed", failOn, failing, m.Summary.Failed)
		}
	}
}

// TestSARIFDroppedFindingsFailTheRun: when the findings that fail the run
// are not listed (the retention limit dropped them), the invocation says
// so with an error notification, so the log never passes a run that exits 1.
func TestSARIFDroppedFindingsFailTheRun(t *testing.T) {
	r := severityReport(t, 1)
	r.Findings = nil // as if dropped: the summary still counts the error
	var buf bytes.Buffer
	if err := r.WriteSARIF(&buf, CIOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("dropped by the retention limit")) {
		t.Errorf("no notification of unlisted findings:\n%s", buf.Bytes())
	}
}
