package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// sarifDoc is what GitHub code scanning reads of a SARIF log.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				InformationURI string `json:"informationUri"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			Properties map[string]any `json:"properties"`
		} `json:"invocations"`
		Results []struct {
			RuleID    string                `json:"ruleId"`
			Message   struct{ Text string } `json:"message"`
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					Region           *struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Properties          map[string]any    `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

func decodeSARIF(t *testing.T, log []byte) sarifDoc {
	t.Helper()
	var doc sarifDoc
	if err := json.Unmarshal(log, &doc); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	return doc
}

// githubRules checks what GitHub's code scanning requires beyond the
// schema: every result located at a file and a line (region.startLine),
// with partialFingerprints, no two results of a run sharing one, and the
// tool's informationUri an absolute https address when present.
func githubRules(doc sarifDoc) error {
	for _, run := range doc.Runs {
		if u := run.Tool.Driver.InformationURI; u != "" && !strings.HasPrefix(u, "https://") {
			return fmt.Errorf("informationUri %q is no https address", u)
		}
		seen := map[string]bool{}
		for i, res := range run.Results {
			if len(res.Locations) == 0 || res.Locations[0].PhysicalLocation == nil ||
				res.Locations[0].PhysicalLocation.Region == nil || res.Locations[0].PhysicalLocation.Region.StartLine < 1 {
				return fmt.Errorf("result %d (%s) has no region.startLine", i, res.RuleID)
			}
			if len(res.PartialFingerprints) == 0 {
				return fmt.Errorf("result %d (%s) has no partialFingerprints", i, res.RuleID)
			}
			for k, v := range res.PartialFingerprints {
				if seen[k+"="+v] {
					return fmt.Errorf("result %d (%s) shares its fingerprint %s", i, res.RuleID, v)
				}
				seen[k+"="+v] = true
			}
		}
	}
	return nil
}

// TestSARIFGitHubRules: every log under test meets code scanning's rules
// (a line and a fingerprint per result); under --all each result points
// at its server's entry line and its message names the server. A log
// stripped of them is refused, so the check can fail.
func TestSARIFGitHubRules(t *testing.T) {
	logs := sarifLogs(t)
	for i, log := range logs {
		if err := githubRules(decodeSARIF(t, log)); err != nil {
			t.Errorf("log %d: %v", i, err)
		}
	}
	all := decodeSARIF(t, logs[len(logs)-1])
	for _, res := range all.Runs[0].Results {
		server, _ := res.Properties["server"].(string)
		wantLine := map[string]int{"good": 3}[server]
		if got := res.Locations[0].PhysicalLocation.Region.StartLine; got != max(wantLine, 1) {
			t.Errorf("--all: %s of %q at line %d, want %d", res.RuleID, server, got, max(wantLine, 1))
		}
		if !strings.HasPrefix(res.Message.Text, fmt.Sprintf("server %q: ", server)) {
			t.Errorf("--all: the message %q does not name its server %q", res.Message.Text, server)
		}
	}
	for name, broken := range map[string]string{
		"no region":      strings.Replace(string(logs[0]), `"region"`, `"regio"`, 1),
		"no fingerprint": strings.Replace(string(logs[0]), `"partialFingerprints"`, `"partialFingerprint"`, 1),
	} {
		if githubRules(decodeSARIF(t, []byte(broken))) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// crashLog is a session whose volatile parts (pid, times, seqs, the exit
// code and duration in the message) vary with shift.
func crashLog(shift int) *eventlog.Log {
	l := eventlog.NewLog(0)
	for range shift {
		l.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: []byte("starting"), Term: wire.TermLF}})
	}
	l.Append(eventlog.Event{Type: eventlog.EventProcess, Process: &eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 4000 + shift}})
	appendFrame(l, wire.ClientToServer, handFrame(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		wire.Message{Kind: wire.KindRequest, ID: wire.IntID(1), Method: "tools/list"}))
	for range 2 {
		appendFrame(l, wire.ServerToClient, handFrame("debug: pid "+fmt.Sprint(4000+shift),
			wire.Message{Kind: wire.KindNonJSON},
			wire.Finding{Code: "non-json-line", Severity: wire.SeverityError, Message: fmt.Sprintf("a line that is not JSON (%d bytes)", 10+shift)}))
	}
	l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
		Finding: wire.Finding{Code: "exit-at-start", Severity: wire.SeverityError, Message: fmt.Sprintf("exited %d after %d ms", shift, 12+shift)}}})
	return l
}

// TestSARIFFingerprintsStable: the same findings of the same server get
// the same fingerprints on every run, whatever the times, pids, seqs and
// numbers in the messages; another server, or another finding, another.
func TestSARIFFingerprintsStable(t *testing.T) {
	prints := func(shift int, server string) []string {
		r := FromLog(crashLog(shift), nil, Meta{Mode: "check", Command: []string{"python3", "server.py"}})
		m := NewMulti(".mcp.json", []ServerResult{{Name: server, Status: "failed", Report: &r, Line: 4}})
		var buf bytes.Buffer
		if err := m.WriteSARIF(&buf, CIOptions{}); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, res := range decodeSARIF(t, buf.Bytes()).Runs[0].Results {
			out = append(out, res.PartialFingerprints[fingerprintKey])
		}
		return out
	}
	a, b, other := prints(0, "weather"), prints(3, "weather"), prints(0, "github")
	if len(a) != 3 || strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("fingerprints changed between runs:\n%v\n%v", a, b)
	}
	if a[0] == a[1] {
		t.Errorf("two findings share a fingerprint: %v", a)
	}
	for i := range a {
		if a[i] == other[i] {
			t.Errorf("servers weather and github share the fingerprint %s", a[i])
		}
	}
}

// TestProjectWebURL: informationUri and helpUri are https addresses (or
// left out) whatever form of git URL the build was given.
func TestProjectWebURL(t *testing.T) {
	defer func(old string) { ProjectURL = old }(ProjectURL)
	for in, want := range map[string]string{
		"":                                   "",
		"https://github.com/o/linesman.git":  "https://github.com/o/linesman",
		"https://github.com/o/linesman/":     "https://github.com/o/linesman",
		"git@github.com:o/linesman.git":      "https://github.com/o/linesman",
		"ssh://git@example.org:2222/o/l.git": "https://example.org/o/l",
		"git://example.org/o/l":              "https://example.org/o/l",
		"/srv/git/linesman.git":              "",
		"../linesman":                        "",
		"file:///srv/git/linesman":           "",
	} {
		ProjectURL = in
		if got := projectWebURL(); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
		wantInfo := ""
		if want != "" {
			wantInfo = want + "#readme"
		}
		if got := InformationURI(); got != wantInfo {
			t.Errorf("%q: informationUri %q, want %q", in, got, wantInfo)
		}
	}
}
