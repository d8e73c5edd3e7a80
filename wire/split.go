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
//
// Lines are not copied: a line's Content is a piece of the buffer it was read
// into, capped so that appending to it cannot reach its neighbours, and the
// Splitter never writes to a piece it has handed out (it reads into fresh
// space, and into a new buffer when one is full). A line longer than half a
// buffer is copied once into a buffer of its own. The cost is that a short
// line kept by the caller keeps its whole buffer (readSize bytes) alive.
//
// From a [ChunkReader], the buffers are the reader's chunks themselves: a
// line is a piece of the chunk that holds it, and only a line that spans
// two chunks is copied (its start, and the rest up to its end); a line
// keeps its chunk alive.
type Splitter struct {
	r          io.Reader
	cr         ChunkReader // r, when it hands over chunks (nil: read into buf)
	max        int
	size       int    // buffer size: readSize, smaller in tests
	buf        []byte // len(buf) == size (a chunk: its length); buf[:end] may be handed out
	start, end int    // unreturned bytes are buf[start:end]
	next       []byte // the rest of a chunk, after what fillChunk joined into buf
	err        error
	scratch    [][]byte // reused read buffers for long lines, never handed out
	pieces     [][]byte
}

// A ChunkReader hands over its bytes in chunks that the caller may keep:
// the reader never writes to a chunk it returned, nor lets anyone else.
// A [Splitter] reading from one cuts its lines out of the chunks rather
// than copying them into buffers of its own.
type ChunkReader interface {
	io.Reader
	// ReadChunk returns the next bytes, which are the caller's from then
	// on, or an error as Read returns one (with no bytes, or with bytes
	// that come before it).
	ReadChunk() ([]byte, error)
}

// NewSplitter returns a Splitter reading from r. maxLine is the longest line
// content kept whole; 0 or less means DefaultMaxFrame.
func NewSplitter(r io.Reader, maxLine int) *Splitter {
	return newSplitter(r, maxLine, readSize)
}

// newSplitter lets tests use tiny buffers, so that long lines, buffer
// changes and reads split anywhere are exercised by small inputs.
func newSplitter(r io.Reader, maxLine, size int) *Splitter {
	if maxLine <= 0 {
		maxLine = DefaultMaxFrame
	}
	cr, _ := r.(ChunkReader)
	return &Splitter{r: r, cr: cr, max: maxLine, size: max(size, 16)}
}

// Next returns the next line. It returns io.EOF (or the reader's error) once
// every byte has been returned in a line. Line.Content belongs to the
// caller: the Splitter never touches it again. A read error other than
// io.EOF first ends the partial line (TermNone), then is returned by the
// following call.
func (s *Splitter) Next() (Line, error) {
	scanned := 0 // bytes of buf[start:end] known to hold no '\n'
	for {
		if i := bytes.IndexByte(s.buf[s.start+scanned:s.end], '\n'); i >= 0 {
			j := s.start + scanned + i
			line := s.buf[s.start:j]
			s.start = j + 1
			return s.short(line, TermLF), nil
		}
		scanned = s.end - s.start
		if s.err != nil {
			if scanned == 0 {
				return Line{}, s.err
			}
			line := s.buf[s.start:s.end]
			s.start = s.end
			return s.short(line, TermNone), nil
		}
		if scanned >= s.size/2 {
			return s.long(), nil
		}
		s.fill()
	}
}

// short builds a Line from bytes still in the buffer.
func (s *Splitter) short(line []byte, term Terminator) Line {
	if term == TermLF && len(line) > 0 && line[len(line)-1] == '\r' {
		term = TermCRLF
		line = line[:len(line)-1]
	}
	n := min(len(line), s.max)
	return Line{Content: line[:n:n], Term: term, Length: int64(len(line)), Truncated: n < len(line)}
}

// long reads a line of at least s.size/2 bytes. Its bytes are read into
// scratch buffers that the Splitter reuses, each filled before the next is
// taken (however small the reads), then joined once into a buffer of
// exactly the kept size: a long line costs one read and one copy, with no
// regrowth and no zeroing. Bytes beyond the limit are counted, not kept.
func (s *Splitter) long() Line {
	part := s.buf[s.start:s.end]
	s.start = s.end
	kept := min(len(part), s.max)
	length := int64(len(part))
	last := part[len(part)-1]
	term := TermNone
	used, off := 0, 0 // scratch buffers holding this line; bytes in the last one
	for s.err == nil && term == TermNone {
		var got []byte
		if kept < s.max {
			if used == 0 || off == s.size {
				if used == len(s.scratch) {
					s.scratch = append(s.scratch, make([]byte, s.size))
				}
				used, off = used+1, 0
			}
			room := s.scratch[used-1][off:min(s.size, off+s.max-kept)]
			got = room[:s.read(room)]
			if i := bytes.IndexByte(got, '\n'); i >= 0 {
				// The line ends inside this read; what follows belongs to
				// the next lines.
				s.stash(got[i+1:])
				got, term = got[:i], TermLF
			}
			off += len(got)
			kept += len(got)
		} else {
			s.fill()
			got = s.buf[s.start:s.end]
			if i := bytes.IndexByte(got, '\n'); i >= 0 {
				got, term = got[:i], TermLF
				s.start += i + 1
			} else {
				s.start = s.end
			}
		}
		length += int64(len(got))
		if len(got) > 0 {
			last = got[len(got)-1]
		}
	}
	pieces := append(s.pieces[:0], part[:min(len(part), s.max)])
	for k := range used {
		n := s.size
		if k == used-1 {
			n = off
		}
		pieces = append(pieces, s.scratch[k][:n])
	}
	content := bytes.Join(pieces, nil)
	clear(pieces)
	s.pieces = pieces[:0]
	if len(s.scratch) > 4 {
		s.scratch = s.scratch[:4:4] // keep a little scratch, not a whole huge line's
	}
	return s.finish(content, length, last, term)
}

// finish ends a long line: length counts every byte of it, last is its last byte.
func (s *Splitter) finish(acc []byte, length int64, last byte, term Terminator) Line {
	if term == TermLF && length > 0 && last == '\r' {
		term = TermCRLF
		length--
		if int64(len(acc)) > length {
			acc = acc[:length]
		}
	}
	return Line{Content: acc[:len(acc):len(acc)], Term: term, Length: length, Truncated: length > int64(len(acc))}
}

// stash puts bytes read past a long line where the next lines are looked for.
func (s *Splitter) stash(rest []byte) {
	if s.buf == nil || len(s.buf)-s.end < len(rest) {
		s.buf = make([]byte, max(s.size, len(rest)))
		s.start, s.end = 0, 0
	}
	s.end += copy(s.buf[s.end:], rest)
}

// minRead is the least free space worth a Read; below it, a new buffer.
const minRead = 4096 // (or a quarter of a test's tiny buffer)

// fill reads once into the free space after s.end, first moving the
// unreturned bytes to a new buffer when too little space is left; from a
// ChunkReader, it takes the next chunk instead (fillChunk).
func (s *Splitter) fill() {
	if s.cr != nil {
		s.fillChunk()
		return
	}
	if s.buf == nil || len(s.buf)-s.end < min(minRead, s.size/4) {
		nb := make([]byte, s.size)
		if s.buf != nil {
			s.end = copy(nb, s.buf[s.start:s.end])
		}
		s.buf, s.start = nb, 0
	}
	s.end += s.read(s.buf[s.end:])
}

// fillChunk takes the next chunk (what is left of the last one first) as
// the buffer when every byte before it was returned. Otherwise the
// unreturned bytes, the start of a line, are joined with the chunk up to
// its first line end (all of it when it has none) in a buffer of their
// own, and the rest of the chunk waits in s.next: a line that spans two
// chunks costs a copy of itself, not of the chunk.
func (s *Splitter) fillChunk() {
	c := s.next
	s.next = nil
	if len(c) == 0 {
		c = s.readChunk()
		if len(c) == 0 {
			return
		}
	}
	if s.start == s.end {
		s.buf, s.start, s.end = c[:len(c):len(c)], 0, len(c)
		return
	}
	n := len(c)
	if i := bytes.IndexByte(c, '\n'); i >= 0 {
		n = i + 1
		s.next = c[n:]
	}
	joined := make([]byte, 0, s.end-s.start+n)
	joined = append(append(joined, s.buf[s.start:s.end]...), c[:n]...)
	s.buf, s.start, s.end = joined, 0, len(joined)
}

// readChunk calls ReadChunk once (a few times if it returns nothing and no
// error), recording the error for later.
func (s *Splitter) readChunk() []byte {
	for tries := 0; ; tries++ {
		c, err := s.cr.ReadChunk()
		if err != nil {
			s.err = err
			return c
		}
		if len(c) > 0 {
			return c
		}
		if tries >= 100 {
			s.err = io.ErrNoProgress
			return nil
		}
	}
}

// read calls Read once (a few times if it returns nothing and no error),
// recording the error for later. What is left of a chunk (s.next) is read
// first.
func (s *Splitter) read(p []byte) int {
	if len(s.next) > 0 {
		n := copy(p, s.next)
		s.next = s.next[n:]
		return n
	}
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
