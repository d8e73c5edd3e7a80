package report

import (
	"fmt"
	"io"
	"strings"

	"linesman/session/eventlog"
)

// MultiDiff is `linesman diff A B` of two `check --all` reports: each
// server's sessions compared ([DiffReports]), the servers matched by
// their entry's name in the config.
type MultiDiff struct {
	Linesman string       `json:"linesman"`
	A        string       `json:"a"`
	B        string       `json:"b"`
	Servers  []ServerDiff `json:"servers"`
	// Breaking says whether a server's change is breaking; a server gone
	// from B is one too (its clients lose every tool).
	Breaking bool `json:"breaking"`
}

// ServerDiff is one server of a [MultiDiff]. Status is "compared" (Diff
// holds the differences), "only-in-a", "only-in-b", or "not-checked" when
// a side has no session of it (skipped, interrupted before it started:
// Why says which).
type ServerDiff struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
	Diff   *Diff  `json:"diff,omitempty"`
}

// DiffMulti compares two check --all reports server by server, in A's
// order, then the servers only B has.
func DiffMulti(nameA, nameB string, a, b *Multi) MultiDiff {
	d := MultiDiff{Linesman: eventlog.Version, A: nameA, B: nameB, Servers: []ServerDiff{}}
	inB := map[string]ServerResult{}
	for _, s := range b.Servers {
		inB[s.Name] = s
	}
	inA := map[string]bool{}
	for _, sa := range a.Servers {
		inA[sa.Name] = true
		sb, ok := inB[sa.Name]
		sd := ServerDiff{Name: sa.Name}
		switch {
		case !ok:
			sd.Status, d.Breaking = "only-in-a", true
		case sa.Report == nil || sb.Report == nil:
			sd.Status, sd.Why = "not-checked", notChecked(sa, sb)
		default:
			diff := DiffReports(nameA+"#"+sa.Name, nameB+"#"+sa.Name, sa.Report, sb.Report)
			sd.Status, sd.Diff = "compared", &diff
			d.Breaking = d.Breaking || diff.Breaking
		}
		d.Servers = append(d.Servers, sd)
	}
	for _, sb := range b.Servers {
		if !inA[sb.Name] {
			d.Servers = append(d.Servers, ServerDiff{Name: sb.Name, Status: "only-in-b"})
		}
	}
	return d
}

// notChecked says which side has no session of a server, and why.
func notChecked(a, b ServerResult) string {
	var why []string
	for _, s := range []struct {
		side string
		r    ServerResult
	}{{"A", a}, {"B", b}} {
		if s.r.Report == nil {
			why = append(why, fmt.Sprintf("%s: %s (%s)", s.side, s.r.Status, s.r.Skipped))
		}
	}
	return strings.Join(why, "; ")
}

// WriteJSON writes the diff as one indented, inert JSON document.
func (d *MultiDiff) WriteJSON(w io.Writer) error { return writeInertJSON(w, d) }

// WriteText writes each server's diff under its name, then a line for
// each server not compared.
func (d *MultiDiff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "linesman diff of two check --all reports\n  A: %s\n  B: %s\n", inert(d.A), inert(d.B))
	for _, s := range d.Servers {
		fmt.Fprintf(&b, "\n══ %s ══\n", inert(s.Name))
		switch s.Status {
		case "compared":
			var one strings.Builder
			if err := s.Diff.WriteText(&one); err != nil {
				return err
			}
			b.WriteString(one.String())
		case "only-in-a":
			b.WriteString("! only in A: the server is gone from B's config (breaking)\n")
		case "only-in-b":
			b.WriteString("  only in B: a server new to the config\n")
		default:
			fmt.Fprintf(&b, "  not compared: %s\n", inert(s.Why))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
