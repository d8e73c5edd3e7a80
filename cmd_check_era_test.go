package main

import (
	"strings"
	"testing"
)

// check --era modern against a server of the legacy era (server/discover
// answered -32601) fails clearly: an era-not-spoken error that names the
// era the server does speak, nothing listed, exit 1. It used to note
// "staying in the modern era as asked" and pass with no findings.
func TestCheckEraModernAgainstALegacyServerFails(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-good", "--era", "modern")
	if status != 1 {
		t.Errorf("status %d, want 1", status)
	}
	fs := r.findings(t, "era-not-spoken")
	if len(fs) != 1 {
		t.Fatalf("era-not-spoken findings: %d, want 1 (codes %v)", len(fs), r.codes())
	}
	msg := fs[0].Message
	for _, want := range []string{"does not speak", "-32601", "legacy era", "--era legacy"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the finding %q does not say %q", msg, want)
		}
	}
	for _, q := range r.Requests {
		if q.Dir == "c2s" && q.Method != "server/discover" {
			t.Errorf("sent %s after the server refused the era", q.Method)
		}
	}
}
