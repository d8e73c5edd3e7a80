package main

// End-to-end tests of check --baseline FILE: the first run records the
// server's definitions, later runs report drift against them.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"linesman/wire"
)

// TestCheckBaselineDrift: a first run records and passes; a run of the
// changed server raises a drift finding per change (the breaking ones
// errors, so it fails), in the JSON report with the drift family broken;
// a run of the unchanged server holds, and the file is left as it was.
func TestCheckBaselineDrift(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "baseline.json")
	args := func(tools, prompts string) []string {
		return append([]string{"check", "--json", "--baseline", base}, driftArgs(tools, prompts)...)
	}
	status, out, errOut := runBinary(t, nil, args(driftToolsA, driftPromptsA)...)
	if status != 0 || !strings.Contains(string(errOut), `recorded "default": 3 tools, 1 prompts, 0 resources`) {
		t.Fatalf("first run: status %d\n%s\n%s", status, out, errOut)
	}
	if st, listed := familyStatus(t, out, "drift"); listed {
		t.Errorf("first run lists the drift family (%s): nothing was compared", st)
	}
	recorded, err := os.ReadFile(base)
	if err != nil || !bytes.Contains(recorded, []byte(`"delete_page"`)) {
		t.Fatalf("baseline file: %v\n%s", err, recorded)
	}

	r, status := decodeRun(t, nil, args(driftToolsB, driftPromptsB)...)
	if status != 1 {
		t.Errorf("drifted run: status %d, want 1", status)
	}
	for code, name := range map[string]string{
		"tool-description-changed": `"search"`, "tool-input-schema-breaking": "inputSchema.limit removed",
		"tool-removed": `"delete_page"`, "tool-added": `"shell"`, "tool-definition-changed": "inputSchema.until added",
		"prompt-definition-changed": `argument "style" is now required`,
	} {
		fs := r.findings(t, code)
		if len(fs) != 1 || !strings.Contains(fs[0].Message, name) || fs[0].Severity != registrySeverity(t, code) {
			t.Errorf("%s: %+v, want one naming %s", code, fs, name)
		}
	}
	if f := r.findings(t, "tool-added")[0]; r.frame(t, f.Seq).InReplyTo == nil {
		t.Errorf("tool-added points at no listing: %+v", f)
	}
	_, out, _ = runBinary(t, nil, args(driftToolsB, driftPromptsB)...)
	if st, _ := familyStatus(t, out, "drift"); st != "broken" {
		t.Errorf("drift family %q, want broken", st)
	}

	status, out, errOut = runBinary(t, nil, args(driftToolsA, driftPromptsA)...)
	if st, _ := familyStatus(t, out, "drift"); status != 0 || st != "held" || strings.Contains(string(errOut), "recorded") {
		t.Errorf("unchanged run: status %d, drift %q\n%s", status, st, errOut)
	}
	if now, _ := os.ReadFile(base); !bytes.Equal(now, recorded) {
		t.Error("a run that recorded nothing rewrote the baseline file")
	}
}

// TestCheckBaselineAll: with --all each entry is kept under its name; a
// drift in one server fails that server only; a file that is not a
// baseline is a usage error.
func TestCheckBaselineAll(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "baseline.json")
	config := func(toolsB string) string {
		return writeAllConfig(t, nil, `"one": {"command": `+quoteJSON(testBinary)+`, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": "drift", "DRIFT_TOOLS": `+quoteJSON(driftToolsA)+`, "DRIFT_PROMPTS": "[]"}},`+
			`"two": {"command": `+quoteJSON(testBinary)+`, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": "drift", "DRIFT_TOOLS": `+quoteJSON(toolsB)+`, "DRIFT_PROMPTS": "[]"}}`)
	}
	status, _, errOut := runBinary(t, nil, "check", "--config", config(driftToolsA), "--all", "--baseline", base)
	if status != 0 || !strings.Contains(string(errOut), `recorded "one"`) || !strings.Contains(string(errOut), `recorded "two"`) {
		t.Fatalf("first run: status %d\n%s", status, errOut)
	}
	status, out, errOut := runBinary(t, nil, "check", "--config", config(driftToolsB), "--all", "--baseline", base, "--json")
	var doc allDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	got := map[string]string{}
	for _, s := range doc.Servers {
		got[s.Name] = s.Status
	}
	if status != 1 || got["one"] != "passed" || got["two"] != "failed" {
		t.Errorf("status %d, servers %v", status, got)
	}
	notBaseline := filepath.Join(t.TempDir(), "other.json")
	os.WriteFile(notBaseline, []byte(`[1,2]`), 0o600)
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--baseline", notBaseline}, fakeServerArgs("headless-good")...)...); status != exitUsage || !strings.Contains(string(errOut), "not a baseline") {
		t.Errorf("a file that is not a baseline: status %d\n%s", status, errOut)
	}
}

// familyStatus reads a family's status from the rules of a JSON report.
func familyStatus(t *testing.T, out []byte, family string) (status string, listed bool) {
	t.Helper()
	var r struct {
		Rules []struct{ Family, Status string } `json:"rules"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	for _, ru := range r.Rules {
		if ru.Family == family {
			return ru.Status, true
		}
	}
	return "", false
}

// TestCheckBaselineOnlyWhatWasSeen: a server that never answered a
// listing in this run — one that crashed at start, one that never answered
// the handshake — gets no drift finding from the baseline (no tool-removed
// for tools it never had the chance to list), the baseline is left as it
// was, and stderr and the report say why.
func TestCheckBaselineOnlyWhatWasSeen(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "baseline.json")
	status, out, errOut := runBinary(t, nil, append([]string{"check", "--baseline", base}, driftArgs(driftToolsA, driftPromptsA)...)...)
	if status != 0 {
		t.Fatalf("first run: status %d\n%s\n%s", status, out, errOut)
	}
	recorded, _ := os.ReadFile(base)
	for _, fake := range []string{"headless-exit-at-once", "qa-deaf"} {
		args := append([]string{"check", "--json", "--timeout", "500ms", "--baseline", base}, fakeServerArgs(fake)...)
		status, out, errOut := runBinary(t, nil, args...)
		var r struct {
			Findings []jFinding
			Notes    []struct{ Text string } `json:"linesmanNotes"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v\n%s\n%s", fake, err, out, errOut)
		}
		for _, f := range r.Findings {
			if info, _ := wire.Lookup(f.Code); info.Family == wire.FamilyDrift {
				t.Errorf("%s: drift from a run that listed nothing: %s %s", fake, f.Code, f.Message)
			}
		}
		if st, listed := familyStatus(t, out, "drift"); listed {
			t.Errorf("%s: the drift family is %s, though nothing was compared", fake, st)
		}
		if !strings.Contains(string(errOut), `"default" listed nothing in this run`) {
			t.Errorf("%s: stderr does not say the baseline was not used (status %d):\n%s", fake, status, errOut)
		}
		if !slices.ContainsFunc(r.Notes, func(n struct{ Text string }) bool { return strings.Contains(n.Text, "--baseline") }) {
			t.Errorf("%s: the report does not say the baseline was not used: %+v", fake, r.Notes)
		}
		if now, _ := os.ReadFile(base); !bytes.Equal(now, recorded) {
			t.Errorf("%s: a run that listed nothing rewrote the baseline:\n%s", fake, now)
		}
	}
}

// TestCheckBaselineAllRecordsOnlyWhatWasListed: check --all --baseline
// never records a server that listed nothing (one that never answered is
// not "0 tools, listed: []"); the next run that lists records it then,
// instead of calling all its tools new.
func TestCheckBaselineAllRecordsOnlyWhatWasListed(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "baseline.json")
	config := func(second string) string {
		return writeAllConfig(t, nil, `"one": {"command": `+quoteJSON(testBinary)+`, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": "drift", "DRIFT_TOOLS": `+quoteJSON(driftToolsA)+`, "DRIFT_PROMPTS": "[]"}},`+
			`"two": {"command": `+quoteJSON(testBinary)+`, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": `+quoteJSON(second)+`, "DRIFT_TOOLS": `+quoteJSON(driftToolsA)+`, "DRIFT_PROMPTS": "[]"}}`)
	}
	_, out, errOut := runBinary(t, nil, "check", "--config", config("qa-deaf"), "--all", "--timeout", "500ms", "--baseline", base)
	if !strings.Contains(string(errOut), `recorded "one"`) || strings.Contains(string(errOut), `recorded "two"`) ||
		!strings.Contains(string(errOut), `"two" listed nothing in this run`) {
		t.Errorf("first run, two never answered:\n%s\n%s", errOut, out)
	}
	var file struct {
		Servers map[string]json.RawMessage `json:"servers"`
	}
	data, _ := os.ReadFile(base)
	if err := json.Unmarshal(data, &file); err != nil || file.Servers["one"] == nil || file.Servers["two"] != nil {
		t.Fatalf("baseline file (%v):\n%s", err, data)
	}
	status, out, errOut := runBinary(t, nil, "check", "--config", config("drift"), "--all", "--baseline", base)
	if status != 0 || !strings.Contains(string(errOut), `recorded "two": 3 tools`) {
		t.Errorf("second run, two listed: status %d\n%s\n%s", status, errOut, out)
	}
}
