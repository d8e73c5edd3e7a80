package wire

import (
	"bytes"
	"io"
)

// readSize is how much the Splitter asks of the reader at once. Pipes hand
// over at most 64 KiB per read; files and byte slices give more, and big reads
// keep the per-call overhead negligible for multi-megabyte lines.
const readSize = 256 << 10

// Splitter cuts a byte stream into physical lines, keeping their exact bytes.
//
// A line ends at "\n"; a "\r" right before it makes the terminator "\r\n".
// Bytes after the last "\n" form a final line with terminator TermNone. Lines
// have no length limit other than maxLine: the first maxLine bytes of a longer
// line are kept, Truncated is set and Length counts every byte, and the next
// line starts right after the long line's terminator.
//
// A Splitter reads only when it has no complete line buffered, and then calls
// Read once, so a live pipe yields each line as soon as it has arrived.
type Splitter struct {
	r          io.Reader
	max        int
	buf        []byte
	start, end int
	err        error
}

// NewSplitter returns a Splitter reading from r. maxLine is the longest line
// content kept whole; 0 or less means DefaultMaxFrame.
func NewSplitter(r io.Reader, maxLine int) *Splitter {
	if maxLine <= 0 {
		maxLine = DefaultMaxFrame
	}
	return &Splitter{r: r, max: maxLine}
}

// Next returns the next line. It returns io.EOF (or the reader's error) once
// every byte has been returned in a line. Line.Content is a fresh slice that
// the caller owns. A read error other than io.EOF first ends the partial line
// (TermNone), then is returned by the following call.
func (s *Splitter) Next() (Line, error) {
	var (
		acc      []byte // content kept so far, when the line spans reads
		length   int64  // bytes of the line seen so far
		last     byte   // the last byte seen so far
		spanning bool   // the line started in an earlier chunk
	)
	for {
		if s.start < s.end {
			chunk := s.buf[s.start:s.end]
			if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
				s.start += i + 1
				return s.finish(acc, spanning, length, last, chunk[:i], TermLF), nil
			}
			acc = s.keep(acc, chunk)
			length += int64(len(chunk))
			last = chunk[len(chunk)-1]
			spanning = true
			s.start, s.end = 0, 0
		}
		if s.err != nil {
			if !spanning {
				return Line{}, s.err
			}
			return s.finish(acc, true, length, last, nil, TermNone), nil
		}
		if spanning && len(acc) >= readSize/4 && len(acc) < s.max {
			// A long line: read straight into its own buffer, so that its
			// bytes are copied once, whatever its size. (A short line that
			// merely crosses a read boundary takes the shared buffer.)
			room := s.room(&acc)
			n := s.read(room)
			if n == 0 {
				continue
			}
			got := room[:n]
			if i := bytes.IndexByte(got, '\n'); i >= 0 {
				// The line ends inside this read; what follows belongs to
				// the next lines and goes to the shared buffer.
				s.start, s.end = 0, copy(s.buf, got[i+1:])
				acc = acc[:len(acc)+i]
				length += int64(i)
				if i > 0 {
					last = got[i-1]
				}
				return s.finish(acc, true, length, last, nil, TermLF), nil
			}
			acc = acc[:len(acc)+n]
			length += int64(n)
			last = got[n-1]
			continue
		}
		s.fill()
	}
}

// room makes space at the end of acc for one read and returns that space.
// The read size follows the line's length so far (a line that merely
// crosses a read boundary stays cheap), up to readSize; the buffer grows
// geometrically, never beyond the line limit.
func (s *Splitter) room(acc *[]byte) []byte {
	a := *acc
	want := min(readSize, s.max-len(a), max(len(a), 4096))
	if cap(a)-len(a) < want {
		b := make([]byte, len(a), min(s.max, max(2*cap(a), len(a)+want)))
		copy(b, a)
		a = b
		*acc = a
	}
	return a[len(a) : len(a)+min(cap(a)-len(a), readSize, s.max-len(a))]
}

// keep appends as much of chunk to acc as the limit allows.
func (s *Splitter) keep(acc, chunk []byte) []byte {
	room := s.max - len(acc)
	if room <= 0 {
		return acc
	}
	if room > len(chunk) {
		room = len(chunk)
	}
	if acc == nil {
		// A line spanning reads is usually long: leave room for the reads
		// that follow, which go straight into acc.
		acc = make([]byte, 0, min(s.max, max(2*room, 4096)))
	}
	return append(acc, chunk[:room]...)
}

// finish builds the Line from what was accumulated plus the final part.
func (s *Splitter) finish(acc []byte, spanning bool, length int64, last byte, part []byte, term Terminator) Line {
	total := length + int64(len(part))
	if len(part) > 0 {
		last = part[len(part)-1]
	}
	if term == TermLF && total > 0 && last == '\r' {
		term = TermCRLF
		total--
	}
	var content []byte
	if !spanning {
		// append to nil: a copy without zeroing the new memory first.
		content = append([]byte(nil), part[:min(int64(s.max), total)]...)
	} else {
		acc = s.keep(acc, part)
		if int64(len(acc)) > total {
			acc = acc[:total] // drop the '\r' of "\r\n"
		}
		content = acc
	}
	return Line{Content: content, Term: term, Length: total, Truncated: total > int64(len(content))}
}

func (s *Splitter) fill() {
	if s.buf == nil {
		s.buf = make([]byte, readSize)
	}
	s.start, s.end = 0, s.read(s.buf)
}

// read calls Read once (a few times if it returns nothing and no error),
// recording the error for later.
func (s *Splitter) read(p []byte) int {
	for tries := 0; ; tries++ {
		n, err := s.r.Read(p)
		if err != nil {
			s.err = err
			return n
		}
		if n > 0 {
			return n
		}
		if tries >= 100 {
			s.err = io.ErrNoProgress
			return 0
		}
	}
}
