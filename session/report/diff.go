package report

import (
	"fmt"
	"io"
	"math"
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
	// Unread says, per side, what of a recorded file could not be read:
	// the comparison does not cover it.
	Unread []string `json:"unread,omitempty"`
}

// UnreadPrefix begins the note a report read from a recorded file carries
// when part of the file could not be read.
const UnreadPrefix = "not read from "

// Unread returns what of the file the report was read from could not be
// read (its note, without the prefix), or "".
func (r *Report) Unread() string {
	for _, n := range r.Notes {
		if n.Seq == 0 && strings.HasPrefix(n.Text, UnreadPrefix) {
			return strings.TrimPrefix(n.Text, UnreadPrefix)
		}
	}
	return ""
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

// LatencyShift is the time of the client's calls of one method (or, with
// Tool set, of one tool) in A and in B, from every sample: the medians
// (null on a side without one), the 95th and 99th percentiles and the
// counts, and B's median minus A's.
// WithinNoise says the shift is no larger than the sessions' own
// variation ([withinNoise]): a reader should not take it for a change.
type LatencyShift struct {
	Method      string   `json:"method"`
	Tool        string   `json:"tool,omitempty"`
	AMs         *float64 `json:"aMs"`
	BMs         *float64 `json:"bMs"`
	AP95Ms      *float64 `json:"aP95Ms"`
	BP95Ms      *float64 `json:"bP95Ms"`
	AP99Ms      *float64 `json:"aP99Ms"`
	BP99Ms      *float64 `json:"bP99Ms"`
	ShiftMs     *float64 `json:"shiftMs"`
	ACount      int      `json:"aCount"`
	BCount      int      `json:"bCount"`
	WithinNoise bool     `json:"withinNoise"`
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
	d.Latency = latencyShifts(a, b)
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

// latencyShifts compares the time of the client's calls per method, then
// per tool, from each report's latency blocks (computed from its requests
// for a report written before it had one).
func latencyShifts(a, b *Report) []LatencyShift {
	out := []LatencyShift{}
	for _, byTool := range []bool{false, true} {
		la, lb := latencyByKey(a, byTool), latencyByKey(b, byTool)
		for _, key := range unionKeys(la, lb) {
			out = append(out, latencyShift(la[key], lb[key]))
		}
	}
	return out
}

// latencyShift compares one method's or tool's latency; a nil side had
// none.
func latencyShift(a, b *MethodLatency) LatencyShift {
	var ls LatencyShift
	if x := a; x != nil {
		ls.Method, ls.Tool = x.Method, x.Tool
		ls.AMs, ls.AP95Ms, ls.AP99Ms, ls.ACount = &x.P50Ms, &x.P95Ms, &x.P99Ms, x.Count
	}
	if x := b; x != nil {
		ls.Method, ls.Tool = x.Method, x.Tool
		ls.BMs, ls.BP95Ms, ls.BP99Ms, ls.BCount = &x.P50Ms, &x.P95Ms, &x.P99Ms, x.Count
	}
	if a != nil && b != nil {
		s := b.P50Ms - a.P50Ms
		ls.ShiftMs = &s
		ls.WithinNoise = withinNoise(*a, *b)
	}
	return ls
}

// latencyByKey is a report's latency block (per method, or per tool) by
// [MethodLatency.Key].
func latencyByKey(r *Report, byTool bool) map[string]*MethodLatency {
	ls := r.Latency
	if byTool {
		ls = r.LatencyByTool
	} else if len(ls) == 0 {
		ls = latencyOf(r.Requests)
	}
	m := map[string]*MethodLatency{}
	for i := range ls {
		m[ls[i].Key()] = &ls[i]
	}
	return m
}

// Noise bounds: a shift of the median under noiseFloorMs is the
// scheduler's, not the server's; with fewer than noiseSamples samples on
// a side, a median can double between identical runs.
const (
	noiseFloorMs = 2.0
	noiseSamples = 5
)

// withinNoise reports whether the median's shift from a to b is within
// the sessions' own variation: no larger than noiseFloorMs or than either
// side's spread (p95 minus p50); with fewer than noiseSamples samples on
// a side, any shift where neither median is more than twice the other.
func withinNoise(a, b MethodLatency) bool {
	shift := math.Abs(b.P50Ms - a.P50Ms)
	if shift <= max(noiseFloorMs, a.P95Ms-a.P50Ms, b.P95Ms-b.P50Ms) {
		return true
	}
	if min(a.Count, b.Count) < noiseSamples {
		return max(a.P50Ms, b.P50Ms) <= 2*min(a.P50Ms, b.P50Ms)
	}
	return false
}

// WriteJSON writes the diff as one indented, inert JSON document.
func (d *Diff) WriteJSON(w io.Writer) error { return writeInertJSON(w, d) }

// WriteText writes the diff for people: the definitions that changed
// (breaking ones marked), findings new and fixed, latency per method.
// Everything from the sessions is inert.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "linesman diff\n  A: %s (%s)\n  B: %s (%s)\n", inert(d.A), inert(d.Servers[0]), inert(d.B), inert(d.Servers[1]))
	for _, u := range d.Unread {
		fmt.Fprintf(&b, "  not read: %s\n", inert(u))
	}
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
	b.WriteString("\nlatency (per method, then per tool; ms: median, p95, p99 and calls of each session):\n")
	if len(d.Latency) == 0 {
		b.WriteString("  no requests answered in either session\n")
	}
	for _, l := range d.Latency {
		key := MethodLatency{Method: l.Method, Tool: l.Tool}.Key()
		fmt.Fprintf(&b, "  %-24s %26s → %-26s %s\n", inert(key), latencyText(l.AMs, l.AP95Ms, l.AP99Ms, l.ACount),
			latencyText(l.BMs, l.BP95Ms, l.BP99Ms, l.BCount), shiftText(l.ShiftMs, l.WithinNoise))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latencyText is one side's latency: "12.0 p95 30.5 p99 31.0 ×7", or "—".
func latencyText(p50, p95, p99 *float64, n int) string {
	if p50 == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f p95 %.1f p99 %.1f ×%d", *p50, *p95, *p99, n)
}

// shiftText is the median's shift, said to be within noise when it is.
func shiftText(v *float64, noise bool) string {
	switch {
	case v == nil:
		return ""
	case noise:
		return fmt.Sprintf("(%+.1f, within noise)", *v)
	}
	return fmt.Sprintf("(%+.1f)", *v)
}
