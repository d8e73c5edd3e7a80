package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// maxJoinedBytes bounds the JSON value an [InputReader] joins from several
// lines.
const maxJoinedBytes = 16 << 20

// An InputReader splits hand-written input (what `linesman send` reads)
// into the frames to send: one per line, blank lines skipped, a "\r"
// before the "\n" dropped. A JSON value typed over several lines (a
// pretty-printed request.json) is joined and returned as one compact line:
// sent line by line it would only show the server a broken frame, which is
// what [RawInput] is for. Lines that do not complete a value are returned
// as they are.
//
// It reads as the input comes and no further than it must to decide: a
// frame is returned as soon as its line, or for a joined value its last
// line, has been read, so a producer that writes slowly paces the
// conversation. Whether a run of lines is still the start of one value is
// decided by the Framer's incremental scanner, each line fed once, so the
// cost stays linear in the size of the value.
type InputReader struct {
	src   io.Reader
	r     *bufio.Reader
	ahead [][]byte // physical lines read but not yet decided, in order
	err   error    // the input's end (io.EOF) or its read error, once met
	inc   incScanner
}

// NewInputReader returns an InputReader reading from r.
func NewInputReader(r io.Reader) *InputReader {
	return &InputReader{src: r, r: bufio.NewReaderSize(r, 64<<10)}
}

// completeRoom is the room a long line is read with for what
// Session.CompleteRequestOwned inserts (an id, "jsonrpc", the era's
// _meta) and the line end, so that a line is held once, completed and
// sent in place.
const completeRoom = 4 << 10

// readLine reads the next physical line into a slice of its own. A line
// longer than the read buffer is sized exactly (with completeRoom): from
// a file it is measured, then read again into place; from a pipe it is
// read in pieces and joined once.
func (in *InputReader) readLine() ([]byte, error) {
	chunk, err := in.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return bytes.Clone(chunk), err
	}
	if line, ok, err := in.rereadLine(len(chunk)); ok {
		return line, err
	}
	pieces := [][]byte{bytes.Clone(chunk)}
	n := len(chunk)
	for err == bufio.ErrBufferFull {
		chunk, err = in.r.ReadSlice('\n')
		pieces = append(pieces, bytes.Clone(chunk))
		n += len(chunk)
	}
	line := make([]byte, 0, n+completeRoom)
	for i, p := range pieces {
		line = append(line, p...)
		pieces[i] = nil
	}
	return line, err
}

// rereadLine reads a long line of a regular file into a slice of its
// exact size (and completeRoom), once its length is known: the line's
// first bytes were read (first of them), the rest is measured, then the
// file is read again from the line's start. ok is false for any other
// input, with nothing read.
func (in *InputReader) rereadLine(first int) (line []byte, ok bool, err error) {
	f, isFile := in.src.(*os.File)
	if !isFile {
		return nil, false, nil
	}
	st, serr := f.Stat()
	pos, perr := f.Seek(0, io.SeekCurrent)
	if serr != nil || perr != nil || !st.Mode().IsRegular() {
		return nil, false, nil
	}
	start := pos - int64(in.r.Buffered()) - int64(first)
	n := first
	for err = bufio.ErrBufferFull; err == bufio.ErrBufferFull; {
		var chunk []byte
		chunk, err = in.r.ReadSlice('\n')
		n += len(chunk)
	}
	if err != nil && err != io.EOF {
		return nil, true, err
	}
	if _, serr := f.Seek(start, io.SeekStart); serr != nil {
		return nil, true, serr
	}
	in.r.Reset(f)
	line = make([]byte, n, n+completeRoom)
	if _, rerr := io.ReadFull(in.r, line); rerr != nil {
		return nil, true, fmt.Errorf("reading a line of %d bytes again: %w", n, rerr)
	}
	return line, true, err
}

// line returns the next physical line, its "\n" included when it has one.
func (in *InputReader) line() ([]byte, bool) {
	if len(in.ahead) > 0 {
		l := in.ahead[0]
		in.ahead = in.ahead[1:]
		return l, true
	}
	if in.err != nil {
		return nil, false
	}
	l, err := in.readLine()
	if err != nil {
		in.err = err
	}
	return l, len(l) > 0
}

// Next returns the next frame to send, or the input's end (io.EOF) or
// read error.
func (in *InputReader) Next() ([]byte, error) {
	for {
		l, ok := in.line()
		if !ok {
			return nil, in.err
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if !json.Valid(trimmed) && (trimmed[0] == '{' || trimmed[0] == '[') {
			if value, ok := in.join(l); ok {
				return value, nil
			}
		}
		return line, nil
	}
}

// join reads the lines after first while, with it, they are still the
// start of one JSON value, and returns the value compact when it ends its
// own line (only white space after it). Otherwise the lines it read are put
// back, to be read again.
func (in *InputReader) join(first []byte) ([]byte, bool) {
	if len(first) > maxJoinedBytes {
		return nil, false
	}
	in.inc.reset()
	text := bytes.Clone(first)
	var read [][]byte
	for res := in.inc.feed(first); res == incMore && len(text) <= maxJoinedBytes; {
		l, ok := in.line()
		if !ok {
			break
		}
		read = append(read, l)
		text = append(text, l...)
		if res = in.inc.feed(l); res == incDone {
			var c bytes.Buffer
			if json.Compact(&c, text) == nil {
				return c.Bytes(), true
			}
		}
	}
	in.ahead = append(read, in.ahead...)
	return nil, false
}

// InputFrames is every frame of a whole input (see [InputReader]).
func InputFrames(input []byte) [][]byte {
	in := NewInputReader(bytes.NewReader(input))
	var out [][]byte
	for {
		f, err := in.Next()
		if err != nil {
			return out
		}
		out = append(out, f)
	}
}

// A RawInput splits input to be sent as it is (send --raw) where the wire
// would: each piece is the exact bytes of one frame as [Framer] cuts them
// (a value spread over several lines stays one piece, a last line without
// a newline is a piece of its own at the end), so that the server gets the
// bytes as written, and the log shows the frames the server saw.
type RawInput struct {
	fr  *Framer
	buf []byte // bytes read from the input and not yet returned in a piece
}

// NewRawInput returns a RawInput reading from r, frames cut at maxFrame
// bytes as a Framer with that limit would.
func NewRawInput(r io.Reader, maxFrame int) *RawInput {
	in := &RawInput{}
	in.fr = NewFramer(teeReader{r, &in.buf}, Options{MaxFrame: maxFrame})
	return in
}

// Next returns the bytes of the next frame, or the input's end (io.EOF)
// or read error. A frame is cut by its size on the wire, which counts the
// bytes of a line kept truncated too: nothing of the input is lost.
func (in *RawInput) Next() ([]byte, error) {
	f, err := in.fr.Next()
	if err != nil {
		return nil, err
	}
	n := int(f.Size())
	piece := in.buf[:n:n] // never written again: the tee appends after it
	in.buf = in.buf[n:]
	return piece, nil
}

// teeReader keeps a copy of what it reads.
type teeReader struct {
	r    io.Reader
	copy *[]byte
}

func (t teeReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	*t.copy = append(*t.copy, p[:n]...)
	return n, err
}
