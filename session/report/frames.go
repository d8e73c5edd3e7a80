package report

import (
	"slices"
	"sort"

	"linesman/session/eventlog"
)

// The report's list of frames: each frame as the report lists it, found by
// its Seq, and (Meta.FindingFrames) only those a finding points at.

// addFrame adds a frame and the findings it was logged with. With
// Meta.FindingFrames a frame without findings is left out (frameFor lists
// it if a finding logged later points at it).
func (r *Report) addFrame(ev eventlog.Event, meta Meta, textLimit int) {
	r.retained++
	f := ev.Frame
	if r.lister != nil {
		r.lister.passed = ev.Seq
		if len(f.Findings) == 0 {
			return
		}
	}
	rf := frameOf(ev, meta, textLimit)
	dir := rf.Dir
	for _, fd := range f.Findings {
		rf.Findings = append(rf.Findings, fd.Code)
		seq := ev.Seq
		r.addFinding(fd, &seq, &dir, ev.Dir, true)
	}
	r.Frames = append(r.Frames, rf)
}

// frameOf is a logged frame as the report lists it, without its findings.
func frameOf(ev eventlog.Event, meta Meta, textLimit int) Frame {
	f := ev.Frame
	rf := Frame{
		Seq:      ev.Seq,
		Time:     reportTime(ev.Wall),
		Dir:      ev.Dir.String(),
		Kind:     f.Msg.Kind.String(),
		ID:       idJSON(f.Msg.ID),
		Bytes:    f.Size(),
		Lines:    len(f.Lines),
		Findings: []string{},
		frame:    f,
		wrote:    ev.Dir,
	}
	if f.Msg.Method != "" {
		rf.Method = &f.Msg.Method // the log's frames are not changed: no copy a frame
	}
	if meta.FrameText {
		raw := f.Raw()
		if textLimit > 0 && len(raw) > textLimit {
			raw = raw[:textLimit]
			rf.TextTruncated = true
		}
		if f.Truncated() {
			rf.TextTruncated = true
		}
		s := string(raw)
		rf.Text = &s
	}
	return rf
}

// frameLister lists the frames Meta.FindingFrames left out when a finding
// logged later points at one: the log still holds its event.
type frameLister struct {
	log    *eventlog.Log
	meta   Meta
	passed uint64 // the Seq of the last frame FromLog came to
	buf    []eventlog.Event
}

// frameFor returns the index in Frames of the frame with Seq seq, listing
// it first, in its place, when FromLog left it out. A frame FromLog has
// not come to yet is not listed (nor is it in a full list).
func (r *Report) frameFor(seq uint64) (int, bool) {
	i, ok := r.frameAt(seq)
	if ok || r.lister == nil || seq > r.lister.passed {
		return i, ok
	}
	l := r.lister
	l.buf = l.log.AppendRange(l.buf[:0], seq, seq+1)
	if len(l.buf) != 1 || l.buf[0].Type != eventlog.EventFrame || l.buf[0].Frame == nil {
		return 0, false
	}
	r.Frames = slices.Insert(r.Frames, i, frameOf(l.buf[0], l.meta, l.meta.FrameTextLimit))
	return i, true
}

// frameAt returns the index in Frames of the frame with Seq seq. Frames
// are in the log's order, so a binary search finds it (a map from every
// Seq was a tenth of the report of a flood).
func (r *Report) frameAt(seq uint64) (int, bool) {
	if !r.indexed {
		return 0, false
	}
	i := sort.Search(len(r.Frames), func(i int) bool { return r.Frames[i].Seq >= seq })
	return i, i < len(r.Frames) && r.Frames[i].Seq == seq
}
