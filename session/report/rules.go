package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"linesman/session/eventlog"
	"linesman/session/protocol"
	"linesman/wire"
)

// Rule is one line of the "rules" block: a family of rules, how many of
// the server's frames its rules judged, and whether, in this session, it
// held (judged something and raised no warning or error), was broken (a
// warning or an error of the family), was not observed (it judged nothing:
// not observed is not a pass) or is not applicable (its rules belong to
// another era or revision than the session's; listed after the others).
type Rule struct {
	Family   string `json:"family"`
	Title    string `json:"title"`
	Status   string `json:"status"` // "held", "broken", "not-observed" or "not-applicable"
	Findings int    `json:"findings"`
	// Judged counts what the family's rules judged: the server's frames,
	// the processes for the process family, the run for policy and drift.
	Judged int `json:"judged"`
}

// addRules fills the "rules" block from the tracker's protocol judge and
// the findings listed. The CI families (policy, drift) are listed only
// when the run applied them (applied) or one of their findings was
// raised: a run without a policy has no policy to observe. The families
// that do not apply to the session's era come last.
func (r *Report) addRules(tr *eventlog.Tracker, applied []string) {
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
	var apart []Rule
	for _, st := range tr.Coverage(counts) {
		st, listed := r.outsideJudge(st, applied)
		if !listed {
			continue
		}
		ru := Rule{Family: st.Family, Title: st.Title, Status: string(st.Status), Findings: st.Findings, Judged: st.Judged}
		if st.Status == protocol.NotApplicable {
			apart = append(apart, ru)
			continue
		}
		r.Rules = append(r.Rules, ru)
	}
	r.Rules = append(r.Rules, apart...)
}

// outsideJudge completes the status of the families judged outside the
// protocol judge: the process family judged each process that ran, the CI
// families the run they were applied to. listed is false for a CI family
// the run did not apply and that raised nothing.
func (r *Report) outsideJudge(st protocol.FamilyStatus, applied []string) (_ protocol.FamilyStatus, listed bool) {
	switch st.Family {
	case wire.FamilyProcess:
		if r.Process.Pid != 0 || r.Process.State != "" {
			st.Judged += r.Process.Restarts + 1
			if st.Status == protocol.NotObserved {
				st.Status = protocol.Held // a process ran and nothing was said of it
			}
		}
	case wire.FamilyPolicy, wire.FamilyDrift:
		on := slices.Contains(applied, st.Family)
		if !on && st.Findings == 0 {
			return st, false
		}
		if on {
			st.Judged++
			if st.Status == protocol.NotObserved {
				st.Status = protocol.Held // judged after the run, with nothing to say
			}
		}
	}
	return st, true
}

// rulesLegend explains the statuses of the rule families' table.
const rulesLegend = "rule families (held: judged what the server sent, with no warning or error; broken: a warning or error; not observed: the server gave them nothing to judge, which is no pass):\n"

// writeRules writes the held / broken / not observed table, each status
// with how much the family judged, then the families of another era.
func (r *Report) writeRules(b *strings.Builder) {
	if len(r.Rules) == 0 {
		return
	}
	b.WriteString("\n" + rulesLegend)
	width, swidth := 0, 0
	var apart []string
	for _, ru := range r.Rules {
		width = max(width, len(ru.Family))
		swidth = max(swidth, len(ruleStatus(ru)))
	}
	for _, ru := range r.Rules {
		if ru.Status == string(protocol.NotApplicable) {
			apart = append(apart, ru.Family)
			continue
		}
		line := fmt.Sprintf("  %-*s  %-*s  %s", swidth, ruleStatus(ru), width, ru.Family, ru.Title)
		if ru.Findings > 0 {
			line += fmt.Sprintf(" (%s)", plural(ru.Findings, "finding"))
		}
		b.WriteString(line + "\n")
	}
	if len(apart) > 0 {
		era := cmp.Or(r.ProtocolVersion, r.Era)
		fmt.Fprintf(b, "  not applicable to %s (rules of another era): %s\n", era, strings.Join(apart, ", "))
	}
}

// ruleStatus is a family's status as the text table shows it: "held (12
// judged)", "broken (3 judged)", "not observed".
func ruleStatus(ru Rule) string {
	status := strings.ReplaceAll(ru.Status, "-", " ")
	if ru.Judged > 0 {
		status += fmt.Sprintf(" (%d judged)", ru.Judged)
	}
	return status
}
