package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"linesman/wire"
)

// The reader cuts the file into lines in the buffer it read them into, and
// lends the frames it decodes the bytes they hold there: a frame embedded
// as JSON is not copied out of its record. A read buffer is never written
// again below what was cut from it (the next read goes after it, into a new
// buffer once it is full, which takes the partial line along), so what a
// frame borrows stays as it was. A frame keeps its whole buffer alive: where
// the frames of a read are less than half its bytes (a capture mostly of
// stderr, notes or findings), they are copied after all (see lendOrCopy), so
// that what the log keeps is never much less than what it pins.

// readSize is the size of the reader's buffers: a read of a file fills one.
const readSize = 256 << 10

// maxHeaderLine bounds the first line of a capture (a header holds the
// command and the environment's names, values only when asked): a longer
// first line means the file is not a capture (/dev/zero, a binary).
const maxHeaderLine = 4 << 20

// lineBuffer is the reader's read buffer and what it holds of the next
// lines.
type lineBuffer struct {
	buf        []byte // buf[:start] may be lent to frames: never written again
	start, end int    // bytes read, not cut into lines yet: buf[start:end]
	scanned    int    // of them, how many are known to hold no newline
	overlong   int    // bytes so far of a line too long to keep (see cut)

	lent      []int // indexes in the queue of the events whose frames borrow
	lentBytes int   // the bytes they borrow
	cutBytes  int   // bytes cut into lines since the queue was flushed
}

// pending is the partial last line: what was read after the last newline.
func (lb *lineBuffer) pending() []byte { return lb.buf[lb.start:lb.end] }

// room makes room to read into after the pending bytes: a new buffer when
// this one is full, the pending bytes copied to its start.
func (lb *lineBuffer) room() {
	if lb.end < len(lb.buf) {
		return
	}
	rest := lb.buf[lb.start:lb.end]
	buf := make([]byte, max(readSize, 2*len(rest)))
	prefault(buf)
	lb.end = copy(buf, rest)
	lb.buf, lb.start = buf, 0
}

func newReader(src io.Reader, path string, opts OpenOptions) *reader {
	return &reader{src: src, path: path, opts: opts, line: 1}
}

// maxLine bounds a line of the file: the header's bound, then what the
// longest record can take, a frame of the session's largest kept size
// spelled as JSON escapes (6 bytes for one) with room for the rest. A longer
// line is skipped as it streams by, never held whole: opening a file
// without newlines cannot grow without bound.
func (rd *reader) maxLine() int {
	if rd.c == nil {
		return maxHeaderLine
	}
	mf := rd.maxFrame
	if mf <= 0 {
		mf = wire.DefaultMaxFrame
	}
	return 6*mf + 1<<20
}

// poll reads what the source holds now and turns each complete line into a
// record. It returns at EOF (a nil error): a partial line stays pending.
func (rd *reader) poll() error {
	lb := &rd.lines
	for {
		lb.room()
		n, err := rd.src.Read(lb.buf[lb.end:])
		rd.offset += int64(n)
		lb.end += n
		if n > 0 {
			if perr := rd.cut(); perr != nil {
				return perr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("capture: reading %s: %w", rd.path, err)
		}
	}
}

// cut handles the complete lines read and not handled yet, then flushes the
// events they made. A line longer than maxLine is not kept: the first line
// ends the read (not a capture), a later one is skipped as it streams by
// (its bytes are read over, into the same space).
func (rd *reader) cut() error {
	lb := &rd.lines
	for lb.start < lb.end {
		i := bytes.IndexByte(lb.buf[lb.start+lb.scanned:lb.end], '\n')
		if i < 0 {
			lb.scanned = lb.end - lb.start
		} else {
			i += lb.scanned
			lb.scanned = 0
		}
		if n := max(i, lb.scanned); lb.overlong > 0 || n > rd.maxLine() {
			if rd.c == nil {
				return fmt.Errorf("capture: %s: %w (its first line is longer than %d bytes)", rd.path, ErrNotCapture, maxHeaderLine)
			}
			if i < 0 {
				lb.overlong += n
				lb.end, lb.scanned = lb.start, 0
				break
			}
			rd.skip(rd.line, lb.overlong+i, fmt.Sprintf("a line longer than %d bytes, more than any record takes", rd.maxLine()))
			rd.line++
			lb.overlong = 0
			lb.start += i + 1
			continue
		}
		if i < 0 {
			break
		}
		line := lb.buf[lb.start : lb.start+i : lb.start+i]
		lb.start += i + 1
		lb.cutBytes += i + 1
		if err := rd.record(line); err != nil {
			return err
		}
	}
	rd.flush()
	return nil
}

// end takes the last line when nothing more will come: a record that lacks
// only its newline (the writer stopped right before it) is whole and kept;
// anything else is torn, skipped and counted in Torn.
func (rd *reader) end() error {
	lb := &rd.lines
	if line := lb.pending(); len(line) > 0 && json.Valid(line) {
		lb.start, lb.scanned = lb.end, 0
		lb.cutBytes += len(line)
		if err := rd.record(line[:len(line):len(line)]); err != nil {
			return err
		}
		rd.flush()
	}
	rd.finish()
	rd.c.Torn = len(lb.pending())
	return nil
}

// lendOrCopy settles, before the queue is flushed, whether its frames keep
// borrowing the read buffer: only if they hold at least half of the bytes
// cut since the last flush; else each is copied out.
func (rd *reader) lendOrCopy() {
	lb := &rd.lines
	if 2*lb.lentBytes < lb.cutBytes {
		for _, i := range lb.lent {
			ev := &rd.queue[i]
			if ev.Stderr != nil {
				ev.Stderr.Content = bytes.Clone(ev.Stderr.Content)
			}
			if ev.Frame != nil {
				for k := range ev.Frame.Lines {
					ev.Frame.Lines[k].Content = bytes.Clone(ev.Frame.Lines[k].Content)
				}
			}
		}
	}
	lb.lent, lb.lentBytes, lb.cutBytes = lb.lent[:0], 0, 0
}
