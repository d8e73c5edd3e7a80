package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// allSARIF is what code scanning reads of check --all's SARIF log.
type allSARIF struct {
	Runs []struct {
		Results []struct {
			RuleID    string                `json:"ruleId"`
			Message   struct{ Text string } `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					Region *struct{ StartLine int } `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
			Properties          map[string]any    `json:"properties"`
		} `json:"results"`
	} `json:"runs"`
}

// entryLines are the lines of a config file where each of names stands
// as a key.
func entryLines(t *testing.T, config string, names ...string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		for _, n := range names {
			if strings.Contains(line, quoteJSON(n)+":") {
				out[n] = i + 1
			}
		}
	}
	return out
}

// TestCheckAllSARIFEntriesAndFingerprints: under --all every SARIF result
// points at the line of its server's entry, names the server in its
// message, and has a fingerprint that two runs agree on.
func TestCheckAllSARIFEntriesAndFingerprints(t *testing.T) {
	t.Parallel()
	config := writeAllConfig(t, map[string]string{"stray": "headless-stray-start", "twin": "headless-stray-start", "good": "headless-good"}, "")
	lines := entryLines(t, config, "stray", "twin", "good")
	var prints [2][]string
	for i := range prints {
		sp := filepath.Join(t.TempDir(), "out.sarif")
		runBinary(t, nil, "check", "--config", config, "--all", "--parallel", "3", "--sarif", sp)
		var s allSARIF
		sb, _ := os.ReadFile(sp)
		if err := json.Unmarshal(sb, &s); err != nil || len(s.Runs) != 1 || len(s.Runs[0].Results) == 0 {
			t.Fatalf("sarif: %v\n%s", err, sb)
		}
		for _, r := range s.Runs[0].Results {
			server, _ := r.Properties["server"].(string)
			if reg := r.Locations[0].PhysicalLocation.Region; reg == nil || reg.StartLine != lines[server] {
				t.Errorf("run %d: %s of %q at %+v, want line %d", i, r.RuleID, server, reg, lines[server])
			}
			if !strings.Contains(r.Message.Text, `"`+server+`"`) {
				t.Errorf("run %d: the message %q does not name %q", i, r.Message.Text, server)
			}
			prints[i] = append(prints[i], server+" "+r.RuleID+" "+r.PartialFingerprints["linesman/v1"])
		}
	}
	if strings.Join(prints[0], "\n") != strings.Join(prints[1], "\n") {
		t.Errorf("fingerprints differ between two runs:\n%s\n--\n%s", strings.Join(prints[0], "\n"), strings.Join(prints[1], "\n"))
	}
}

// TestCheckAllJUnitAgreesWithTable: under each --fail-on, the JUnit
// suites that fail are the servers the table calls failed (a server with
// a note and no warning or error fails only under --fail-on note).
func TestCheckAllJUnitAgreesWithTable(t *testing.T) {
	t.Parallel()
	config := writeAllConfig(t, map[string]string{"crlf": "headless-crlf", "good": "headless-good"}, "")
	for _, failOn := range []string{"warning", "note"} {
		jp := filepath.Join(t.TempDir(), "junit.xml")
		status, out, errOut := runBinary(t, nil, "check", "--config", config, "--all", "--json", "--fail-on", failOn, "--junit", jp)
		var doc allDoc
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("not JSON: %v\n%s\n%s", err, out, errOut)
		}
		var j struct {
			Suites []struct {
				Name  string `xml:"name,attr"`
				Cases []struct {
					Failure *struct{} `xml:"failure"`
					Error   *struct{} `xml:"error"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		jb, _ := os.ReadFile(jp)
		if err := xml.NewDecoder(bytes.NewReader(jb)).Decode(&j); err != nil {
			t.Fatalf("junit: %v\n%s", err, jb)
		}
		failing := map[string]bool{}
		for _, s := range j.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil || c.Error != nil {
					failing[s.Name] = true
				}
			}
		}
		for _, s := range doc.Servers {
			if failing[s.Name] != (s.Status == "failed") {
				t.Errorf("--fail-on %s: %s is %s, its suite failing %v\n%s", failOn, s.Name, s.Status, failing[s.Name], jb)
			}
		}
		if want := map[string]int{"warning": 0, "note": 1}[failOn]; doc.Summary.Failed != want || (status != 0) != (want > 0) {
			t.Errorf("--fail-on %s: %d failed, status %d; want %d", failOn, doc.Summary.Failed, status, want)
		}
	}
}
