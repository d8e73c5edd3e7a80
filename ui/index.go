package ui

import (
	"bytes"
	"sort"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// index is the UI's rendering state over the log, kept up to date
// incrementally: each batch of new events is read once (ingest), and
// everything the panes need afterwards is a slice lookup or a map hit. It
// holds Seqs, not events; rows fetch their event from the log when they are
// drawn, so rendering costs what is on screen, not what is in the log.
//
// Facts about the log — which answer pairs with which request, what is in
// flight, the era and the handshake — are not worked out here: they are the
// projection's (tr, a [eventlog.Tracker]), read through its accessors, so the
// panes say what the reports and exports say. Only when no projection was
// given (a log filled by hand) does the index run the fold itself, feeding
// each event to its own tracker as it ingests it.
//
// An index is owned by the UI goroutine (Update); it is not safe for
// concurrent use.
type index struct {
	log  *eventlog.Log
	tr   *eventlog.Tracker
	fold bool   // the index feeds tr (no tracker was given)
	next uint64 // the next Seq to ingest

	frames   []uint64 // Seqs of frame events, in log order
	filtered []uint64 // the frames matching filt (when filt != nil)
	filt     *filter
	events   []uint64 // Seqs of stderr, process, note and loose finding events (the stderr pane)

	// flagged holds the Seqs of frames with at least one finding, in order,
	// for next/previous finding.
	flagged []uint64
	// found is every finding, for the findings list and n/N.
	found findingList

	counts       [4]int // findings per severity (index wire.Severity)
	bytesC2S     int64
	bytesS2C     int64
	bytesStderr  int64
	lastS2C      time.Duration // when the server's last frame came (the in-flight hint)
	frameCount   [3]int        // per wire.Dir
	stderrLines  int
	firstDropped uint64

	// intercepts counts the intercept events read: while it is 0 no row
	// asks the projection what became of its frame.
	intercepts int

	proc eventlog.ProcessStatus // as the projection tells it (addProcess)
	// catalog is what the server offers, from its list results (the
	// picker and the composer's skeletons read it; picker_catalog.go).
	catalog
}

// newIndex indexes log, reading its facts from tr; a nil tr means nobody
// folds the log, and the index runs the fold into a tracker of its own.
func newIndex(log *eventlog.Log, tr *eventlog.Tracker) *index {
	first, _ := log.Bounds()
	x := &index{log: log, tr: tr, next: first}
	if tr == nil {
		x.tr, x.fold = eventlog.NewTracker(eventlog.TrackerOptions{}), true
	}
	return x
}

// ingestBatch bounds how many events one ingest copies out of the log at a
// time, so the lock is held briefly even when the log grew by millions.
const ingestBatch = 4096

// ingest reads every event appended since the last call. It returns whether
// anything changed.
func (x *index) ingest() bool {
	first, next := x.log.Bounds()
	changed := false
	if first > x.next {
		x.next = first // dropped before we saw them
	}
	for x.next < next {
		to := min(next, x.next+ingestBatch)
		for _, ev := range x.log.Range(x.next, to) {
			x.add(&ev)
		}
		x.next = to
		changed = true
	}
	if changed && !x.fold {
		x.takeTotals()
	}
	if first > x.firstDropped {
		x.firstDropped = first
		x.frames = trimBefore(x.frames, first)
		x.filtered = trimBefore(x.filtered, first)
		x.events = trimBefore(x.events, first)
		x.flagged = trimBefore(x.flagged, first)
		x.found.trim(first)
		changed = true
	}
	return changed
}

// takeTotals takes the counts the status bar and the side panes show from
// the log's totals ([eventlog.Log.Totals]): they count what the retention
// budget dropped too, even before the index saw it. (When the index runs
// the fold itself, the findings it adds are its own to count.)
func (x *index) takeTotals() {
	t := x.log.Totals()
	for sev := range x.counts {
		x.counts[sev] = t.Severities[sev]
	}
	for d := range x.frameCount {
		x.frameCount[d] = int(t.Frames[d])
	}
	x.bytesC2S, x.bytesS2C = t.Bytes[wire.ClientToServer], t.Bytes[wire.ServerToClient]
	x.bytesStderr, x.stderrLines = t.StderrBytes, int(t.StderrLines)
}

func trimBefore(s []uint64, first uint64) []uint64 {
	i := sort.Search(len(s), func(i int) bool { return s[i] >= first })
	if i == 0 {
		return s
	}
	return s[i:]
}

func (x *index) add(ev *eventlog.Event) {
	switch ev.Type {
	case eventlog.EventFrame:
		x.addFrame(ev)
	case eventlog.EventStderr:
		x.events = append(x.events, ev.Seq)
		x.stderrLines++
		if ev.Stderr != nil {
			x.bytesStderr += ev.Stderr.Length + int64(len(ev.Stderr.Term.Bytes()))
		}
	case eventlog.EventProcess:
		x.events = append(x.events, ev.Seq)
		if x.fold {
			x.tr.Apply(ev)
		}
		x.addProcess()
	case eventlog.EventNote:
		x.events = append(x.events, ev.Seq)
	case eventlog.EventEra, eventlog.EventRestart, eventlog.EventTimeout, eventlog.EventStdinClosed, eventlog.EventEnd:
		if x.fold {
			x.tr.Apply(ev)
		}
		if ev.IsNote() {
			x.events = append(x.events, ev.Seq)
		}
	case eventlog.EventIntercept:
		x.addIntercept(ev)
	case eventlog.EventFinding:
		x.events = append(x.events, ev.Seq)
		if f := ev.Finding; f != nil {
			x.found.addLogged(ev)
			x.counts[sevIndex(f.Severity)]++
			if x.fold {
				x.tr.Apply(ev)
			}
			if f.FrameSeq != 0 && !x.frameFlagged(f.FrameSeq) {
				x.insertFlagged(f.FrameSeq)
			}
		}
	}
}

// addIntercept reads a step of interception: said among the events, and
// a client's frame held (not on the wire) is a row of the Frames pane of
// its own, the held event's.
func (x *index) addIntercept(ev *eventlog.Event) {
	x.intercepts++
	if x.fold {
		x.tr.Apply(ev)
	}
	if ev.IsNote() {
		x.events = append(x.events, ev.Seq)
	}
	if !isRow(ev) {
		return
	}
	x.frames = append(x.frames, ev.Seq)
	if x.filt != nil && x.filt.match(ev, x) {
		x.filtered = append(x.filtered, ev.Seq)
	}
}

// isRow reports whether ev is a row of the Frames pane: a frame, or a
// client's frame held before the wire.
func isRow(ev *eventlog.Event) bool {
	if ev.Frame == nil {
		return false
	}
	if ev.Type == eventlog.EventFrame {
		return true
	}
	ie := ev.Intercept
	return ev.Type == eventlog.EventIntercept && ie != nil && ie.Action == eventlog.InterceptHeld && ie.Dir == wire.ClientToServer
}

func sevIndex(s wire.Severity) int {
	if s > wire.SeverityError {
		return int(wire.SeverityError)
	}
	return int(s)
}

func (x *index) frameFlagged(seq uint64) bool {
	i := sort.Search(len(x.flagged), func(i int) bool { return x.flagged[i] >= seq })
	return i < len(x.flagged) && x.flagged[i] == seq
}

func (x *index) insertFlagged(seq uint64) {
	i := sort.Search(len(x.flagged), func(i int) bool { return x.flagged[i] >= seq })
	x.flagged = append(x.flagged, 0)
	copy(x.flagged[i+1:], x.flagged[i:])
	x.flagged[i] = seq
}

func (x *index) addFrame(ev *eventlog.Event) {
	f := ev.Frame
	if f == nil {
		return
	}
	if x.fold {
		x.tr.Apply(ev)
	}
	x.frames = append(x.frames, ev.Seq)
	if x.filt != nil && x.filt.match(ev, x) {
		x.filtered = append(x.filtered, ev.Seq)
	}
	if len(f.Findings) > 0 {
		x.found.addFrame(ev)
		x.flagged = append(x.flagged, ev.Seq)
		for _, fd := range f.Findings {
			x.counts[sevIndex(fd.Severity)]++
		}
	}
	if int(ev.Dir) < len(x.frameCount) {
		x.frameCount[ev.Dir]++
	}
	switch ev.Dir {
	case wire.ClientToServer:
		x.bytesC2S += f.Size()
	case wire.ServerToClient:
		x.bytesS2C += f.Size()
		x.lastS2C = ev.At
	}

	if f.Msg.Kind == wire.KindResult && ev.Dir == wire.ServerToClient {
		if r, ok := x.tr.AnswerTo(ev.Seq); ok && r.Dir == wire.ClientToServer {
			x.listed(r)
		}
	}
}

// requestOf returns, for an answer frame, the request frame it answers as
// the projection paired them.
func (x *index) requestOf(seq uint64) (eventlog.Event, bool) {
	r, ok := x.tr.AnswerTo(seq)
	if !ok {
		return eventlog.Event{}, false
	}
	ev, ok := x.log.Get(r.Seq)
	return ev, ok && ev.Frame != nil
}

// addProcess reads the process status off the projection, which folded
// the process event (the UI keeps no fold of its own).
func (x *index) addProcess() { x.proc = x.tr.Process() }

// view is the frame list the frames pane shows: all frames, or the filtered ones.
func (x *index) view() []uint64 {
	if x.filt != nil {
		return x.filtered
	}
	return x.frames
}

// setFilter replaces the filter and rebuilds the filtered list (the one
// place that costs O(frames): a deliberate user action, not a render).
func (x *index) setFilter(f *filter) {
	x.filt = f
	x.filtered = nil
	if f == nil {
		return
	}
	for lo := 0; lo < len(x.frames); lo += ingestBatch {
		seqs := x.frames[lo:min(len(x.frames), lo+ingestBatch)]
		for _, ev := range x.log.Range(seqs[0], seqs[len(seqs)-1]+1) {
			if isRow(&ev) && f.match(&ev, x) {
				x.filtered = append(x.filtered, ev.Seq)
			}
		}
	}
}

// findings returns every finding on the frame: those it was logged with and
// those logged about it later.
func (x *index) findings(ev *eventlog.Event) []wire.Finding {
	return x.tr.FindingsOf(ev)
}

// worst returns the highest severity of the findings, or 0.
func worst(fs []wire.Finding) wire.Severity {
	var w wire.Severity
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// frameText returns the JSON text of a frame: its lines joined (a
// multi-line frame is one value spread over lines).
func frameText(f *wire.Frame) []byte {
	if len(f.Lines) == 1 {
		return f.Lines[0].Content
	}
	var b bytes.Buffer
	for i, l := range f.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(l.Content)
	}
	return b.Bytes()
}
