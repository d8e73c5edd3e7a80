package ui

import (
	"sort"

	"linesman/session/eventlog"
	"linesman/wire"
)

// findingRef points at one finding of the session as the log holds it: a
// finding a frame was logged with (the frame's event, and which of its
// findings), or a finding logged as an event of its own (about a frame, or
// about no frame: stderr, the process, the wire as a whole). The index keeps
// references only; the text is read from the log when a row is drawn.
type findingRef struct {
	seq   uint64 // the event that holds the finding
	k     int32  // its position in the frame's findings, or -1: a logged finding
	frame uint64 // the frame it is about (0: none)
	sev   wire.Severity
}

// place is where a finding is shown: its frame, or its own row in the
// stderr & events pane.
func (r findingRef) place() uint64 {
	if r.frame != 0 {
		return r.frame
	}
	return r.seq
}

// findingSevs are the severities in the order the findings list groups
// them: the worst first.
var findingSevs = [...]wire.Severity{wire.SeverityError, wire.SeverityWarning, wire.SeverityNote}

// findingList is every finding the index has read, by severity in log
// order (the findings list, F), and the places n and N stop at: the frames
// with findings are index.flagged; loose holds the findings about no frame.
type findingList struct {
	bySev [len(findingSevs)][]findingRef
	loose []uint64 // Seqs of logged findings about no frame, in log order
}

// sevSlot is the group of a severity in bySev.
func sevSlot(s wire.Severity) int {
	switch {
	case s >= wire.SeverityError:
		return 0
	case s == wire.SeverityWarning:
		return 1
	}
	return 2
}

// addFrame records the findings a frame was logged with.
func (l *findingList) addFrame(ev *eventlog.Event) {
	for k, f := range ev.Frame.Findings {
		i := sevSlot(f.Severity)
		l.bySev[i] = append(l.bySev[i], findingRef{seq: ev.Seq, k: int32(k), frame: ev.Seq, sev: f.Severity})
	}
}

// addLogged records a finding logged as an event of its own.
func (l *findingList) addLogged(ev *eventlog.Event) {
	f := ev.Finding
	i := sevSlot(f.Severity)
	l.bySev[i] = append(l.bySev[i], findingRef{seq: ev.Seq, k: -1, frame: f.FrameSeq, sev: f.Severity})
	if f.FrameSeq == 0 {
		l.loose = append(l.loose, ev.Seq)
	}
}

// trim forgets the findings whose events retention dropped.
func (l *findingList) trim(first uint64) {
	for i, refs := range l.bySev {
		j := sort.Search(len(refs), func(j int) bool { return refs[j].seq >= first })
		l.bySev[i] = refs[j:]
	}
	l.loose = trimBefore(l.loose, first)
}

// len is the number of findings listed.
func (l *findingList) len() int {
	n := 0
	for _, refs := range l.bySev {
		n += len(refs)
	}
	return n
}

// at returns the i-th finding in the list's order (by severity, then log
// order).
func (l *findingList) at(i int) (findingRef, bool) {
	for _, refs := range l.bySev {
		if i < len(refs) {
			return refs[i], true
		}
		i -= len(refs)
	}
	return findingRef{}, false
}

// finding reads the finding r points at from the log.
func (x *index) finding(r findingRef) (wire.Finding, eventlog.Event, bool) {
	ev, ok := x.log.Get(r.seq)
	switch {
	case !ok:
		return wire.Finding{}, ev, false
	case r.k < 0 && ev.Finding != nil:
		return ev.Finding.Finding, ev, true
	case r.k >= 0 && ev.Frame != nil && int(r.k) < len(ev.Frame.Findings):
		return ev.Frame.Findings[r.k], ev, true
	}
	return wire.Finding{}, ev, false
}

// wroteBy is the direction of what ev concerns: a frame's own; a logged
// finding's, or that of the frame it is about; 0 for anything else. It
// chooses the fix shown for a finding ([wire.Info.FixFor]).
func (x *index) wroteBy(ev *eventlog.Event) wire.Dir {
	switch {
	case ev.Frame != nil:
		return ev.Dir
	case ev.Finding == nil:
		return 0
	case ev.Finding.Dir != 0 || ev.Finding.FrameSeq == 0:
		return ev.Finding.Dir
	}
	if fr, ok := x.log.Get(ev.Finding.FrameSeq); ok {
		return fr.Dir
	}
	return 0
}

// nextStop is the place n (d > 0) or N (d < 0) goes to from place cur: the
// next frame with findings or finding about no frame, in log order,
// wrapping around. It returns 0 when the session has no finding.
func (x *index) nextStop(cur uint64, d int) uint64 {
	a, b := x.flagged, x.found.loose
	if len(a)+len(b) == 0 {
		return 0
	}
	if d > 0 {
		if s := firstAfter(a, b, cur); s != 0 {
			return s
		}
		return firstAfter(a, b, 0) // wrap to the first
	}
	if s := lastBefore(a, b, cur); s != 0 {
		return s
	}
	return lastBefore(a, b, ^uint64(0)) // wrap to the last
}

// firstAfter is the least Seq above cur in the sorted slices a and b, or 0.
func firstAfter(a, b []uint64, cur uint64) uint64 {
	best := uint64(0)
	for _, s := range [][]uint64{a, b} {
		i := sort.Search(len(s), func(i int) bool { return s[i] > cur })
		if i < len(s) && (best == 0 || s[i] < best) {
			best = s[i]
		}
	}
	return best
}

// lastBefore is the greatest Seq below cur in the sorted slices a and b, or 0.
func lastBefore(a, b []uint64, cur uint64) uint64 {
	best := uint64(0)
	for _, s := range [][]uint64{a, b} {
		i := sort.Search(len(s), func(i int) bool { return s[i] >= cur })
		if i > 0 && s[i-1] > best {
			best = s[i-1]
		}
	}
	return best
}
