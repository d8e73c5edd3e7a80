package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Diff is what changed between two sessions of a server (`linesman diff
// A B`): its definitions, its findings by code, and its latency per method.
type Diff struct {
	Linesman string `json:"linesman"`
	A        string `json:"a"`
	B        string `json:"b"`
	// Servers name the server of each side (serverInfo, else the command).
	Servers [2]string `json:"servers"`
	// Definitions lists the tools, prompts and resources added, removed or
	// changed; it is null when neither side listed any.
	Definitions []Change       `json:"definitions"`
	Findings    []FindingShift `json:"findings"`
	Latency     []LatencyShift `json:"latency"`
	// Breaking says whether a change of Definitions is breaking (a removal,
	// an incompatible input schema, a prompt argument removed or required).
	Breaking bool `json:"breaking"`
}

// FindingShift is how often a finding code was raised in A and in B;
// Change is "new", "more", "fewer" or "fixed".
type FindingShift struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	A        int    `json:"a"`
	B        int    `json:"b"`
	Change   string `json:"change"`
}

// LatencyShift is the median time of the client's requests of one method in
// A and in B (null on a side without one), and B's minus A's.
type LatencyShift struct {
	Method  string   `json:"method"`
	AMs     *float64 `json:"aMs"`
	BMs     *float64 `json:"bMs"`
	ShiftMs *float64 `json:"shiftMs"`
	ACount  int      `json:"aCount"`
	BCount  int      `json:"bCount"`
}

// DiffReports compares two reports of sessions of a server, A before B.
func DiffReports(nameA, nameB string, a, b *Report) Diff {
	d := Diff{Linesman: eventlog.Version, A: nameA, B: nameB, Servers: [2]string{a.ServerName(), b.ServerName()},
		Findings: []FindingShift{}, Latency: []LatencyShift{}}
	da, db := a.Definitions, b.Definitions
	if da != nil || db != nil {
		empty := &Definitions{}
		if da == nil {
			da = empty
		}
		if db == nil {
			db = empty
		}
		d.Definitions = CompareDefinitions(da, db)
		if d.Definitions == nil {
			d.Definitions = []Change{}
		}
	}
	for _, c := range d.Definitions {
		d.Breaking = d.Breaking || c.Breaking
	}
	d.Findings = findingShifts(a.Totals.Findings, b.Totals.Findings)
	d.Latency = latencyShifts(a.Requests, b.Requests)
	return d
}

// findingShifts compares counts of findings by code.
func findingShifts(a, b map[string]int) []FindingShift {
	out := []FindingShift{}
	for _, code := range unionKeys(a, b) {
		na, nb := a[code], b[code]
		fs := FindingShift{Code: code, A: na, B: nb}
		switch {
		case na == nb:
			continue
		case na == 0:
			fs.Change = "new"
		case nb == 0:
			fs.Change = "fixed"
		case nb > na:
			fs.Change = "more"
		default:
			fs.Change = "fewer"
		}
		if info, ok := wire.Lookup(code); ok {
			fs.Severity = info.Severity.String()
		}
		out = append(out, fs)
	}
	return out
}

// latencyShifts compares the median time of the client's requests per
// method.
func latencyShifts(a, b []Request) []LatencyShift {
	times := func(reqs []Request) map[string][]float64 {
		m := map[string][]float64{}
		for _, q := range reqs {
			if q.Dir == "c2s" && q.Ms != nil {
				m[q.Method] = append(m[q.Method], *q.Ms)
			}
		}
		return m
	}
	ta, tb := times(a), times(b)
	out := []LatencyShift{}
	for _, method := range unionKeys(ta, tb) {
		ls := LatencyShift{Method: method, AMs: median(ta[method]), BMs: median(tb[method]), ACount: len(ta[method]), BCount: len(tb[method])}
		if ls.AMs != nil && ls.BMs != nil {
			s := *ls.BMs - *ls.AMs
			ls.ShiftMs = &s
		}
		out = append(out, ls)
	}
	return out
}

// median is the median of xs, nil for none.
func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &m
}

// WriteJSON writes the diff as one indented, inert JSON document.
func (d *Diff) WriteJSON(w io.Writer) error { return writeInertJSON(w, d) }

// WriteText writes the diff for people: the definitions that changed
// (breaking ones marked), findings new and fixed, latency per method.
// Everything from the sessions is inert.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "linesman diff\n  A: %s (%s)\n  B: %s (%s)\n", inert(d.A), inert(d.Servers[0]), inert(d.B), inert(d.Servers[1]))
	b.WriteString("\ndefinitions (tools, prompts, resources):\n")
	switch {
	case d.Definitions == nil:
		b.WriteString("  not compared: neither session listed any\n")
	case len(d.Definitions) == 0:
		b.WriteString("  unchanged\n")
	}
	for _, c := range d.Definitions {
		mark := " "
		if c.Breaking {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %-28s %s\n", mark, c.Code, inert(c.Message()))
	}
	if d.Breaking {
		b.WriteString("  (! breaking: clients written against A may fail against B)\n")
	}
	b.WriteString("\nfindings:\n")
	if len(d.Findings) == 0 {
		b.WriteString("  the same codes, as often\n")
	}
	for _, f := range d.Findings {
		fmt.Fprintf(&b, "  %-6s %-8s %-32s %d → %d\n", f.Change, f.Severity, f.Code, f.A, f.B)
	}
	b.WriteString("\nlatency (median per method, ms):\n")
	if len(d.Latency) == 0 {
		b.WriteString("  no requests answered in either session\n")
	}
	for _, l := range d.Latency {
		fmt.Fprintf(&b, "  %-24s %10s → %-10s %s\n", inert(l.Method), msText(l.AMs), msText(l.BMs), shiftText(l.ShiftMs))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func msText(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", *v)
}

func shiftText(v *float64) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf("(%+.1f)", *v)
}
