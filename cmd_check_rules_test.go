package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// jRule is one entry of a JSON report's "rules".
type jRule struct {
	Family, Status string
	Judged         int
}

// checkRules runs check --json on a fake server and returns its rules by
// family.
func checkRules(t *testing.T, fake string) map[string]jRule {
	t.Helper()
	_, out, errOut := runBinary(t, nil, append([]string{"check", "--json"}, fakeServerArgs(fake)...)...)
	var rep struct{ Rules []jRule }
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Rules) == 0 {
		t.Fatalf("no rules (%v):\n%s\n%s", err, out, errOut)
	}
	rules := map[string]jRule{}
	for _, r := range rep.Rules {
		rules[r.Family] = r
	}
	return rules
}

// TestCheckRulesSilentServerHoldsNothing: a server that exits having
// written no byte gave the rules nothing to judge: framing, ids, shapes
// and meta are not held (linesman's own requests are not the server's).
func TestCheckRulesSilentServerHoldsNothing(t *testing.T) {
	t.Parallel()
	rules := checkRules(t, "headless-exit-at-once")
	for _, fam := range []string{"framing", "ids", "shapes", "meta", "lifecycle"} {
		if r := rules[fam]; r.Status == "held" || r.Judged != 0 {
			t.Errorf("%s: %s, %d judged; the server wrote nothing", fam, r.Status, r.Judged)
		}
	}
}

// TestCheckRulesLegacyCounts: in a legacy session the families held say
// how much they judged, the 2026-07-28 families are not applicable (listed
// apart in the text) and the meta family never holds.
func TestCheckRulesLegacyCounts(t *testing.T) {
	t.Parallel()
	rules := checkRules(t, "headless-good")
	if r := rules["framing"]; r.Status != "held" || r.Judged < 2 {
		t.Errorf("framing: %s, %d judged; want held, the server's frames counted", r.Status, r.Judged)
	}
	for _, fam := range []string{"caching", "multi-round", "subscriptions"} {
		if r := rules[fam]; r.Status != "not-applicable" {
			t.Errorf("%s: %s, want not-applicable in a legacy session", fam, r.Status)
		}
	}
	if r := rules["meta"]; r.Status == "held" {
		t.Errorf("meta held in a legacy session (%d judged)", r.Judged)
	}
	_, out, _ := runBinary(t, nil, append([]string{"check"}, fakeServerArgs("headless-good")...)...)
	text := string(out)
	if !strings.Contains(text, "held (") || !strings.Contains(text, "not applicable to ") || strings.Contains(text, "exercised and kept") {
		t.Errorf("the text table lacks the counts or the families apart:\n%s", text)
	}
}
