package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"linesman/wire"
)

// send reads its input as it comes: each frame goes to the server as soon
// as its line (or, for a value written over several lines, its last line)
// has been read, so a producer that writes slowly paces the conversation.

// maxJoinedBytes bounds the JSON value an inputReader joins from several
// lines.
const maxJoinedBytes = 16 << 20

// inputReader splits send's input into the frames to send: one per line,
// blank lines skipped, a "\r" before the "\n" dropped. A JSON value typed
// over several lines (a pretty-printed request.json) is joined and sent as
// one compact line: sent line by line it would only show the server a
// broken frame, which is what --raw is for. Lines that do not complete a
// value are sent as they are. It reads no further than it must to decide.
type inputReader struct {
	src   io.Reader
	r     *bufio.Reader
	ahead [][]byte // physical lines read but not yet decided, in order
	err   error    // the input's end (io.EOF) or its read error, once met
}

func newInputReader(r io.Reader) *inputReader {
	return &inputReader{src: r, r: bufio.NewReaderSize(r, 64<<10)}
}

// completeRoom is the room a long line is read with for what
// CompleteRequestOwned inserts (an id, "jsonrpc", the era's _meta) and the
// line end, so that a line is held once, completed and sent in place.
const completeRoom = 4 << 10

// readLine reads the next physical line into a slice of its own. A line
// longer than the read buffer is sized exactly (with completeRoom): from
// a file it is measured, then read again into place; from a pipe it is
// read in pieces and joined once.
func (in *inputReader) readLine() ([]byte, error) {
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
func (in *inputReader) rereadLine(first int) (line []byte, ok bool, err error) {
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
func (in *inputReader) line() ([]byte, bool) {
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

// next returns the next frame to send, or the input's end (io.EOF) or
// read error.
func (in *inputReader) next() ([]byte, error) {
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
			if value, ok := in.multiLine(l); ok {
				return value, nil
			}
		}
		return line, nil
	}
}

// multiLine reads the lines after first while they may still complete the
// JSON value first starts, and returns the value compact when it ends its
// own line. Otherwise the lines it read are put back, to be read again.
// The value is decoded when its brackets close (and, to notice early that
// it never can, whenever the text has doubled since the last try), so the
// cost stays linear in the size of the value.
func (in *inputReader) multiLine(first []byte) ([]byte, bool) {
	if len(first) > maxJoinedBytes {
		return nil, false
	}
	text := bytes.Clone(first)
	var read [][]byte
	var depth bracketDepth
	depth.feed(first)
	tried := len(text)
	for len(text) <= maxJoinedBytes {
		if depth.closed() || len(text) >= 2*tried {
			tried = len(text)
			value, status := decodeOne(text)
			if status == decoded {
				return value, true
			}
			if status == invalid {
				break
			}
		}
		l, ok := in.line()
		if !ok {
			break
		}
		read = append(read, l)
		text = append(text, l...)
		depth.feed(l)
	}
	in.ahead = append(read, in.ahead...)
	return nil, false
}

type decodeStatus int

const (
	decoded    decodeStatus = iota
	incomplete              // the text is the start of a value
	invalid                 // no text after this one can make it a value that ends its line
)

// decodeOne decodes the JSON value at the start of text: decoded when it
// ends the text's last line (only white space after it), compact.
func decodeOne(text []byte) ([]byte, decodeStatus) {
	dec := json.NewDecoder(bytes.NewReader(text))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, incomplete
		}
		return nil, invalid
	}
	if len(bytes.TrimSpace(text[dec.InputOffset():])) != 0 {
		return nil, invalid // something else follows on its last line
	}
	var c bytes.Buffer
	if json.Compact(&c, v) != nil {
		return nil, invalid
	}
	return c.Bytes(), decoded
}

// bracketDepth follows the nesting of JSON text fed in pieces, strings
// skipped, to tell when its brackets have closed.
type bracketDepth struct {
	depth, max   int
	inStr, escap bool
}

func (d *bracketDepth) feed(b []byte) {
	for _, c := range b {
		switch {
		case d.escap:
			d.escap = false
		case d.inStr && c == '\\':
			d.escap = true
		case c == '"':
			d.inStr = !d.inStr
		case d.inStr:
		case c == '{' || c == '[':
			d.depth++
			d.max = max(d.max, d.depth)
		case c == '}' || c == ']':
			d.depth--
		}
	}
}

// closed reports whether the brackets opened have all closed (or more).
func (d *bracketDepth) closed() bool { return d.max > 0 && d.depth <= 0 }

// inputFrames is every frame of a whole input (see [inputReader]).
func inputFrames(input []byte) [][]byte {
	in := newInputReader(bytes.NewReader(input))
	var out [][]byte
	for {
		f, err := in.next()
		if err != nil {
			return out
		}
		out = append(out, f)
	}
}

// rawInput splits send --raw's input where the wire would: each piece is
// the exact bytes of one frame as [wire.Framer] cuts them (a value spread
// over several lines stays one piece, a last line without a newline is a
// piece of its own at the end), so that the server gets the bytes as
// written, and the log shows the frames the server saw.
type rawInput struct {
	fr  *wire.Framer
	buf []byte // bytes read from the input and not yet returned in a piece
}

func newRawInput(r io.Reader, maxFrame int) *rawInput {
	in := &rawInput{}
	in.fr = wire.NewFramer(teeReader{r, &in.buf}, wire.Options{MaxFrame: maxFrame})
	return in
}

// next returns the bytes of the next frame, or the input's end (io.EOF)
// or read error. A frame is cut by its size on the wire, which counts the
// bytes of a line kept truncated too: nothing of the input is lost.
func (in *rawInput) next() ([]byte, error) {
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
