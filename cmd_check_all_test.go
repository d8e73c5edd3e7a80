package main

// End-to-end tests of check --config FILE --all: every server of a config,
// checked by a pool of workers, in one report and one exit status.

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// allDoc is the JSON document of check --all, as a consumer decodes it.
type allDoc struct {
	Mode    string `json:"mode"`
	Config  string `json:"config"`
	Servers []struct {
		Name       string   `json:"name"`
		Status     string   `json:"status"`
		Skipped    string   `json:"skipped"`
		ExitStatus int      `json:"exitStatus"`
		Report     *jReport `json:"report"`
	} `json:"servers"`
	Summary struct {
		Servers, Passed, Failed, Skipped int
	} `json:"summary"`
}

// writeAllConfig writes a Claude Code .mcp.json whose servers are the
// named fake servers of this test binary, plus extra entries as written.
func writeAllConfig(t *testing.T, fakes map[string]string, extra string) string {
	t.Helper()
	var entries []string
	for name, fake := range fakes {
		entries = append(entries, quoteJSON(name)+`: {"command": `+quoteJSON(testBinary)+`, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": `+quoteJSON(fake)+`}}`)
	}
	if extra != "" {
		entries = append(entries, extra)
	}
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`+strings.Join(entries, ",\n")+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckAllMixedServers: a good, a failing, a hanging, an unstartable
// and a remote server: the run ends (the hung one cut by --server-timeout,
// while the others go on beside it), reports each in the JSON document,
// a JUnit suite per server and one SARIF run located at the config, and
// exits 1.
func TestCheckAllMixedServers(t *testing.T) {
	t.Parallel()
	config := writeAllConfig(t, map[string]string{"good": "headless-good", "stray": "headless-stray-start", "deaf": "qa-deaf"},
		`"missing": {"command": "/nonexistent/mcp-server"}, "remote": {"type": "http", "url": "https://example.com/mcp"}`)
	dir := t.TempDir()
	jp, sp := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "out.sarif")
	// --server-timeout cuts the deaf server long before its handshake's own
	// bound (--timeout 60s); the others end on their own well within it.
	status, out, errOut := runBinary(t, nil, "check", "--config", config, "--all", "--json", "--parallel", "3",
		"--server-timeout", "20s", "--junit", jp, "--sarif", sp)
	var doc allDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("status %d, not JSON: %v\n%s\n%s", status, err, out, errOut)
	}
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	got := map[string]string{}
	for _, s := range doc.Servers {
		got[s.Name] = s.Status
		switch s.Name {
		case "deaf":
			if s.Report == nil || !strings.Contains(s.Report.Error, "--server-timeout 20s") {
				t.Errorf("deaf: not cut by --server-timeout: %+v", s.Report)
			}
		case "missing":
			if s.Report == nil || !strings.Contains(s.Report.Error, "/nonexistent/mcp-server") || s.Report.Process.Pid != 0 {
				t.Errorf("missing: %+v", s.Report)
			}
		case "stray":
			if s.Report == nil || len(s.Report.findings(t, "non-json-line")) == 0 {
				t.Errorf("stray: no non-json-line")
			}
		case "remote":
			if !strings.Contains(s.Skipped, "remote") {
				t.Errorf("remote: skipped %q", s.Skipped)
			}
		}
	}
	want := map[string]string{"good": "passed", "stray": "failed", "deaf": "failed", "missing": "failed", "remote": "skipped"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("statuses %v, want %v\nstderr:\n%s", got, want, errOut)
	}
	if doc.Summary.Servers != 5 || doc.Summary.Passed != 1 || doc.Summary.Failed != 3 || doc.Summary.Skipped != 1 || doc.Mode != "check-all" {
		t.Errorf("summary %+v", doc.Summary)
	}
	if !strings.Contains(string(errOut), "[missing] ") {
		t.Errorf("stderr does not say which server could not start:\n%s", errOut)
	}
	checkAllCIFiles(t, jp, sp, config)
}

// checkAllCIFiles: one JUnit suite per server, named by its entry; one
// SARIF run whose results point at the config file and name their server.
func checkAllCIFiles(t *testing.T, jp, sp, config string) {
	t.Helper()
	var j ciJUnit
	jb, _ := os.ReadFile(jp)
	if err := xml.Unmarshal(jb, &j); err != nil {
		t.Fatalf("junit: %v\n%s", err, jb)
	}
	suites := map[string]bool{}
	for _, s := range j.Suites {
		suites[s.Name] = true
	}
	if len(j.Suites) != 5 || !suites["good"] || !suites["deaf"] || !suites["remote"] {
		t.Errorf("junit suites: %v", suites)
	}
	var s struct {
		Runs []struct {
			Invocations []struct{} `json:"invocations"`
			Results     []struct {
				RuleID     string         `json:"ruleId"`
				Properties map[string]any `json:"properties"`
				Locations  []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	sb, _ := os.ReadFile(sp)
	if err := json.Unmarshal(sb, &s); err != nil || len(s.Runs) != 1 {
		t.Fatalf("sarif: %v\n%s", err, sb)
	}
	stray := false
	for _, r := range s.Runs[0].Results {
		if !strings.HasSuffix(r.Locations[0].PhysicalLocation.ArtifactLocation.URI, filepath.ToSlash(config)) {
			t.Errorf("result %s at %+v, not the config", r.RuleID, r.Locations)
		}
		stray = stray || (r.RuleID == "non-json-line" && r.Properties["server"] == "stray")
	}
	if !stray || len(s.Runs[0].Invocations) != 4 {
		t.Errorf("sarif: stray's non-json-line %v, %d invocations (want 4: every server started or tried)", stray, len(s.Runs[0].Invocations))
	}
}

// TestCheckAllPlainList: a *.txt list (names, KEY=VALUE words, commands)
// is a config too; a text report ends with the summary table; a list all
// of whose servers pass exits 0.
func TestCheckAllPlainList(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "servers.txt")
	bin := quoteShell(testBinary)
	list := "# servers of this project\n\n" +
		"first  LINESMAN_FAKE_SERVER=headless-good " + bin + " -test.run='^$'\n" +
		"second LINESMAN_FAKE_SERVER=headless-go-sdk " + bin + " \"-test.run=^$\"\n"
	if err := os.WriteFile(path, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	status, out, errOut := runBinary(t, nil, "check", "--config", path, "--all", "--parallel", "2")
	text := string(out)
	if status != 0 || !strings.Contains(text, "2 passed, 0 failed, 0 skipped") {
		t.Fatalf("status %d\n%s\n%s", status, text, errOut)
	}
	for _, row := range []string{"first", "second"} {
		if !strings.Contains(text, "  "+row+" ") {
			t.Errorf("no row for %s:\n%s", row, text)
		}
	}
}

// quoteShell quotes s for a POSIX shell (and the plain list).
func quoteShell(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestCheckAllUsage: --all without --config, with a NAME, with --log,
// with --capture naming a file (it takes a directory), and a list that
// does not parse are usage errors saying why.
func TestCheckAllUsage(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.list")
	os.WriteFile(bad, []byte("one 'unterminated\n"), 0o600)
	config := writeAllConfig(t, map[string]string{"good": "headless-good"}, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--all"}, "--config FILE"},
		{[]string{"check", "--config", config, "--all", "good"}, "give no NAME"},
		{[]string{"check", "--config", config, "--all", "--log", "x.log"}, "--log"},
		{[]string{"check", "--config", config, "--all", "--capture", bad}, "not a file"},
		{[]string{"check", "--config", config, "--all", "--parallel", "0"}, "--parallel"},
		{[]string{"check", "--config", bad, "--all"}, "bad.list:1"},
	} {
		status, _, errOut := runBinary(t, nil, c.args...)
		if status != exitUsage || !strings.Contains(string(errOut), c.want) {
			t.Errorf("%v: status %d, stderr %s", c.args, status, errOut)
		}
	}
}

// TestCheckAllSkipsAZedExtension: an entry a Zed extension supplies is
// listed and skipped, not counted as a failed server.
func TestCheckAllSkipsAZedExtension(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "zed")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "settings.json")
	config := `{"context_servers": {
  "good": {"command": ` + quoteJSON(testBinary) + `, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": "headless-good"}},
  "github": {"source": "extension", "settings": {"github_personal_access_token": "ghp_notprinted0123456789"}},
}}`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	status, out, errOut := runBinary(t, nil, "check", "--config", path, "--all")
	text := string(out)
	if status != 0 || !strings.Contains(text, "1 passed, 0 failed, 1 skipped") || !strings.Contains(text, "Zed extension") {
		t.Fatalf("status %d\n%s\n%s", status, text, errOut)
	}
}
