package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"linesman/capture"
	"linesman/session/report"
)

// TestCheckFromJudgesRecordedConversations runs check --from on a foreign
// log of each kind: the report is the check report, the rules judged the
// frames, and the rule families say what held, broke or was not observed.
func TestCheckFromJudgesRecordedConversations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file   string
		status int
		code   string // a finding the report must hold ("" for none)
		broken string // a family that must be broken ("" for none)
	}{
		{"capture/testdata/corpus/2026-07-28/retry-reused-id--retry-reusing-id.jsonl", exitFindings, "retry-reused-id", "multi-round"},
		{"capture/testdata/corpus/2025-11-25/tool-name-invalid--tool-name-bad-charset.jsonl", exitOK, "tool-name-invalid", "tools"},
		{"capture/testdata/claude-desktop.log", exitOK, "", ""},
		{"capture/testdata/mcpsnoop.jsonl", exitFindings, "non-json-line", "framing"},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			var out, errb bytes.Buffer
			st := runArgs([]string{"check", "--json", "--from", tc.file}, nil, &out, &errb)
			if st != tc.status {
				t.Fatalf("status %d, want %d; stderr %s", st, tc.status, errb.String())
			}
			var rep struct {
				Findings []struct{ Code string } `json:"findings"`
				Rules    []struct{ Family, Status string }
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			if tc.code != "" && !strings.Contains(out.String(), `"code": "`+tc.code+`"`) {
				t.Errorf("no %s finding:\n%s", tc.code, out.String())
			}
			if len(rep.Rules) < 15 {
				t.Fatalf("rules: %+v", rep.Rules)
			}
			for _, r := range rep.Rules {
				if r.Family == tc.broken && r.Status != "broken" {
					t.Errorf("family %s is %s, want broken", r.Family, r.Status)
				}
				if r.Family == "subscriptions" && r.Status != "not-observed" && r.Status != "not-applicable" {
					t.Errorf("subscriptions is %s; nothing subscribed", r.Status)
				}
			}
		})
	}
}

func TestCheckFromUsage(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if st := runArgs([]string{"check", "--from", "x.jsonl", "--", "server"}, nil, &out, &errb); st != exitUsage {
		t.Errorf("a file and a command: status %d, want %d", st, exitUsage)
	}
	errb.Reset()
	if st := runArgs([]string{"check", "--from", filepath.Join(t.TempDir(), "missing")}, nil, &out, &errb); st != exitFindings || !strings.Contains(errb.String(), "no such file") {
		t.Errorf("a missing file: status %d, stderr %q", st, errb.String())
	}
}

// TestCheckFromTextIsTheFullReports: check --from's text report, which
// lists only the frames a finding points at, says what the report of
// every frame says, for every recording in the corpus and the foreign logs.
func TestCheckFromTextIsTheFullReports(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("capture/testdata/corpus/*/*.jsonl")
	files = append(files, "capture/testdata/claude-desktop.log", "capture/testdata/mcpsnoop.jsonl")
	if len(files) < 50 {
		t.Fatalf("only %d recordings found", len(files))
	}
	for _, file := range files {
		var out, errb bytes.Buffer
		st := runArgs([]string{"check", "--from", file}, nil, &out, &errb)
		rep, err := capture.ReportOf(file, report.Meta{Mode: "check", HostSection: true}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := rep.WriteText(&want); err != nil {
			t.Fatal(err)
		}
		if out.String() != want.String() || st != rep.ExitStatus() {
			t.Errorf("%s: status %d, the full report's %d; text:\n%s\nthe full report's:\n%s", file, st, rep.ExitStatus(), out.String(), want.String())
		}
	}
}
