package wire

import (
	"bytes"
	"fmt"
	"io"
)

// Framer turns a byte stream into classified logical frames.
//
// Each physical line is normally one frame. A line that is not JSON on its
// own but starts an object or array ("{" or "[" first) starts a candidate:
// following lines are added while the joined text (terminators included) is
// still the prefix of one JSON value. When the value completes at the end of
// a line, all those lines are one frame with the finding multi-line-frame.
// When it can no longer complete, or the run exceeds the bounds of Options,
// or the stream ends, each line of the run becomes its own non-json-line
// frame. A line that is a whole JSON-RPC object on its own (it has a
// "jsonrpc" member) always ends a run: a stray "{" printed on stdout must not
// hold back the messages after it.
//
// Only a line that could start a JSON value is ever held back; anything else
// is returned as soon as its line ends. A Framer is not safe for concurrent use.
type Framer struct {
	sp           *Splitter
	opts         Options
	pending      []Line
	pendingBytes int
	inc          incScanner
	queue        []*Frame
	qhead        int
	slab         []frameOfOne
	slabSize     int
	err          error
	params       ParamsIndex // of the last frame classified fresh (see Params)
}

// NewFramer returns a Framer reading from r.
func NewFramer(r io.Reader, opts Options) *Framer {
	opts = opts.withDefaults()
	return &Framer{sp: NewSplitter(r, opts.MaxFrame), opts: opts}
}

// Next returns the next logical frame, or io.EOF (or the reader's error) when
// every byte of the stream has been returned in a frame.
func (f *Framer) Next() (*Frame, error) {
	for f.qhead == len(f.queue) {
		f.queue = f.queue[:0]
		f.qhead = 0
		if f.err != nil {
			return nil, f.err
		}
		line, err := f.sp.Next()
		if err != nil {
			f.err = err
			f.flush(streamEnded)
			continue
		}
		f.push(line)
	}
	fr := f.queue[f.qhead]
	f.queue[f.qhead] = nil
	f.qhead++
	return fr, nil
}

// FramesOf returns all the frames of b. The frames share one copy of what
// they keep of b, made once: a short message sent by hand costs its own
// size, not a read buffer, and a line longer than opts.MaxFrame costs the
// part kept, not the whole (b itself is not kept, nor written to).
func FramesOf(b []byte, opts Options) []*Frame {
	opts = opts.withDefaults()
	sp := &Splitter{max: opts.MaxFrame, size: readSize, buf: b[:len(b):len(b)], end: len(b), err: io.EOF}
	f := &Framer{sp: sp, opts: opts}
	var out []*Frame
	kept := 0
	for {
		fr, err := f.Next()
		if err != nil {
			break
		}
		for _, l := range fr.Lines {
			kept += len(l.Content)
		}
		out = append(out, fr)
	}
	own := make([]byte, 0, kept)
	for _, fr := range out {
		for i := range fr.Lines {
			l := &fr.Lines[i]
			at := len(own)
			own = append(own, l.Content...)
			l.Content = own[at:len(own):len(own)]
		}
	}
	return out
}

// streamEnded is why a run still pending at the end of the stream ends.
const streamEnded = "the stream ended before the value was complete"

// FramesOfLines returns the frames of a stream that was cut into lines,
// exactly as a Framer reading the stream's bytes returns them, without
// reading the bytes again: for lines a Splitter cut (or that it would cut
// the same way: see [SplitterCut]), kept elsewhere, such as the lines of
// a recording. The frames hold the lines' Content as it is.
func FramesOfLines(lines []Line, opts Options) []*Frame {
	f := &Framer{opts: opts.withDefaults()}
	out := make([]*Frame, 0, len(lines))
	for _, l := range lines {
		f.push(l)
		out = append(out, f.queue...)
		clear(f.queue)
		f.queue = f.queue[:0]
	}
	f.flush(streamEnded)
	return append(out, f.queue...)
}

// SplitterCut reports whether a Splitter reading the bytes of lines (each
// line's content, then its terminator) would cut them into the same lines
// with no limit on their length: no line holds a line feed or lost a tail
// (Truncated, or a Length other than its content's), a line that ends in
// LF does not end in CR (the Splitter would have made that CRLF), and only
// the last may lack a terminator, if it holds a byte.
func SplitterCut(lines []Line) bool {
	for i, l := range lines {
		if !lineCut(l, i == len(lines)-1, false) {
			return false
		}
	}
	return true
}

// lineCut is SplitterCut of one line, last or not; noLF says that the
// line is known to hold no line feed, which is then not searched for.
func lineCut(l Line, last, noLF bool) bool {
	c := l.Content
	if l.Truncated || l.Length != int64(len(c)) || (!noLF && bytes.IndexByte(c, '\n') >= 0) {
		return false
	}
	switch l.Term {
	case TermLF:
		return len(c) == 0 || c[len(c)-1] != '\r'
	case TermCRLF:
		return true
	default:
		return last && len(c) > 0
	}
}

func (f *Framer) push(line Line) {
	if line.Truncated {
		f.flush("an oversize line came next")
		var m Message
		f.single(line, &m, classify(line.Content, true, &m, nil))
		return
	}
	if len(f.pending) > 0 {
		var c classified
		var m Message
		alone := false
		if b := line.Content; skipWS(b) < len(b) && b[skipWS(b)] == '{' {
			c, alone = classify(b, false, &m, nil), true
			if c.rpcObject {
				f.flush("a complete message came next")
				f.single(line, &m, c)
				return
			}
		}
		r := f.inc.feed(f.pending[len(f.pending)-1].Term.Bytes())
		if r == incMore {
			r = f.inc.feed(line.Content)
		}
		switch r {
		case incDone:
			f.pending = append(f.pending, line)
			f.multi()
		case incMore:
			f.pending = append(f.pending, line)
			f.pendingBytes += len(line.Content) + 2
			if len(f.pending) > f.opts.MaxPendingLines || f.pendingBytes > f.opts.MaxPendingBytes {
				f.flush(fmt.Sprintf("the run passed the reassembly limit (%d lines or %d bytes)", f.opts.MaxPendingLines, f.opts.MaxPendingBytes))
			}
		default:
			if f.inc.brokenString {
				f.flush("it breaks off inside a string: a raw line break in a string value must be written as \\n")
			} else {
				f.flush("the next line cannot continue it")
			}
			if !alone {
				c = classify(line.Content, false, &m, nil)
			}
			f.fresh(line, &m, c)
		}
		return
	}
	// The common case: classify straight into the frame that will hold it.
	m := &f.peek().Msg
	f.fresh(line, m, classify(line.Content, false, m, &f.params))
}

// fresh handles a line when nothing is pending.
func (f *Framer) fresh(line Line, m *Message, c classified) {
	if c.st == statusPrefix {
		body := bytes.TrimPrefix(line.Content, bom)
		if i := skipWS(body); i < len(body) && (body[i] == '{' || body[i] == '[') {
			f.inc.reset()
			if f.inc.feed(body) == incMore {
				f.pending = append(f.pending[:0], line)
				f.pendingBytes = len(line.Content) + 2
				return
			}
		}
	}
	f.single(line, m, c)
}

// flush emits every pending line as a frame of its own: together they never
// completed a value, and a fragment of one is not a message either. why
// says what ended the run.
func (f *Framer) flush(why string) {
	n := len(f.pending)
	for i, line := range f.pending {
		var m Message
		c := classify(line.Content, false, &m, nil)
		if c.st != statusEmpty {
			m = Message{}
			c.finds = append([]Finding{NewFinding("non-json-line",
				fmt.Sprintf("not JSON: line %d of %d that began a JSON value, but %s", i+1, n, why))},
				textFindings(bytes.TrimPrefix(line.Content, bom), 0)...)
			if bytes.HasPrefix(line.Content, bom) {
				c.finds = append(c.finds, NewFinding("utf8-bom", "the line starts with a UTF-8 byte order mark (EF BB BF)"))
			}
		}
		f.single(line, &m, c)
	}
	f.pending = f.pending[:0]
	f.pendingBytes = 0
}

// frameOfOne holds a one-line frame and its line in one allocation.
type frameOfOne struct {
	Frame
	line [1]Line
}

// peek returns the frame single will fill next. Frames come from slabs
// that double from 1 to 32 frames: a long stream pays one allocation per 32
// frames, a single message sent by hand does not pay for 31 more.
func (f *Framer) peek() *frameOfOne {
	if len(f.slab) == 0 {
		f.slabSize = min(32, max(1, 2*f.slabSize))
		f.slab = make([]frameOfOne, f.slabSize)
	}
	return &f.slab[0]
}

func (f *Framer) single(line Line, m *Message, c classified) {
	x := f.peek()
	f.slab = f.slab[1:]
	if m != &x.Msg {
		x.Msg = *m
	}
	x.Findings = c.finds
	x.line[0] = line
	fr := &x.Frame
	fr.Lines = x.line[:1:1]
	if c.indexed {
		f.params.frame = fr
	}
	f.lineFindings(fr, c.noCR)
	f.queue = append(f.queue, fr)
}

// multi emits the pending lines as one frame.
func (f *Framer) multi() {
	lines := make([]Line, len(f.pending))
	copy(lines, f.pending)
	f.pending = f.pending[:0]
	f.pendingBytes = 0
	fr := &Frame{Lines: lines}
	joined := fr.Raw()
	joined = joined[:len(joined)-len(lines[len(lines)-1].Term.Bytes())]
	c := classify(joined, false, &fr.Msg, nil)
	fr.Findings = append([]Finding{NewFinding("multi-line-frame",
		fmt.Sprintf("one JSON value spread over %d lines; a message must be one line", len(lines)))}, c.finds...)
	f.lineFindings(fr, false)
	f.queue = append(f.queue, fr)
}

// lineFindings adds what only the physical lines show: line ends, sizes, a
// lone CR inside a line, a BOM at the start of a later line.
func (f *Framer) lineFindings(fr *Frame, noCR bool) {
	crlf := 0
	for i, l := range fr.Lines {
		if l.Term == TermCRLF {
			crlf++
		}
		if l.Truncated {
			addOnce(fr, "oversize-frame", fmt.Sprintf("a line of %d bytes exceeds the %d-byte limit; only the first %d bytes are kept", l.Length, f.opts.MaxFrame, len(l.Content)))
		}
		if !noCR {
			if j := bytes.IndexByte(l.Content, '\r'); j >= 0 {
				addOnce(fr, "control-characters", fmt.Sprintf("a raw carriage return (0x0d) inside the line at byte %d", j))
			}
		}
		if i > 0 && bytes.HasPrefix(l.Content, bom) {
			addOnce(fr, "utf8-bom", fmt.Sprintf("line %d of the frame starts with a UTF-8 byte order mark", i+1))
		}
	}
	if crlf > 0 {
		msg := `the line ends with "\r\n" instead of "\n"`
		if len(fr.Lines) > 1 {
			msg = fmt.Sprintf(`%d of %d lines end with "\r\n" instead of "\n"`, crlf, len(fr.Lines))
		}
		addOnce(fr, "crlf-line-ending", msg)
	}
	if last := fr.Lines[len(fr.Lines)-1]; last.Term == TermNone {
		addOnce(fr, "unterminated-frame", fmt.Sprintf("the stream ended after %d bytes with no newline", last.Length))
	}
}

func addOnce(fr *Frame, code, msg string) {
	if !fr.Has(code) {
		fr.Findings = append(fr.Findings, NewFinding(code, msg))
	}
}
