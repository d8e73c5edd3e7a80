package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// hostileReport is the sample session plus a finding whose message holds
// everything a server could use against a report reader: terminal escapes,
// NUL and other characters XML 1.0 cannot carry, bidi overrides, markup.
func hostileReport(t *testing.T) Report {
	t.Helper()
	l, _ := sampleLog(t)
	l.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
		Finding: wire.Finding{Code: "exited-during-request", Severity: wire.SeverityError,
			Message: "said \x1b]0;pwned\x07 \x00\x01\x0b \u202egnp.exe ]]></failure><x a=\"&\"/> \xff end"}}})
	tr := handshaken(t, l, "2025-06-18", `{"name":"evil\u001b[2J<srv>","version":"1.0"}`)
	return FromLog(l, tr, Meta{Mode: "check", Command: []string{"python3", "server.py", "--flag"}})
}

func TestSARIFStructure(t *testing.T) {
	r := hostileReport(t)
	var buf bytes.Buffer
	if err := r.WriteSARIF(&buf, CIOptions{ConfigFile: ".mcp.json"}); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if bytes.ContainsAny(out, "\x1b\x00\x07\u202e") {
		t.Fatalf("SARIF carries raw control or bidi characters:\n%s", out)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name    string `json:"name"`
					Version string `json:"version"`
					Rules   []struct {
						ID               string                `json:"id"`
						ShortDescription struct{ Text string } `json:"shortDescription"`
						Help             struct{ Text string } `json:"help"`
						Properties       map[string]any        `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string                `json:"ruleId"`
				RuleIndex int                   `json:"ruleIndex"`
				Level     string                `json:"level"`
				Message   struct{ Text string } `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
					LogicalLocations []struct{ FullyQualifiedName string } `json:"logicalLocations"`
				} `json:"locations"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "linesman" || log.Runs[0].Tool.Driver.Version != eventlog.Version {
		t.Fatalf("header: %+v", log)
	}
	run := log.Runs[0]
	if len(run.Results) != len(r.Findings) {
		t.Fatalf("%d results for %d findings", len(run.Results), len(r.Findings))
	}
	codes := map[string]bool{}
	for _, f := range r.Findings {
		codes[f.Code] = true
	}
	if len(run.Tool.Driver.Rules) != len(codes) {
		t.Fatalf("%d rules for %d codes", len(run.Tool.Driver.Rules), len(codes))
	}
	for _, ru := range run.Tool.Driver.Rules {
		info, _ := wire.Lookup(ru.ID)
		if ru.ShortDescription.Text != info.Title || !strings.Contains(ru.Help.Text, info.Why) ||
			!strings.Contains(ru.Help.Text, info.Fix) || ru.Properties["clause"] != info.Spec {
			t.Errorf("rule %s does not carry its registry entry: %+v", ru.ID, ru)
		}
	}
	sawSeq := false
	for i, res := range run.Results {
		f := r.Findings[i]
		if res.RuleID != f.Code || run.Tool.Driver.Rules[res.RuleIndex].ID != f.Code || res.Level != f.Severity {
			t.Errorf("result %d: %+v for %+v", i, res, f)
		}
		loc := res.Locations[0]
		if loc.PhysicalLocation.ArtifactLocation.URI != ".mcp.json" || loc.LogicalLocations[0].FullyQualifiedName != "python3 server.py --flag" {
			t.Errorf("result %d location: %+v", i, loc)
		}
		if f.Seq != nil {
			sawSeq = true
			if res.Properties["seq"] != float64(*f.Seq) {
				t.Errorf("result %d seq %v, want %d", i, res.Properties["seq"], *f.Seq)
			}
		}
	}
	if !sawSeq {
		t.Fatal("no finding with a frame in the sample")
	}
}

func TestSARIFWithoutConfigPointsAtCommand(t *testing.T) {
	r := hostileReport(t)
	var buf bytes.Buffer
	if err := r.WriteSARIF(&buf, CIOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"uri": "python3"`) {
		t.Fatalf("no artifact for the command (server.py does not exist here, so the program):\n%s", buf.String())
	}
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    *int     `xml:"tests,attr"`
	Failures *int     `xml:"failures,attr"`
	Errors   *int     `xml:"errors,attr"`
	Skipped  *int     `xml:"skipped,attr"`
	Time     *string  `xml:"time,attr"`
	Suites   []struct {
		Name     string  `xml:"name,attr"`
		Tests    *int    `xml:"tests,attr"`
		Failures *int    `xml:"failures,attr"`
		Errors   *int    `xml:"errors,attr"`
		Skipped  *int    `xml:"skipped,attr"`
		Time     *string `xml:"time,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemErr string `xml:"system-err"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitStructure(t *testing.T) {
	r := hostileReport(t)
	r.Error = "handshake failed: \x1b[31mred"
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf, CIOptions{Seconds: 1.5}); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if bytes.ContainsAny(out, "\x1b\x00\x01\x07\x0b\u202e") || !bytes.HasPrefix(out, []byte("<?xml")) {
		t.Fatalf("JUnit carries raw control characters or lacks its declaration:\n%s", out)
	}
	var doc junitDoc
	dec := xml.NewDecoder(bytes.NewReader(out))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, out)
	}
	if doc.Tests == nil || doc.Failures == nil || doc.Errors == nil || doc.Time == nil || len(doc.Suites) != 1 { // skipped is no attribute of testsuites in junit-10
		t.Fatalf("testsuites lacks attributes or its suite:\n%s", out)
	}
	s := doc.Suites[0]
	if s.Tests == nil || s.Failures == nil || s.Errors == nil || s.Skipped == nil || s.Time == nil || *s.Time != "1.500" {
		t.Fatalf("testsuite lacks attributes:\n%s", out)
	}
	if !strings.Contains(s.Name, "evil") || strings.Contains(s.Name, "\x1b") {
		t.Errorf("suite name %q: want the server's name, inert", s.Name)
	}
	if *s.Tests != len(s.Cases) || *s.Tests != len(r.Rules)+1 {
		t.Errorf("tests=%d, %d cases, %d families + the run", *s.Tests, len(s.Cases), len(r.Rules))
	}
	var failures, skipped, errors int
	for i, c := range s.Cases {
		if c.Name == "" || c.Classname == "" {
			t.Errorf("case %d lacks name or classname", i)
		}
		if i < len(r.Rules) {
			want := r.Rules[i].Status
			got := "held"
			switch {
			case c.Failure != nil:
				got = "broken"
			case c.Skipped != nil && strings.HasPrefix(c.Skipped.Message, "not applicable"):
				got = "not-applicable"
			case c.Skipped != nil:
				got = "not-observed"
			}
			if got != want {
				t.Errorf("family %s: %s, want %s", r.Rules[i].Family, got, want)
			}
		}
		if c.Failure != nil {
			failures++
			if c.Failure.Message == "" || c.Failure.Type == "" || c.Failure.Text == "" {
				t.Errorf("failure of %s lacks message, type or the findings: %+v", c.Name, c.Failure)
			}
		}
		if c.Skipped != nil {
			skipped++
		}
		if c.Error != nil {
			errors++
		}
	}
	if failures == 0 || failures != *s.Failures || skipped != *s.Skipped || errors != 1 || *s.Errors != 1 || *doc.Failures != failures {
		t.Errorf("counts: failures %d/%d skipped %d/%d errors %d/%d\n%s", failures, *s.Failures, skipped, *s.Skipped, errors, *s.Errors, out)
	}
	if !bytes.Contains(out, []byte("exited-during-request")) || !bytes.Contains(out, []byte("]]&gt;&lt;/failure&gt;")) {
		t.Errorf("the hostile finding is not listed, escaped:\n%s", out)
	}
}

func TestExitStatusAt(t *testing.T) {
	for _, c := range []struct {
		sum                Summary
		errS, warnS, noteS int
	}{
		{Summary{}, 0, 0, 0},
		{Summary{Notes: 1}, 0, 0, 1},
		{Summary{Warnings: 1}, 0, 1, 1},
		{Summary{Errors: 1}, 1, 1, 1},
	} {
		r := Report{Summary: c.sum}
		for level, want := range map[string]int{"error": c.errS, "warning": c.warnS, "note": c.noteS} {
			if got, ok := r.ExitStatusAt(level); !ok || got != want {
				t.Errorf("%+v at %s: %d, want %d", c.sum, level, got, want)
			}
		}
	}
	if _, ok := (&Report{}).ExitStatusAt("info"); ok {
		t.Error("an unknown level accepted")
	}
	if got, _ := (&Report{Error: "no handshake"}).ExitStatusAt("note"); got != 1 {
		t.Errorf("a failed run: %d", got)
	}
}
