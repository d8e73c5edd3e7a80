package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// FuzzFramer drives splitter, reassembly and classifier with arbitrary
// bytes and small limits. Properties: no panic; the byte-exact property
// (checkFrames); every finding registered; multi-line frames are JSON;
// reassembly stays within its bounds; reading one byte at a time gives the
// same frames; and the scanner accepts exactly what encoding/json accepts.
// Its seed corpus is testdata/fuzz/FuzzFramer plus the f.Add calls below,
// and runs with every `go test`.
func FuzzFramer(f *testing.F) {
	f.Add([]byte(cleanStream()), uint16(0), uint8(0))
	f.Add([]byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {}\n}\nhello\r\n\n[1]\xff"), uint16(0), uint8(0))
	f.Add([]byte("{\n{\n\"jsonrpc\":\"2.0\",\"method\":\"x\"\n}\n"), uint16(3), uint8(2))
	f.Add([]byte("\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1e0,\"id\":1.5,\"result\":{\"resultType\":\"complete\"}}\r\n"), uint16(20), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, maxFrame uint16, pending uint8) {
		opts := Options{}
		if maxFrame != 0 {
			opts = Options{MaxFrame: int(maxFrame%512) + 1, MaxPendingLines: int(pending%8) + 1, MaxPendingBytes: int(maxFrame%1024) + 1}
		}
		frames := FramesOf(data, opts)
		checkFrames(t, data, frames, opts)
		for _, fr := range frames {
			// A frame's message says its text is printable ASCII only of
			// a frame of one whole line that is.
			if fr.Msg.PrintableASCII() {
				if len(fr.Lines) != 1 || fr.Lines[0].Truncated {
					t.Fatalf("%+v: printable, of %d lines", fr, len(fr.Lines))
				}
				printableClassified(t, fr.Lines[0].Content, &fr.Msg)
			}
		}

		o := opts.withDefaults()
		for _, fr := range frames {
			if len(fr.Lines) > o.MaxPendingLines+1 {
				t.Fatalf("a frame of %d lines with MaxPendingLines %d", len(fr.Lines), o.MaxPendingLines)
			}
			if len(fr.Lines) > 1 && fr.Size() > int64(o.MaxPendingBytes)+int64(o.MaxFrame)+2+2*int64(len(fr.Lines)) {
				t.Fatalf("a frame of %d bytes with MaxPendingBytes %d", fr.Size(), o.MaxPendingBytes)
			}
		}

		// Reads split at every byte, and tiny buffers (every line is a
		// long line, buffers change all the time), give the same frames.
		// So do chunks handed over (a ChunkReader), in both sizes, and
		// none of them is written to.
		for _, mode := range []string{"one byte", "tiny buffers", "chunks", "tiny buffers, chunks"} {
			var r io.Reader = bytes.NewReader(data)
			if strings.HasSuffix(mode, "chunks") {
				cr := newChunks(data, 1+int(pending%7))
				defer cr.check(t)
				r = cr
			}
			fr := NewFramer(r, opts)
			switch mode {
			case "one byte":
				fr.sp = NewSplitter(iotest.OneByteReader(r), o.MaxFrame)
			case "tiny buffers", "tiny buffers, chunks":
				fr.sp = newSplitter(r, o.MaxFrame, 16+int(pending%48))
			}
			var got []*Frame
			for {
				x, err := fr.Next()
				if err != nil {
					break
				}
				got = append(got, x)
			}
			if summary(got) != summary(frames) {
				t.Fatalf("%s:\n%s\nwhole:\n%s", mode, summary(got), summary(frames))
			}
			checkFrames(t, data, got, opts)
		}

		// The same lines, handed over rather than read again, give the
		// same frames; and SplitterCut says so of lines a Splitter cut.
		var lines []Line
		truncated := false
		for sp := NewSplitter(bytes.NewReader(data), o.MaxFrame); ; {
			l, err := sp.Next()
			if err != nil {
				break
			}
			lines = append(lines, l)
			truncated = truncated || l.Truncated
		}
		if got := FramesOfLines(lines, opts); summary(got) != summary(frames) {
			t.Fatalf("FramesOfLines:\n%s\nwhole:\n%s", summary(got), summary(frames))
		}
		if SplitterCut(lines) == truncated {
			t.Fatalf("SplitterCut = %v of lines a Splitter cut (truncated: %v)", !truncated, truncated)
		}
		// Those lines, grouped as the frames are and each one-line JSON
		// frame classified beforehand, are classified by Reframe as the
		// Framer classified them.
		reframed(t, frames, opts)

		// The scanner agrees with encoding/json on every line.
		for _, line := range bytes.Split(data, []byte("\n")) {
			if bytes.HasPrefix(line, bom) {
				continue
			}
			c := classify(line, false, new(Message), nil)
			if c.st == statusEmpty {
				continue
			}
			if (c.st == statusJSON) != json.Valid(line) {
				t.Fatalf("%q: classify JSON=%v, json.Valid=%v", line, c.st == statusJSON, !(c.st == statusJSON))
			}
			// In JSON, bytes >= 0x80 occur only inside strings, so the
			// strings are valid UTF-8 exactly when the whole line is.
			if c.st == statusJSON {
				flagged := false
				for _, x := range c.finds {
					flagged = flagged || x.Code == "invalid-utf8"
				}
				if flagged == utf8.Valid(line) {
					t.Fatalf("%q: invalid-utf8 flagged=%v, utf8.Valid=%v", line, flagged, utf8.Valid(line))
				}
			}
		}
	})
}

// FuzzClassify checks the hand-written extraction against encoding/json on
// every valid JSON object: the members linesman reads (method, the id's
// spelling, resultType, error code, the progress token) must be what
// encoding/json finds, duplicates resolved the same way (the last wins).
func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"t"},"name":"x"}}`,
		`{"jsonrpc":"2.0","id":"a\u0062","result":{"resultType":"complete","content":[]}}`,
		`{"jsonrpc":"2.0","id":1.50,"error":{"code":-32601,"message":"m\n","data":null}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2}}`,
		`{"id":1,"id":"2","method":"a","method":"b","\u006d\u0065thod":"c"}`,
		` { "jsonrpc" : "2.0" , "id" : [ 1 ] , "result" : { "resultType" : 3 } } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, _ := Classify(line)
		printableClassified(t, line, &m)
		var top map[string]json.RawMessage
		if !utf8.Valid(line) || json.Unmarshal(line, &top) != nil || top == nil {
			return // not an object, or strings that encoding/json would alter
		}
		str := func(raw json.RawMessage) (string, bool) {
			var s string
			return s, raw != nil && json.Unmarshal(raw, &s) == nil
		}
		if method, ok := str(top["method"]); ok && m.Method != method {
			t.Fatalf("%q: method %q, encoding/json %q", line, m.Method, method)
		}
		if raw, ok := top["id"]; ok && m.IDRaw != string(raw) {
			t.Fatalf("%q: id %q, encoding/json %q", line, m.IDRaw, raw)
		}
		var result map[string]json.RawMessage
		if json.Unmarshal(top["result"], &result) == nil && result != nil {
			rt, ok := str(result["resultType"])
			if _, present := result["resultType"]; present != m.HasResultType || (ok && rt != m.ResultType) {
				t.Fatalf("%q: resultType %q (%v), encoding/json %q (%v)", line, m.ResultType, m.HasResultType, rt, present)
			}
		}
		obj := func(raw json.RawMessage) map[string]json.RawMessage {
			var o map[string]json.RawMessage
			_ = json.Unmarshal(raw, &o)
			return o
		}
		var code int64
		if m.Kind == KindError && json.Unmarshal(obj(top["error"])["code"], &code) == nil && code != m.ErrorCode() {
			t.Fatalf("%q: error code %d, encoding/json %d", line, m.ErrorCode(), code)
		}
		method, _ := str(top["method"])
		if tok := obj(obj(top["params"])["_meta"])["progressToken"]; tok != nil &&
			method != "notifications/progress" && method != "notifications/cancelled" {
			if want, _, ok := parseID(tok); ok && want != m.ProgressToken() {
				t.Fatalf("%q: progress token %v, encoding/json %s", line, m.ProgressToken(), tok)
			}
		}
	})
}

// printableClassified checks m, the classification of text, against a
// look at every byte: PrintableASCII is true exactly of a text that is one
// JSON value and holds printable ASCII alone.
func printableClassified(t *testing.T, text []byte, m *Message) {
	t.Helper()
	var c classified
	var again Message
	c = classify(text, false, &again, nil)
	want := c.st == statusJSON
	for _, b := range text {
		want = want && b >= 0x20 && b <= 0x7e
	}
	if m.PrintableASCII() != want || again.PrintableASCII() != want {
		t.Fatalf("%q: PrintableASCII %v, want %v", text, m.PrintableASCII(), want)
	}
}

// TestPrintableASCII: each byte value in a string, between tokens and
// around the value; a text that is not one value is never printable.
func TestPrintableASCII(t *testing.T) {
	for c := range 256 {
		for _, form := range []string{`{"a":"x%sy"}`, `{"a":%s1}`, `%s{"a":1}`, `{"a":1}%s`, `["%s"]`} {
			text := []byte(strings.Replace(form, "%s", string([]byte{byte(c)}), 1))
			m, _ := Classify(text)
			printableClassified(t, text, &m)
		}
	}
	for _, text := range []string{`{"a":"é"}`, "\xEF\xBB\xBF{}", `{"a":1`, `{"a":1}x`, "{\"a\":\t1}", "{\"a\":\"\x7f\"}", `"x"`, `1`, ` [1] `} {
		m, _ := Classify([]byte(text))
		printableClassified(t, []byte(text), &m)
	}
	if m, _ := Classify([]byte(`{"jsonrpc":"2.0","method":"x","params":{"a":"b c"}}`)); !m.PrintableASCII() {
		t.Error("a message of printable ASCII is not said to be")
	}
}

// FuzzIncScanner: the incremental scanner, fed an object or array in two
// pieces cut anywhere, says what the recursive scanner says of the whole:
// complete, a valid prefix, or never JSON.
func FuzzIncScanner(f *testing.F) {
	f.Add([]byte(`{"a":[1,-0.5e+3,true,null,"x\u00e9"]}`), uint16(5))
	f.Add([]byte("[\n  {\"k\": \"v\\n\"},\n  2\n] "), uint16(9))
	f.Add([]byte(`{"a":"b`+"\n"+`c"}`), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if i := skipWS(data); i == len(data) || (data[i] != '{' && data[i] != '[') {
			return
		}
		at := int(cut) % (len(data) + 1)
		var z incScanner
		r := z.feed(data[:at])
		if r != incErr {
			r = z.feed(data[at:])
		}
		c := classify(data, false, new(Message), nil)
		want := map[status]incResult{statusJSON: incDone, statusPrefix: incMore, statusBad: incErr}[c.st]
		if r != want {
			t.Fatalf("%q cut at %d: incremental %d, whole %d", data, at, r, want)
		}
	})
}
