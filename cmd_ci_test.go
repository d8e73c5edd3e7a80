package main

// End-to-end tests of the CI reports: the real binary writes JUnit and
// SARIF files beside its JSON or text report.

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type ciSARIF struct {
	Version string `json:"version"`
	Runs    []struct {
		Results []struct {
			RuleID string `json:"ruleId"`
			Level  string `json:"level"`
		} `json:"results"`
	} `json:"runs"`
}

type ciJUnit struct {
	Suites []struct {
		Name     string `xml:"name,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readCI(t *testing.T, junitPath, sarifPath string) (ciJUnit, ciSARIF) {
	t.Helper()
	var j ciJUnit
	var s ciSARIF
	jb, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(jb, &j); err != nil {
		t.Fatalf("junit: %v\n%s", err, jb)
	}
	sb, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sb, &s); err != nil {
		t.Fatalf("sarif: %v\n%s", err, sb)
	}
	return j, s
}

// TestCheckCIReports: check --json --junit --sarif writes all three, and
// they agree: the stray print is a failed framing test case and an error
// result.
func TestCheckCIReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jp, sp := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out.sarif")
	r, status := checkJSON(t, "headless-stray-start", "--junit", jp, "--sarif", sp)
	if status != 1 {
		t.Fatalf("status %d", status)
	}
	j, s := readCI(t, jp, sp)
	if len(j.Suites) != 1 || j.Suites[0].Failures == 0 {
		t.Fatalf("junit: %+v", j)
	}
	failed := false
	for _, c := range j.Suites[0].Cases {
		if strings.HasPrefix(c.Name, "framing") && c.Failure != nil {
			failed = true
		}
	}
	if !failed {
		t.Errorf("framing is not a failed test case: %+v", j.Suites[0].Cases)
	}
	if len(s.Runs) != 1 || len(s.Runs[0].Results) != len(r.Findings) {
		t.Fatalf("sarif results %+v for %d findings", s.Runs, len(r.Findings))
	}
	found := false
	for _, res := range s.Runs[0].Results {
		found = found || (res.RuleID == "non-json-line" && res.Level == "error")
	}
	if !found {
		t.Errorf("no non-json-line error result: %+v", s.Runs[0].Results)
	}
	if _, err := os.Stat(jp + ".tmp"); err == nil {
		t.Error("temporary file left behind")
	}
}

// TestCheckCIReportsNotStarted: a server that cannot start is an error
// test case, and the text report still goes to the terminal.
func TestCheckCIReportsNotStarted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jp, sp := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out.sarif")
	status, _, _ := runBinary(t, nil, "check", "--junit", jp, "--sarif", sp, "--", "/nonexistent/mcp-server")
	if status != 1 {
		t.Fatalf("status %d", status)
	}
	j, _ := readCI(t, jp, sp)
	if len(j.Suites) != 1 || j.Suites[0].Errors != 1 {
		t.Fatalf("junit: %+v", j)
	}
}

// TestSendCIReports: send writes the CI reports too.
func TestSendCIReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jp, sp := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out.sarif")
	_, status := sendJSON(t, "headless-good", "", "--junit", jp, "--sarif", sp)
	if status != 0 {
		t.Fatalf("status %d", status)
	}
	j, s := readCI(t, jp, sp)
	if len(j.Suites) != 1 || j.Suites[0].Failures != 0 || s.Version != "2.1.0" {
		t.Fatalf("junit %+v sarif %+v", j, s)
	}
}

// TestCheckConfigSARIFPointsAtConfig: started from a host config, the SARIF
// results point at the config file, and no env value of it is written.
func TestCheckConfigSARIFPointsAtConfig(t *testing.T) {
	t.Parallel()
	path, _ := writeConfig(t)
	sp := filepath.Join(t.TempDir(), "out.sarif")
	cmd := exec.Command(linesmanBinary(t), "check", "--sarif", sp, "--config", path, "good")
	cmd.Env = append(os.Environ(), "LINESMAN_TEST_FAKE=headless-stray-start")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("check passed a stray print:\n%s", out)
	}
	b, err := os.ReadFile(sp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"uri": "file://`+filepath.ToSlash(path)+`"`) || strings.Contains(string(b), "do-not-print-me") {
		t.Fatalf("SARIF does not point at %s (or prints an env value):\n%s", path, b)
	}
}

// TestCheckFailOn: a server whose only findings are notes passes by
// default and fails under --fail-on note; an unknown level is a usage error.
func TestCheckFailOn(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-crlf")
	if status != 0 || *r.Summary.Errors != 0 || *r.Summary.Warnings != 0 || *r.Summary.Notes == 0 {
		t.Fatalf("status %d, summary %+v: want notes only, passing", status, r.Summary)
	}
	if _, status = checkJSON(t, "headless-crlf", "--fail-on", "warning"); status != 0 {
		t.Errorf("--fail-on warning: status %d, want 0 (notes only)", status)
	}
	if _, status = checkJSON(t, "headless-crlf", "--fail-on", "note"); status != 1 {
		t.Errorf("--fail-on note: status %d, want 1", status)
	}
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--fail-on", "info"}, fakeServerArgs("headless-good")...)...); status != exitUsage || !strings.Contains(string(errOut), "--fail-on") {
		t.Errorf("--fail-on info: status %d, stderr %s", status, errOut)
	}
}

// TestCIHelpHidesInternalFlags: --config-origin, which --config passes to
// check and send, is not offered by their --help; the CI flags are.
func TestCIHelpHidesInternalFlags(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"check", "send"} {
		_, out, _ := runBinary(t, nil, mode, "--help")
		if strings.Contains(string(out), "config-origin") {
			t.Errorf("%s --help lists --config-origin:\n%s", mode, out)
		}
		for _, f := range []string{"-junit FILE", "-sarif FILE", "-fail-on string", "-timeout duration"} {
			if !strings.Contains(string(out), f) {
				t.Errorf("%s --help does not list %s", mode, f)
			}
		}
	}
}

// TestSARIFPointsAtTheCapturedFrame: a single server recorded with
// --capture (no config entry): each SARIF result of a frame points at the
// capture, at the line that frame's record is on.
func TestSARIFPointsAtTheCapturedFrame(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath, sp := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "out.sarif")
	runBinary(t, nil, append([]string{"check", "--capture", capPath, "--sarif", sp}, fakeServerArgs("headless-stray-start")...)...)
	var s struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct{ StartLine int }
					} `json:"physicalLocation"`
				} `json:"locations"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	sb, _ := os.ReadFile(sp)
	if err := json.Unmarshal(sb, &s); err != nil || len(s.Runs) != 1 {
		t.Fatalf("%v\n%s", err, sb)
	}
	records, _ := os.ReadFile(capPath)
	lines := strings.Split(string(records), "\n")
	framed := 0
	for _, r := range s.Runs[0].Results {
		pl := r.Locations[0].PhysicalLocation
		if !strings.HasSuffix(pl.ArtifactLocation.URI, "run.jsonl") {
			t.Errorf("a result points at %s, not the capture", pl.ArtifactLocation.URI)
			continue
		}
		seq, ok := r.Properties["seq"].(float64)
		if !ok {
			continue
		}
		framed++
		if n := pl.Region.StartLine; n < 1 || n > len(lines) || !strings.Contains(lines[n-1], fmt.Sprintf(`"type":"frame","seq":%d,`, int(seq))) {
			t.Errorf("the result of frame %d points at line %d", int(seq), n)
		}
	}
	if framed == 0 {
		t.Fatalf("no result of a frame:\n%s", sb)
	}
}
