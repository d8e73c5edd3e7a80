package capture

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"linesman/wire"
)

// embeddableBytesBytewise is embeddableBytes without its fast path: the
// checks one at a time, as they were written first.
func embeddableBytesBytewise(b []byte) bool {
	if bytes.IndexByte(b, 0x7f) >= 0 || bytes.IndexByte(b, '\t') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	if tooDeepToEmbed(b) || hasBidi(b) {
		return false
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xC2 && b[i+1] < 0xA0 {
			return false
		}
	}
	return true
}

// TestOnlyPrintableASCII: every byte value, at every place of a word and
// in the tail, with and without neighbours that borrow or carry.
func TestOnlyPrintableASCII(t *testing.T) {
	for c := range 256 {
		for _, n := range []int{1, 7, 8, 9, 16, 17} {
			for at := range n {
				for _, fill := range []byte{'a', 0x20, 0x7e} {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					want := c >= 0x20 && c <= 0x7e
					if got := onlyPrintableASCII(b); got != want {
						t.Fatalf("%q: %v, want %v", b, got, want)
					}
				}
			}
		}
	}
	if !onlyPrintableASCII(nil) {
		t.Error("no bytes are printable ASCII")
	}
}

// FuzzEmbeddableBytes holds the fast path of embeddableBytes to the checks
// one at a time.
func FuzzEmbeddableBytes(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\"a\":\"\x7f\"}", "{\"a\":\t1}", "{\"a\":\"\u200e\"}",
		"{\"a\":\"\u0085\"}", "{\"a\":\"é\"}", strings.Repeat("[", 9001) + strings.Repeat("]", 9001)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := embeddableBytes(b), embeddableBytesBytewise(b); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
	})
}

// embeddableChecked is embeddable as it was before it trusted the
// classification: every frame's bytes looked at.
func embeddableChecked(f *wire.Frame) bool {
	l := &f.Lines[0]
	b := l.Content
	if l.Truncated || f.Msg.Kind == wire.KindNonJSON || len(b) < 2 {
		return false
	}
	if (b[0] != '{' && b[0] != '[') || (b[len(b)-1] != '}' && b[len(b)-1] != ']') {
		return false
	}
	for i := range f.Findings {
		switch f.Findings[i].Code {
		case "invalid-utf8", "control-characters", "utf8-bom", "non-json-line":
			return false
		}
	}
	return embeddableBytes(b)
}

// FuzzEmbeddable holds embeddable, which trusts what the classification
// of a frame found, to the look at every byte, for the frames a framer
// makes of any stream and for the same frames without that knowledge.
func FuzzEmbeddable(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `[1,{"a":"b"}]` + "\n" + ` {"a":1}` + "\n",
		"{\"a\":\"\x7f\"}\n{\"a\":\t1}\n{\"a\":\"\u200e\"}\n{\"a\":\"\u0085\"}\n{\"a\":\"é\"}\r\n",
		"\xEF\xBB\xBF{}\n{}x\n{\n}\n[\"\xff\"]\n{\"a\":1}",
		strings.Repeat("[", 9001) + strings.Repeat("]", 9001) + "\n" + strings.Repeat("[", 9000) + strings.Repeat("]", 9000),
	} {
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxFrame uint16) {
		for _, fr := range wire.FramesOf(data, wire.Options{MaxFrame: int(maxFrame)}) {
			if len(fr.Lines) != 1 {
				continue
			}
			want := embeddableChecked(fr)
			if got := embeddable(fr); got != want {
				t.Fatalf("%q (printable %v): embeddable %v, want %v", fr.Lines[0].Content, fr.Msg.PrintableASCII(), got, want)
			}
			// The same frame with a message that knows nothing of its text.
			bare := &wire.Frame{Lines: fr.Lines, Msg: wire.Message{Kind: fr.Msg.Kind}, Findings: fr.Findings}
			if got := embeddable(bare); got != want {
				t.Fatalf("%q, unclassified: embeddable %v, want %v", fr.Lines[0].Content, got, want)
			}
		}
	})
}

// TestEmbeddableTrustsThePrintable: a frame of printable ASCII is told
// embeddable from its message, and frames that are not are still looked at.
func TestEmbeddableTrustsThePrintable(t *testing.T) {
	for _, c := range []struct {
		line      string
		printable bool
		embed     bool
	}{
		{`{"jsonrpc":"2.0","method":"x","params":{"a":"b c"}}`, true, true},
		{`{"a":"é"}`, false, true},
		{"{\"a\":\"\u0085\"}", false, false},
		{"{\"a\":\"\x7f\"}", false, false},
		{"{\"a\":\t1}", false, false},
		{strings.Repeat("[", 9001) + strings.Repeat("]", 9001), true, false},
	} {
		fr := wire.FramesOf([]byte(c.line+"\n"), wire.Options{})[0]
		if fr.Msg.PrintableASCII() != c.printable || embeddable(fr) != c.embed {
			t.Errorf("%.40q: printable %v, embeddable %v; want %v, %v", c.line, fr.Msg.PrintableASCII(), embeddable(fr), c.printable, c.embed)
		}
	}
}

// TestEmbeddableOfRecordings: the frames of every recording the tests
// keep, read back (their messages prepared as the records were decoded),
// are told embeddable as the look at every byte tells them.
func TestEmbeddableOfRecordings(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.jsonl"))
	paths = append(paths, more...)
	frames, printable := 0, 0
	for _, p := range paths {
		c, err := Open(p)
		if err != nil {
			continue // a foreign log, or a broken file kept on purpose
		}
		first, end := c.Log.Bounds()
		for _, ev := range c.Log.AppendRange(nil, first, end) {
			if f := ev.Frame; f != nil && len(f.Lines) == 1 {
				frames++
				if f.Msg.PrintableASCII() {
					printable++
				}
				if got, want := embeddable(f), embeddableChecked(f); got != want {
					t.Errorf("%s seq %d: embeddable %v, want %v", p, ev.Seq, got, want)
				}
			}
		}
	}
	if frames == 0 || printable == 0 {
		t.Fatalf("%d frames read, %d of printable ASCII", frames, printable)
	}
	t.Logf("%d frames read, %d of printable ASCII", frames, printable)
}
