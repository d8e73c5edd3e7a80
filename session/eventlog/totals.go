package eventlog

import (
	"maps"
	"slices"

	"linesman/wire"
)

// Totals are the counts of everything ever appended to a Log, kept outside
// its retention budget: they stay exact whatever the budget drops, so a
// report on a flood of a million frames counts a million frames, not the
// ones still retained.
type Totals struct {
	Frames [3]uint64 // logical frames, by wire.Dir
	Bytes  [3]int64  // their bytes (terminators included), by wire.Dir
	// StderrLines and StderrBytes count the server's stderr.
	StderrLines uint64
	StderrBytes int64
	// Findings counts every finding by code: those a frame was logged with
	// and those logged on their own.
	Findings map[string]int
	// Severities counts every finding by severity (index wire.Severity;
	// a finding logged without one counts at its registry severity).
	Severities [4]int
}

// maxKeptNotes bounds the notes a Log keeps outside its retention budget
// (era decisions and restarts are always kept): linesman writes a note per
// server request waiting for an answer by hand, which a server can flood.
const maxKeptNotes = 1000

// countLocked adds ev to the totals and keeps it when it is a note.
func (l *Log) countLocked(ev *Event) {
	t := &l.totals
	switch ev.Type {
	case EventFrame:
		if f := ev.Frame; f != nil && int(ev.Dir) < len(t.Frames) {
			t.Frames[ev.Dir]++
			t.Bytes[ev.Dir] += f.Size()
			for i := range f.Findings {
				t.count(&f.Findings[i])
			}
		}
	case EventStderr:
		if s := ev.Stderr; s != nil {
			t.StderrLines++
			t.StderrBytes += s.Length + int64(len(s.Term.Bytes()))
		}
	case EventFinding:
		if ev.Finding != nil {
			t.count(&ev.Finding.Finding)
		}
	case EventEra, EventRestart, EventStdinClosed:
		l.notes = append(l.notes, *ev)
	case EventNote:
		if l.plainNotes < maxKeptNotes {
			l.notes = append(l.notes, *ev)
		} else {
			l.notesLost++
		}
		l.plainNotes++
	}
}

func (t *Totals) count(f *wire.Finding) {
	if t.Findings == nil {
		t.Findings = map[string]int{}
	}
	t.Findings[f.Code]++
	sev := f.Severity
	if sev == 0 {
		if info, ok := wire.Lookup(f.Code); ok {
			sev = info.Severity
		}
	}
	t.Severities[min(int(sev), len(t.Severities)-1)]++
}

// Totals returns the counts of everything appended so far, retained or not.
func (l *Log) Totals() Totals {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.totals
	t.Findings = maps.Clone(t.Findings)
	return t
}

// Notes returns linesman's own notes, era decisions and restarts, in log
// order, whether or not the retention budget still holds them; lost counts
// the plain notes past the first maxKeptNotes, which are not kept.
func (l *Log) Notes() (notes []Event, lost int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.notes), l.notesLost
}
