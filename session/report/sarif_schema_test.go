package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"linesman/session/eventlog"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles testdata/sarif-2.1.0-linesman.schema.json: the
// constraints of the OASIS SARIF 2.1.0 schema on the objects linesman
// writes (see its $comment), closed objects included, with formats
// asserted.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	return compileSchema(t, "testdata/sarif-2.1.0-linesman.schema.json")
}

// compileSchema compiles a JSON Schema file with formats asserted.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validSARIF reports whether a SARIF log satisfies the schema, and why not.
func validSARIF(t *testing.T, s *jsonschema.Schema, log []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, log)
	}
	return s.Validate(inst)
}

// TestSARIFSchema: the SARIF logs of one server (with findings, a config
// file, a project address, a run that failed) and of check --all (passed,
// failed, skipped and unstartable servers) satisfy the SARIF 2.1.0
// constraints; logs broken on purpose do not, so the check can fail.
func TestSARIFSchema(t *testing.T) {
	s := sarifSchema(t)
	logs := sarifLogs(t)
	for i, log := range logs {
		if err := validSARIF(t, s, log); err != nil {
			t.Errorf("log %d does not satisfy SARIF 2.1.0: %v\n%s", i, err, log)
		}
	}
	good := string(logs[2])
	for name, broken := range map[string]string{
		"unknown level":           strings.Replace(good, `"level": "error"`, `"level": "fatal"`, 1),
		"unknown member":          strings.Replace(good, `"ruleId":`, `"rule": "x", "ruleId":`, 1),
		"no version":              strings.Replace(good, `"version": "2.1.0",`, ``, 1),
		"relative informationUri": strings.Replace(good, `"informationUri": "https://example.org/linesman#readme"`, `"informationUri": "README.md"`, 1),
	} {
		if broken == good {
			t.Fatalf("%s: the log did not change", name)
		}
		if validSARIF(t, s, []byte(broken)) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSARIFOfficialSchema: the same logs validate against the SARIF 2.1.0
// JSON Schema itself, verbatim (testdata/sarif-2.1.0-rtm.5.json; its
// source in the .SOURCE file beside it), and logs it must refuse are
// refused (that schema leaves most objects open, so an unknown member is
// only caught by the stricter restatement above).
func TestSARIFOfficialSchema(t *testing.T) {
	s := compileSchema(t, "testdata/sarif-2.1.0-rtm.5.json")
	logs := sarifLogs(t)
	for i, log := range logs {
		if err := validSARIF(t, s, log); err != nil {
			t.Errorf("log %d does not satisfy the SARIF 2.1.0 schema: %v\n%s", i, err, log)
		}
	}
	good := string(logs[2])
	for name, broken := range map[string]string{
		"unknown level":    strings.Replace(good, `"level": "error"`, `"level": "fatal"`, 1),
		"no version":       strings.Replace(good, `"version": "2.1.0",`, ``, 1),
		"version 2.0.0":    strings.Replace(good, `"version": "2.1.0",`, `"version": "2.0.0",`, 1),
		"version a number": strings.Replace(good, `"version": "2.1.0",`, `"version": 2.1,`, 1),
	} {
		if broken == good {
			t.Fatalf("%s: the log did not change", name)
		}
		if validSARIF(t, s, []byte(broken)) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// sarifLogs writes the SARIF logs under test: one server with findings
// (bare, from a config file, with a project address), one that failed to
// start, and a check --all of passed, failed and skipped servers.
func sarifLogs(t *testing.T) [][]byte {
	t.Helper()
	r := hostileReport(t)
	failed := FromLog(eventlog.NewLog(0), nil, Meta{Mode: "check", Command: []string{"/nonexistent/server"}, Error: "cannot start: \x1b[31mno such file"})
	defer func(old string) { ProjectURL = old }(ProjectURL)
	var logs [][]byte
	for _, c := range []struct {
		url string
		rep *Report
		opt CIOptions
	}{
		{"", &r, CIOptions{}},
		{"", &r, CIOptions{ConfigFile: "/work/a project/.mcp.json"}},
		{"https://example.org/linesman.git", &r, CIOptions{ConfigFile: ".vscode/mcp.json"}},
		{"", &failed, CIOptions{}},
		{"git@github.com:someone/linesman.git", &r, CIOptions{}},
		{"ssh://git@git.example.org:2222/team/linesman.git", &r, CIOptions{}},
	} {
		ProjectURL = c.url
		var buf bytes.Buffer
		if err := c.rep.WriteSARIF(&buf, c.opt); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, buf.Bytes())
	}
	m := NewMulti("servers.txt", []ServerResult{
		{Name: "good", Status: "passed", Report: &r, Line: 3},
		{Name: "bad\u202e", Status: "failed", Report: &failed},
		{Name: "remote", Status: "skipped", Skipped: "a remote (http) server"},
	})
	var buf bytes.Buffer
	if err := m.WriteSARIF(&buf, CIOptions{}); err != nil {
		t.Fatal(err)
	}
	return append(logs, buf.Bytes())
}
