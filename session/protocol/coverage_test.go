package protocol

import (
	"strings"
	"testing"
)

// coverageOf is the judge's coverage after a conversation, by family.
func coverageOf(t *testing.T, conv string) map[string]FamilyStatus {
	t.Helper()
	j, _ := run(t, conv)
	out := map[string]FamilyStatus{}
	for _, st := range j.Coverage(nil) {
		out[st.Family] = st
	}
	return out
}

// TestCoverageCountsOnlyWhatTheServerSent: a family holds only when its
// rules judged something the server sent; the client's own requests (a
// probe and a handshake the server never answered) judge nothing.
func TestCoverageCountsOnlyWhatTheServerSent(t *testing.T) {
	cov := coverageOf(t, `> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	for fam, st := range cov {
		if st.Status == Held || st.Judged != 0 {
			t.Errorf("%s: %s, %d judged, though the server sent nothing", fam, st.Status, st.Judged)
		}
	}
}

// TestCoverageCountsJudged: framing judged every frame of the server, ids
// every answer, once each however many rules of the family ran.
func TestCoverageCountsJudged(t *testing.T) {
	cov := coverageOf(t, `$INIT
> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}}
> {"jsonrpc":"2.0","id":2,"method":"ping"}
< {"jsonrpc":"2.0","id":2,"result":{}}`)
	for fam, want := range map[string]int{FamilyFraming: 3, FamilyIDs: 3, FamilyTools: 1} {
		if st := cov[fam]; st.Status != Held || st.Judged != want {
			t.Errorf("%s: %s, %d judged; want held, %d", fam, st.Status, st.Judged, want)
		}
	}
	if st := cov[FamilyPrompts]; st.Status != NotObserved || st.Judged != 0 {
		t.Errorf("prompts: %s, %d judged; want not-observed", st.Status, st.Judged)
	}
}

// TestCoverageNotApplicable: the families of another era are not
// applicable, never held: 2026-07-28's in a legacy session (the _meta
// family too, in a revision before _meta keys had rules), 2025-11-25's
// tasks in a modern one.
func TestCoverageNotApplicable(t *testing.T) {
	legacy2024 := strings.ReplaceAll(initJSON, "2025-11-25", "2024-11-05")
	for _, c := range []struct {
		name, conv string
		na         []string
		applies    []string
	}{
		{"2025-11-25", "$INIT", []string{FamilyCaching, FamilyMultiRound, FamilySubscriptions}, []string{FamilyTasks, FamilyLogging, FamilyLifecycle}},
		{"2024-11-05", legacy2024, []string{FamilyMeta, FamilyCaching, FamilyMultiRound, FamilySubscriptions, FamilyTasks}, []string{FamilyLogging}},
		{"2026-07-28", "$DISCOVER", []string{FamilyTasks}, []string{FamilyMeta, FamilyCaching, FamilySubscriptions}},
	} {
		cov := coverageOf(t, c.conv)
		for _, fam := range c.na {
			if st := cov[fam]; st.Status != NotApplicable {
				t.Errorf("%s: %s is %s; want not-applicable", c.name, fam, st.Status)
			}
		}
		for _, fam := range c.applies {
			if st := cov[fam]; st.Status == NotApplicable {
				t.Errorf("%s: %s is not-applicable", c.name, fam)
			}
		}
		if st := cov[FamilyMeta]; c.name != "2026-07-28" && st.Status == Held {
			t.Errorf("%s: the meta family held in a legacy session", c.name)
		}
	}
	if st := coverageOf(t, "$DISCOVER")[FamilyMeta]; st.Status != Held || st.Judged != 1 {
		t.Errorf("2026-07-28: meta %s, %d judged; want held, 1 (the discover result)", st.Status, st.Judged)
	}
}

// TestCoverageBrokenWins: a finding breaks its family even when nothing
// else of it was judged, or its era is another.
func TestCoverageBrokenWins(t *testing.T) {
	j, _ := run(t, "$INIT")
	for _, st := range j.Coverage(map[string]int{"missing-result-type": 1}) {
		if st.Family == FamilyMeta && st.Status != Broken {
			t.Errorf("meta with a finding: %s", st.Status)
		}
	}
}
