package capture

import (
	"bytes"
	"io"

	"linesman/session/eventlog"
	"linesman/wire"
)

// rebuildFrame turns the recorded physical lines of one logical frame back
// into a classified wire.Frame, with the findings the current wire package
// gives those bytes: the framing code of a live session (wire.NewFramer, as
// wire.FramesOf) runs over the frame's exact raw bytes, so multi-line frames
// are re-joined and every framing and classification finding is recomputed.
//
// A truncated line lost its tail before it reached the capture; the framer
// is shown the kept bytes, then filler up to the recorded length, with the
// limit set to what was kept, so it truncates the line at the same byte and
// judges it exactly as the live framer did.
//
// If the current framer cuts the bytes into other frames than the recorded
// ones (a newer reassembly rule), the recorded grouping wins: a capture's
// frames are what the live session showed. Each framing decision is still
// the current code's: the lines are classified as one text, joined as the
// framer joins a multi-line frame.
//
// Alone, a frame has no context: the lines of a run that began a JSON value
// and never completed it, rebuilt one by one, would each count a run of one
// line in their non-json-line message. rebuild gives server frames their
// context back by framing consecutive ones together.
func rebuildFrame(lines []wire.Line, maxFrame int) *wire.Frame {
	var src io.Reader
	opts := wire.Options{}
	if len(lines) == 1 && lines[0].Truncated {
		l := &lines[0]
		if l.Length-int64(len(l.Content)) > maxFiller {
			return regroup(lines)
		}
		opts.MaxFrame = len(l.Content)
		src = io.MultiReader(bytes.NewReader(l.Content), &filler{n: l.Length - int64(len(l.Content))},
			bytes.NewReader(l.Term.Bytes()))
	} else {
		opts.MaxFrame = frameLimit(maxFrame, longest(lines))
		if wire.SplitterCut(lines) {
			// The lines are what a framer reading their bytes would cut:
			// hand them over rather than join and cut them again.
			if out := wire.FramesOfLines(lines, opts); len(out) == 1 && len(out[0].Lines) == len(lines) {
				out[0].Lines = lines
				return out[0]
			}
			return regroup(lines)
		}
		var raw []byte
		for i := range lines {
			raw = append(raw, lines[i].Content...)
			raw = append(raw, lines[i].Term.Bytes()...)
		}
		src = bytes.NewReader(raw)
	}
	fr := wire.NewFramer(src, opts)
	f, err := fr.Next()
	if err == nil && len(f.Lines) == len(lines) {
		if _, err := fr.Next(); err == io.EOF {
			f.Lines = lines // the recorded lengths, and the caller's slices
			return f
		}
	}
	return regroup(lines)
}

// regroup classifies recorded lines that the framer would now cut
// differently as the one frame they were.
func regroup(lines []wire.Line) *wire.Frame {
	f := &wire.Frame{Lines: lines}
	joined := f.Raw()
	joined = joined[:len(joined)-len(lines[len(lines)-1].Term.Bytes())]
	f.Msg, f.Findings = wire.Classify(joined)
	if len(lines) > 1 {
		f.Findings = append([]wire.Finding{wire.NewFinding("multi-line-frame",
			"one JSON value spread over several lines; a message must be one line")}, f.Findings...)
	}
	for _, l := range lines {
		if l.Truncated {
			f.Findings = append(f.Findings, wire.NewFinding("oversize-frame", "a line was longer than the limit and was kept truncated"))
			break
		}
	}
	return f
}

// maxFiller bounds the filler the framer is shown for a truncated line: a
// capture is a file from elsewhere, and its "len" must not make opening it
// read for minutes. Real truncated lines are far below it.
const maxFiller = 1 << 30

// filler reads as n bytes of 'x': the part of a truncated line that the
// capture never held, for the framer to count and drop.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.n))
	for i := range p[:n] {
		p[i] = 'x'
	}
	f.n -= int64(n)
	return n, nil
}

// frameLimit is the framer's limit for rebuilding whole lines: the
// session's own (its pending bounds follow from it), unless a line is
// longer, which a whole line cannot have been; none may be cut now.
func frameLimit(maxFrame, longest int) int {
	if maxFrame <= 0 {
		maxFrame = wire.DefaultMaxFrame
	}
	return max(maxFrame, longest)
}

// runLimit bounds the bytes of one batch of server frames rebuilt together.
const runLimit = 1 << 20

// rebuild classifies the frames of events read from a capture (they hold
// only their recorded lines), as rebuildFrame does one by one. The server's
// frames crossed the wire as one stream, cut by one framer: consecutive
// ones are rebuilt by one framer over their joined bytes, as the live one
// saw them (which is also much cheaper than a framer per frame), as long as
// it cuts them exactly as recorded; where it would not, or across a process
// start (a fresh stdout), or around a truncated line, they are rebuilt one
// by one. The client's frames were cut one send at a time, so they are
// rebuilt one by one. pre holds, by index, what the decoder classified of
// the frames (shorter than evs, or zero, where it did not).
func (rb *rebuilder) rebuild(evs []eventlog.Event, pre []wire.Prepared, maxFrame int) {
	run, runPre := rb.run[:0], rb.pre[:0]
	defer func() {
		clear(run[:cap(run)])
		clear(runPre[:cap(runPre)])
		rb.run, rb.pre = run[:0], runPre[:0]
	}()
	size := 0
	endRun := func() {
		rebuildRun(run, runPre, maxFrame)
		run, runPre, size = run[:0], runPre[:0], 0
	}
	var one [1]*wire.Frame
	var onePre [1]wire.Prepared
	for i := range evs {
		ev := &evs[i]
		var p wire.Prepared
		if i < len(pre) {
			p = pre[i]
		}
		switch {
		case ev.Type == eventlog.EventProcess:
			endRun()
		case ev.Type != eventlog.EventFrame:
		case ev.Dir == wire.ServerToClient && !ev.Frame.Truncated():
			run = append(run, ev.Frame)
			runPre = append(runPre, p)
			for _, l := range ev.Frame.Lines {
				size += len(l.Content) + 2
			}
			if size >= runLimit {
				endRun()
			}
		default:
			if ev.Dir == wire.ServerToClient {
				endRun()
			}
			one[0], onePre[0] = ev.Frame, p
			rebuildRun(one[:], onePre[:], maxFrame)
		}
	}
	endRun()
}

// rebuilder rebuilds the frames of the events read, a batch at a time
// (rebuild), its slices reused from batch to batch.
type rebuilder struct {
	run []*wire.Frame
	pre []wire.Prepared
}

// rebuildRun classifies consecutive server frames with one framer, or one by
// one when that framer would group their lines otherwise than recorded.
// Lines as a Splitter cuts them (a recording's, always) are framed as they
// are, with what the decoder classified of them (wire.Reframe: each frame
// filled in place, not made again and copied).
func rebuildRun(run []*wire.Frame, pre []wire.Prepared, maxFrame int) {
	if len(run) == 0 {
		return
	}
	n := 0
	for _, f := range run {
		n = max(n, longest(f.Lines))
	}
	if wire.Reframe(run, pre, wire.Options{MaxFrame: frameLimit(maxFrame, n)}) {
		return
	}
	if len(run) == 1 {
		*run[0] = *rebuildFrame(run[0].Lines, maxFrame)
		return
	}
	lines := make([]wire.Line, 0, len(run))
	for _, f := range run {
		lines = append(lines, f.Lines...)
	}
	out := runFrames(lines, maxFrame)
	same := len(out) == len(run)
	for i := 0; same && i < len(out); i++ {
		same = len(out[i].Lines) == len(run[i].Lines)
	}
	for i, f := range run {
		lines := f.Lines
		if same {
			*f = *out[i]
			f.Lines = lines // the recorded lines: their slices, their lengths
		} else {
			*f = *rebuildFrame(lines, maxFrame)
		}
	}
}

// runFrames frames the lines of a run of server frames as one stream: handed
// over as they are when a framer would cut their bytes into the same lines
// (a recording's, always), else joined and cut again.
func runFrames(lines []wire.Line, maxFrame int) []*wire.Frame {
	opts := wire.Options{MaxFrame: frameLimit(maxFrame, longest(lines))}
	if wire.SplitterCut(lines) {
		return wire.FramesOfLines(lines, opts)
	}
	size := 0
	for _, l := range lines {
		size += len(l.Content) + 2
	}
	raw := make([]byte, 0, size) // grown from nil, it was a third of reading a capture
	for _, l := range lines {
		raw = append(raw, l.Content...)
		raw = append(raw, l.Term.Bytes()...)
	}
	return wire.FramesOf(raw, opts)
}

// longest is the length of the longest of lines.
func longest(lines []wire.Line) int {
	n := 0
	for i := range lines {
		n = max(n, len(lines[i].Content))
	}
	return n
}
