package wire

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// samePrepared checks PrepareValue at text[i] against the two passes it
// stands for: ValueEnd's end and validation, and classify's classification
// of the value alone.
func samePrepared(t *testing.T, text []byte, i, depth int) {
	t.Helper()
	var m Message
	end, p := PrepareValue(text, i, depth, &m)
	wantEnd, valid := ValueEnd(text, i, depth)
	if !p.OK() {
		if valid && bytes.IndexByte(text[i:wantEnd], '\n') < 0 {
			t.Fatalf("%q at %d (depth %d): not prepared, though ValueEnd takes it (to %d) and it holds no line feed", text, i, depth, wantEnd)
		}
		return
	}
	if !valid || end != wantEnd {
		t.Fatalf("%q at %d (depth %d): prepared to %d, ValueEnd says %d, %v", text, i, depth, end, wantEnd, valid)
	}
	var want Message
	c := classify(text[i:end], false, &want, nil)
	if !reflect.DeepEqual(p.c, c) || !reflect.DeepEqual(m, want) {
		t.Fatalf("%q at %d:\nprepared %+v %+v\nclassify %+v %+v", text, i, p.c, m, c, want)
	}
}

var prepareCases = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"json":{"jsonrpc":"2.0","method":"x","params":{"a":"\u00e9\ud800"}},"term":"lf"}`,
	`{"a":1}` + "\r" + `,`,
	"{\"a\":\r1}",
	"{\"a\":\n1}",
	`[1,2]x`,
	`"a` + "\xff\x7f" + `b" 1`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
	`12.5e3,`,
	`truex`,
	` {"a":1}`,
	"\xEF\xBB\xBF{}",
	`{"a":`,
	``,
}

func TestPrepareValue(t *testing.T) {
	for _, c := range prepareCases {
		for i := range len(c) + 1 {
			for _, depth := range []int{0, 3} {
				samePrepared(t, []byte(c), i, depth)
			}
		}
	}
	// Nesting counts the enclosing levels, as ValueEnd does.
	deep := []byte(strings.Repeat("[", maxDepth-2) + strings.Repeat("]", maxDepth-2))
	for _, depth := range []int{1, 2, 3} {
		samePrepared(t, deep, 0, depth)
	}
	if _, p := PrepareValue(deep, 0, 3, new(Message)); p.OK() {
		t.Error("a value nested past the limit with its enclosing levels was prepared")
	}
}

func FuzzPrepareValue(f *testing.F) {
	for _, c := range prepareCases {
		f.Add([]byte(c), uint16(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text []byte, at uint16, depth uint8) {
		samePrepared(t, text, int(at)%(len(text)+1), int(depth%4))
	})
}

// reframed frames lines grouped as the Framer grouped them (the recorded
// frames of a capture), preparing each frame of one line that is a JSON
// value alone, and checks that Reframe classifies them as the Framer did.
func reframed(t *testing.T, want []*Frame, opts Options) {
	t.Helper()
	frames := make([]*Frame, len(want))
	pre := make([]Prepared, len(want))
	prepared := 0
	for k, w := range want {
		frames[k] = &Frame{Lines: w.Lines}
		if len(w.Lines) == 1 {
			c := w.Lines[0].Content
			if end, p := PrepareValue(c, 0, 0, &frames[k].Msg); p.OK() && end == len(c) {
				pre[k] = p
				prepared++
			}
		}
	}
	// A line a Splitter cut short, or a prepared one, is the framer's to
	// judge: Reframe declines the first and must take the second.
	if !Reframe(frames, pre, opts) {
		if SplitterCut(frameLines(want)) {
			t.Fatalf("Reframe declined lines a Splitter cut, as the Framer grouped them (%d prepared)", prepared)
		}
		return
	}
	for k := range want {
		if !reflect.DeepEqual(frames[k], want[k]) {
			t.Fatalf("frame %d of %d:\nReframe %+v\n  Framer %+v", k, len(want), frames[k], want[k])
		}
	}
	// Grouped otherwise, the same lines are declined.
	if n := len(want); n > 1 {
		joined := &Frame{Lines: append(append([]Line{}, want[n-2].Lines...), want[n-1].Lines...)}
		other := append(append([]*Frame{}, frames[:n-2]...), joined)
		if Reframe(other, nil, opts) {
			t.Fatalf("Reframe took the last two frames joined as one")
		}
	}
}

func frameLines(frames []*Frame) []Line {
	var out []Line
	for _, f := range frames {
		out = append(out, f.Lines...)
	}
	return out
}

func TestReframe(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, in := range []string{
		ok + "\n" + ok + "\r\n" + ok,
		"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {}\n}\n" + ok + "\n",
		"{\n" + ok + "\nhello\n\n[1]\n" + "\"x\"\n{\"a\":\r1}\n",
		ok + "\n{\n\"a\":1}\n",
	} {
		reframed(t, FramesOf([]byte(in), Options{}), Options{})
	}
}
