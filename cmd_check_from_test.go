package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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
