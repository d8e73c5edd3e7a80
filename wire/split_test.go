package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readLines returns every line of r, failing the test on an error other
// than io.EOF.
func readLines(t testing.TB, r io.Reader, maxLine int) []Line {
	t.Helper()
	sp := NewSplitter(r, maxLine)
	var out []Line
	for {
		l, err := sp.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, l)
	}
}

// checkExact verifies the byte-exact property: each line's content is the
// input at its position, lengths and terminators add up to the whole input,
// and when nothing was truncated the lines concatenate to the input.
func checkExact(t testing.TB, in []byte, lines []Line, maxLine int) {
	t.Helper()
	var pos int64
	var cat []byte
	truncated := false
	for i, l := range lines {
		if int64(len(l.Content)) > l.Length {
			t.Fatalf("line %d: %d content bytes but Length %d", i, len(l.Content), l.Length)
		}
		if len(l.Content) > maxLine {
			t.Fatalf("line %d: kept %d bytes, limit %d", i, len(l.Content), maxLine)
		}
		if l.Truncated != (int64(len(l.Content)) < l.Length) {
			t.Fatalf("line %d: Truncated=%v with %d of %d bytes", i, l.Truncated, len(l.Content), l.Length)
		}
		if !bytes.Equal(in[pos:pos+int64(len(l.Content))], l.Content) {
			t.Fatalf("line %d: content differs from the input at %d", i, pos)
		}
		pos += l.Length
		term := l.Term.Bytes()
		if !bytes.Equal(in[pos:pos+int64(len(term))], term) {
			t.Fatalf("line %d: terminator %v not in the input at %d", i, l.Term, pos)
		}
		pos += int64(len(term))
		if l.Term == TermNone && i != len(lines)-1 {
			t.Fatalf("line %d: TermNone before the last line", i)
		}
		if l.Term == TermLF && l.Length > 0 && !l.Truncated && l.Content[len(l.Content)-1] == '\r' {
			t.Fatalf("line %d: content ends in \\r but terminator is \\n", i)
		}
		truncated = truncated || l.Truncated
		cat = append(cat, l.Content...)
		cat = append(cat, term...)
	}
	if pos != int64(len(in)) {
		t.Fatalf("lines cover %d bytes of %d", pos, len(in))
	}
	if !truncated && !bytes.Equal(cat, in) {
		t.Fatalf("concatenation differs from the input")
	}
}

func TestSplitter(t *testing.T) {
	type want struct {
		content string
		term    Terminator
		length  int64
		trunc   bool
	}
	tests := []struct {
		name  string
		in    string
		max   int
		lines []want
	}{
		{"empty", "", 0, nil},
		{"one LF", "a\n", 0, []want{{"a", TermLF, 1, false}}},
		{"CRLF", "a\r\nb\n", 0, []want{{"a", TermCRLF, 1, false}, {"b", TermLF, 1, false}}},
		{"no terminator at EOF", "a\nb", 0, []want{{"a", TermLF, 1, false}, {"b", TermNone, 1, false}}},
		{"blank lines", "\n\r\n\n", 0, []want{{"", TermLF, 0, false}, {"", TermCRLF, 0, false}, {"", TermLF, 0, false}}},
		{"lone CR kept in content", "a\rb\n", 0, []want{{"a\rb", TermLF, 3, false}}},
		{"CR at EOF is content", "a\r", 0, []want{{"a\r", TermNone, 2, false}}},
		{"double CR", "a\r\r\n", 0, []want{{"a\r", TermCRLF, 2, false}}},
		{"truncated, stream continues", "abcdefgh\nxy\n", 4, []want{{"abcd", TermLF, 8, true}, {"xy", TermLF, 2, false}}},
		{"exactly the limit is whole", "abcd\n", 4, []want{{"abcd", TermLF, 4, false}}},
		{"limit plus CRLF is whole", "abcd\r\n", 4, []want{{"abcd", TermCRLF, 4, false}}},
		{"truncated CRLF line", "abcdef\r\nz", 4, []want{{"abcd", TermCRLF, 6, true}, {"z", TermNone, 1, false}}},
		{"truncated at EOF", "abcdef", 4, []want{{"abcd", TermNone, 6, true}}},
		{"invalid UTF-8 and NUL kept", "\xff\x00\xfe\n", 0, []want{{"\xff\x00\xfe", TermLF, 3, false}}},
		{"long lines", strings.Repeat("a", 40) + "\r\n" + strings.Repeat("b", 33) + "\nc\n" + strings.Repeat("d", 50), 0, []want{
			{strings.Repeat("a", 40), TermCRLF, 40, false}, {strings.Repeat("b", 33), TermLF, 33, false}, {"c", TermLF, 1, false}, {strings.Repeat("d", 50), TermNone, 50, false}}},
		{"long lines truncated", strings.Repeat("a", 40) + "\r\n" + strings.Repeat("b", 33) + "\r\nc", 10, []want{
			{strings.Repeat("a", 10), TermCRLF, 40, true}, {strings.Repeat("b", 10), TermCRLF, 33, true}, {"c", TermNone, 1, false}}},
	}
	for _, tt := range tests {
		// Every case runs over a plain reader and a one-byte-at-a-time
		// reader, so that terminators split across reads are covered.
		for _, mode := range []string{"whole", "onebyte", "tiny", "chunks", "tiny chunks"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.in)
				switch mode {
				case "onebyte":
					r = iotest.OneByteReader(r)
				case "chunks", "tiny chunks":
					cr := newChunks([]byte(tt.in), 3)
					defer cr.check(t)
					r = cr
				}
				max := tt.max
				if max == 0 {
					max = DefaultMaxFrame
				}
				var got []Line
				if mode == "tiny" || mode == "tiny chunks" {
					// 16-byte buffers: most lines take the long-line path.
					sp := newSplitter(r, tt.max, 16)
					for {
						l, err := sp.Next()
						if err != nil {
							break
						}
						got = append(got, l)
					}
				} else {
					got = readLines(t, r, tt.max)
				}
				if len(got) != len(tt.lines) {
					t.Fatalf("got %d lines, want %d: %+v", len(got), len(tt.lines), got)
				}
				for i, w := range tt.lines {
					g := got[i]
					if string(g.Content) != w.content || g.Term != w.term || g.Length != w.length || g.Truncated != w.trunc {
						t.Errorf("line %d = {%q %v %d %v}, want {%q %v %d %v}", i,
							g.Content, g.Term, g.Length, g.Truncated, w.content, w.term, w.length, w.trunc)
					}
				}
				checkExact(t, []byte(tt.in), got, max)
			})
		}
	}
}

func TestSplitterHugeLine(t *testing.T) {
	// A 20 MiB line is one line, with no 64 KiB (bufio.Scanner) limit.
	big := bytes.Repeat([]byte("x"), 20<<20)
	in := append(append([]byte("a\n"), big...), "\r\nb\n"...)
	got := readLines(t, bytes.NewReader(in), 32<<20)
	if len(got) != 3 || got[1].Length != 20<<20 || got[1].Truncated || got[1].Term != TermCRLF || !bytes.Equal(got[1].Content, big) {
		t.Fatalf("huge line not whole: %d lines", len(got))
	}
	checkExact(t, in, got, 32<<20)

	// With the default limit (16 MiB) it is kept truncated, its real length
	// recorded, and the next line is intact.
	got = readLines(t, bytes.NewReader(in), 0)
	if len(got) != 3 || got[1].Length != 20<<20 || !got[1].Truncated || len(got[1].Content) != DefaultMaxFrame || string(got[2].Content) != "b" {
		t.Fatalf("huge line with default limit: %d lines, line 2 kept %d of %d", len(got), len(got[1].Content), got[1].Length)
	}
	checkExact(t, in, got, DefaultMaxFrame)
}

func TestSplitterContentIsFresh(t *testing.T) {
	// The caller owns Content: later reads must not overwrite it.
	sp := NewSplitter(strings.NewReader("first\nsecond\n"), 0)
	a, _ := sp.Next()
	b, _ := sp.Next()
	if string(a.Content) != "first" || string(b.Content) != "second" {
		t.Fatalf("got %q, %q", a.Content, b.Content)
	}
	a.Content[0] = 'X'
	if string(b.Content) != "second" {
		t.Fatal("lines share memory")
	}
}

// oneShot returns its data on the first Read and fails the test on any
// later Read: it proves a line is returned without waiting for more input.
type oneShot struct {
	t    *testing.T
	data []byte
	done bool
}

func (o *oneShot) Read(p []byte) (int, error) {
	if o.done {
		o.t.Fatal("read again: the line was held back waiting for more input")
	}
	o.done = true
	return copy(p, o.data), nil
}

func TestSplitterDoesNotReadAhead(t *testing.T) {
	sp := NewSplitter(&oneShot{t: t, data: []byte("a\nb\n")}, 0)
	for _, want := range []string{"a", "b"} {
		l, err := sp.Next()
		if err != nil || string(l.Content) != want {
			t.Fatalf("got %q, %v", l.Content, err)
		}
	}
}

func TestSplitterReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom))
	sp := NewSplitter(r, 0)
	var got []string
	var err error
	for {
		var l Line
		l, err = sp.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%s|%v", l.Content, l.Term))
	}
	if !errors.Is(err, boom) || strings.Join(got, ",") != `a|\n,partial|none` {
		t.Fatalf("got %v, %v", got, err)
	}
}

func ExampleSplitter() {
	in := "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\r\nlog line\nno newline at the end"
	sp := NewSplitter(strings.NewReader(in), 0)
	for {
		line, err := sp.Next()
		if err != nil {
			break
		}
		fmt.Printf("%-4s %2d bytes %q\n", line.Term, line.Length, line.Content)
	}
	// Output:
	// \r\n 40 bytes "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}"
	// \n    8 bytes "log line"
	// none 21 bytes "no newline at the end"
}

// TestSplitterLongLineSmallReads: a long line arriving in tiny reads (a slow
// writer on a pipe) costs memory in proportion to its size, not to the
// number of reads.
func TestSplitterLongLineSmallReads(t *testing.T) {
	line := bytes.Repeat([]byte("0123456789abcdef"), 40<<10) // 640 KiB
	in := append(append(line, '\n'), "next\n"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := readLines(t, iotest.OneByteReader(bytes.NewReader(in)), 0)
	runtime.ReadMemStats(&after)
	if len(got) != 2 || !bytes.Equal(got[0].Content, line) || string(got[1].Content) != "next" {
		t.Fatalf("got %d lines", len(got))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(line)) {
		t.Fatalf("allocated %d bytes for a %d-byte line", alloc, len(line))
	}
}

// chunks is a ChunkReader over data cut into pieces of 1, 1+step, 1+2*step,
// … bytes (cycling back to 1 past 64), each a fresh copy; check fails the
// test if any piece was written to. Read serves the same stream.
type chunks struct {
	pieces, kept [][]byte
	rest         []byte // of the piece ReadChunk or Read is in
	next         int
}

func newChunks(data []byte, step int) *chunks {
	c := &chunks{}
	for n := 1; len(data) > 0; n = n%64 + step {
		k := min(n, len(data))
		c.pieces = append(c.pieces, bytes.Clone(data[:k]))
		c.kept = append(c.kept, bytes.Clone(data[:k]))
		data = data[k:]
	}
	return c
}

func (c *chunks) ReadChunk() ([]byte, error) {
	if len(c.rest) == 0 {
		if c.next == len(c.pieces) {
			return nil, io.EOF
		}
		c.rest = c.pieces[c.next]
		c.next++
	}
	b := c.rest
	c.rest = nil
	return b, nil
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.rest) == 0 {
		b, err := c.ReadChunk()
		if err != nil {
			return 0, err
		}
		c.rest = b
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	return n, nil
}

func (c *chunks) check(t testing.TB) {
	t.Helper()
	for i := range c.pieces {
		if !bytes.Equal(c.pieces[i], c.kept[i]) {
			t.Fatalf("chunk %d was written to: %q, was %q", i, c.pieces[i], c.kept[i])
		}
	}
}

// TestSplitterAdoptsChunks: from a ChunkReader, a line inside one chunk is
// a piece of that chunk (not a copy), a line over two or more is whole, and
// no chunk is written to.
func TestSplitterAdoptsChunks(t *testing.T) {
	in := []string{"a\nbb\ncc", "c\nd", "d", "d\ne\n", "f"}
	cr := &chunks{}
	for _, p := range in {
		cr.pieces = append(cr.pieces, []byte(p))
		cr.kept = append(cr.kept, []byte(p))
	}
	lines := readLines(t, cr, 0)
	cr.check(t)
	want := []string{"a", "bb", "ccc", "ddd", "e", "f"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	inside := func(b, chunk []byte) bool {
		return len(b) > 0 && &b[0] == &chunk[bytes.Index(chunk, b)]
	}
	for i, l := range lines {
		if string(l.Content) != want[i] {
			t.Errorf("line %d: %q, want %q", i, l.Content, want[i])
		}
	}
	for _, c := range []struct{ line, chunk int }{{0, 0}, {1, 0}, {4, 3}, {5, 4}} {
		if !inside(lines[c.line].Content, cr.pieces[c.chunk]) {
			t.Errorf("line %d (%q) is not a piece of chunk %d", c.line, lines[c.line].Content, c.chunk)
		}
	}
	checkExact(t, []byte(strings.Join(in, "")), lines, DefaultMaxFrame)
}
