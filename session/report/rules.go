package report

import (
	"fmt"
	"slices"
	"strings"

	"linesman/session"
	"linesman/session/protocol"
	"linesman/wire"
)

// Rule is one line of the "rules" block: a family of rules and whether, in
// this session, it was exercised and held, was broken (a warning or an
// error of the family), or was not observed (nothing gave its rules
// anything to judge: not observed is not a pass).
type Rule struct {
	Family   string `json:"family"`
	Title    string `json:"title"`
	Status   string `json:"status"` // "held", "broken" or "not-observed"
	Findings int    `json:"findings"`
}

// addRules fills the "rules" block from the tracker's protocol judge and
// the findings listed. The CI families (policy, drift) are listed only
// when the run applied them (applied) or one of their findings was
// raised: a run without a policy has no policy to observe.
func (r *Report) addRules(tr *session.Tracker, applied []string) {
	r.Rules = []Rule{}
	if tr == nil {
		return
	}
	counts := map[string]int{}
	for _, f := range r.Findings {
		if f.Severity == "error" || f.Severity == "warning" {
			counts[f.Code]++
		}
	}
	ran := r.Process.Pid != 0 || r.Process.State != ""
	for _, st := range tr.Coverage(counts) {
		if st.Family == wire.FamilyProcess && ran && st.Status == protocol.NotObserved {
			st.Status = protocol.Held // a process ran and nothing was said of it
		}
		if st.Family == wire.FamilyPolicy || st.Family == wire.FamilyDrift {
			on := slices.Contains(applied, st.Family)
			if !on && st.Findings == 0 {
				continue
			}
			if on && st.Status == protocol.NotObserved {
				st.Status = protocol.Held // judged after the run, with nothing to say
			}
		}
		r.Rules = append(r.Rules, Rule{Family: st.Family, Title: st.Title, Status: string(st.Status), Findings: st.Findings})
	}
}

// writeRules writes the held / broken / not observed table.
func (r *Report) writeRules(b *strings.Builder) {
	if len(r.Rules) == 0 {
		return
	}
	b.WriteString("\nrule families (held: exercised and kept; broken: a warning or error; not observed: nothing to judge, which is no pass):\n")
	width := 0
	for _, ru := range r.Rules {
		width = max(width, len(ru.Family))
	}
	for _, ru := range r.Rules {
		status := strings.ReplaceAll(ru.Status, "-", " ")
		line := fmt.Sprintf("  %-12s  %-*s  %s", status, width, ru.Family, ru.Title)
		if ru.Findings > 0 {
			line += fmt.Sprintf(" (%s)", plural(ru.Findings, "finding"))
		}
		b.WriteString(line + "\n")
	}
}
