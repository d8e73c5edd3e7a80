package wire

// Lines classified where they were found, and framed without reading them
// again: a capture's reader finds each recorded line in its record (a JSON
// value embedded in a larger text) and classifies it in the same pass
// (PrepareValue); Reframe then frames the recorded lines of a stream with
// those classifications, as a Framer reading the lines' bytes would.

// Prepared is one line's classification made ahead of framing by
// [PrepareValue]; [Reframe] takes it instead of classifying the line again.
// The zero Prepared is none.
type Prepared struct {
	c  classified
	ok bool
}

// OK reports whether p holds a classification.
func (p Prepared) OK() bool { return p.ok }

// PrepareValue classifies the JSON value that starts at text[i], nested
// inside depth levels of text, in one pass that both finds its end, as
// [ValueEnd] does, and classifies it, as [Classify] classifies a line
// holding exactly that value: it writes the message into *m and returns
// the offset just past the value, with the rest of the classification for
// [Reframe].
//
// It prepares only what it can vouch for: a value that ValueEnd accepts
// (no whitespace skipped before it) and that holds no raw line feed
// between its tokens (a Splitter would have cut the line there). For
// anything else it returns a zero Prepared, and *m and end mean nothing:
// the caller asks ValueEnd.
func PrepareValue(text []byte, i, depth int, m *Message) (end int, p Prepared) {
	*m = Message{}
	if i >= len(text) {
		return i, Prepared{}
	}
	s := scanner{s: text[i:], depth: depth}
	var t top
	var ok bool
	if s.s[0] == '{' {
		t.object(&s)
		ok = t.done
	} else {
		ok = s.value()
	}
	if !ok || s.lf {
		return i, Prepared{}
	}
	s.s = s.s[:s.i]
	p.c.st = statusJSON
	p.c.noCR = !s.cr
	t.found(&p.c, m, &s, 0, false)
	p.ok = true
	return i + s.i, p
}

// Reframe classifies, in place, frames that hold only their lines: the
// recorded frames of one stream, in order. It frames their lines as
// [FramesOfLines] does, taking for frame k, when pre[k] holds one, the
// classification [PrepareValue] made of its line (a frame of one line,
// whose Msg holds the message PrepareValue wrote): a frame that the framer
// would make of that line alone is not classified again, nor allocated
// again. pre may be shorter than frames, or nil.
//
// It reports false when it cannot stand for a Framer reading the lines'
// bytes: the lines are not what a Splitter would cut ([SplitterCut]), or
// the framer groups them otherwise than the frames do. The frames' Lines
// are never changed; when it reports false their Msg and Findings are
// undefined, for the caller to classify them another way.
func Reframe(frames []*Frame, pre []Prepared, opts Options) bool {
	if !framesCut(frames, pre) {
		return false
	}
	f := &Framer{opts: opts.withDefaults()}
	next := 0 // the frame that the framer's next frame must match
	take := func() bool {
		for _, q := range f.queue {
			if next == len(frames) || len(q.Lines) != len(frames[next].Lines) {
				return false
			}
			lines := frames[next].Lines
			*frames[next] = *q
			frames[next].Lines = lines
			next++
		}
		clear(f.queue)
		f.queue = f.queue[:0]
		return true
	}
	for k, fr := range frames {
		if k < len(pre) && pre[k].ok && len(fr.Lines) == 1 && len(f.pending) == 0 {
			// What push would do with a line when nothing is pending and
			// the line is JSON (fresh, then single), minus the classify.
			if next != k {
				return false
			}
			fr.Findings = pre[k].c.finds
			f.lineFindings(fr, pre[k].c.noCR)
			next++
			continue
		}
		for _, l := range fr.Lines {
			f.push(l)
			if !take() {
				return false
			}
		}
	}
	f.flush(streamEnded)
	return take() && next == len(frames)
}

// framesCut is SplitterCut of the frames' lines, all in order, trusting
// PrepareValue that a prepared line holds no line feed: it does not search
// for one.
func framesCut(frames []*Frame, pre []Prepared) bool {
	for k, fr := range frames {
		prepared := k < len(pre) && pre[k].ok
		for i, l := range fr.Lines {
			last := k == len(frames)-1 && i == len(fr.Lines)-1
			if !lineCut(l, last, prepared && len(fr.Lines) == 1) {
				return false
			}
		}
	}
	return true
}
