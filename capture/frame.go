package capture

import (
	"bytes"
	"io"

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
// One thing per-frame rebuilding cannot see is context: the lines of a run
// that began a JSON value and never completed it are rebuilt one by one, so
// their non-json-line message counts a run of one line.
func rebuildFrame(lines []wire.Line, maxFrame int) *wire.Frame {
	var src io.Reader
	opts := wire.Options{}
	if len(lines) == 1 && lines[0].Truncated {
		l := &lines[0]
		opts.MaxFrame = len(l.Content)
		src = io.MultiReader(bytes.NewReader(l.Content), &filler{n: l.Length - int64(len(l.Content))},
			bytes.NewReader(l.Term.Bytes()))
	} else {
		var raw []byte
		longest := 0
		for i := range lines {
			raw = append(raw, lines[i].Content...)
			raw = append(raw, lines[i].Term.Bytes()...)
			longest = max(longest, len(lines[i].Content))
		}
		// No line may be cut now that was whole then.
		opts.MaxFrame = max(longest+1, maxFrame, wire.DefaultMaxFrame)
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
