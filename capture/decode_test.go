package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"linesman/wire"
)

// agreesWithEncodingJSON checks that decodeRecord gives what json.Unmarshal
// gives for line: the same record, or an error when it errs.
func agreesWithEncodingJSON(t *testing.T, line []byte) {
	t.Helper()
	var want, got rawRecord
	wantErr := json.Unmarshal(line, &want)
	gotErr := decodeRecord(line, &got)
	if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
		t.Fatalf("%q: error %v, encoding/json's %v", line, gotErr, wantErr)
	}
	if wantErr == nil {
		samePrepared(t, got.Lines)
		for i := range got.Lines {
			got.Lines[i].msg, got.Lines[i].pre = wire.Message{}, wire.Prepared{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	}
}

// samePrepared checks what the decoder classified of each frame line
// embedded as JSON against the framer's own classification of that line.
func samePrepared(t *testing.T, lines []rawLine) {
	t.Helper()
	for _, l := range lines {
		if !l.pre.OK() {
			continue
		}
		line := wire.Line{Content: l.JSON, Term: wire.TermLF, Length: int64(len(l.JSON))}
		want := wire.FramesOfLines([]wire.Line{line}, wire.Options{})
		got := &wire.Frame{Lines: []wire.Line{line}, Msg: l.msg}
		if !wire.Reframe([]*wire.Frame{got}, []wire.Prepared{l.pre}, wire.Options{}) || len(want) != 1 || !reflect.DeepEqual(got, want[0]) {
			t.Fatalf("%q: the decoder's classification\n%+v\nthe framer's\n%+v", l.JSON, got, want)
		}
	}
}

// fastPathTaken reports whether line is decoded without encoding/json.
func fastPathTaken(line []byte) bool {
	var rec rawRecord
	d := recordDecoder{b: line}
	return d.record(&rec)
}

// decodeCases are records as the writer writes them and as it never does.
var decodeCases = []string{
	`{"type":"frame","seq":1,"at":12,"dir":"s2c","lines":[{"json":{"jsonrpc":"2.0","id":1,"result":{}}}]}`,
	`{"type":"frame","seq":2,"at":12,"dir":"c2s","lines":[{"text":"{\"a\":","term":"lf","len":5},{"b64":"/w==","term":"none","len":1,"truncated":true}]}`,
	`{"type":"stderr","seq":3,"at":1,"text":"héllo \u001b[31m\ud800 x","term":"crlf","len":9}`,
	`{"type":"stderr","seq":3,"at":1,"json":[1,2,{"a":null}],"term":"lf","len":14}`,
	`{"type":"process","seq":4,"at":5,"state":"exited","step":"sigterm","pid":42,"exitCode":-1,"signal":"SIGTERM","shutdownTookNs":1000,"afterEOF":true,"byHost":true,"detail":"x"}`,
	`{"type":"finding","seq":5,"at":6,"code":"late-response","severity":"warning","message":"m","frameSeq":3,"dir":"s2c"}`,
	`{"type":"era","seq":6,"at":7,"era":"modern","version":"2026-07-28","probeAbandoned":true,"note":"n"}`,
	`{"type":"restart","seq":7,"at":8,"n":2,"command":["a","b c"],"note":""}`,
	`{"type":"restart","seq":7,"at":8,"n":2,"command":[]}`,
	`{"type":"dropped","seq":0,"at":0,"fromSeq":9,"count":18446744073709551615}`,
	`{"type":"end","seq":8,"at":9,"exited":true}`,
	` { "type" : "end" , "seq" : 8 , "at" : 9 } ` + "\r\n",
	`{"type":"fault","seq":9,"at":10,"kind":"delay","spec":"delay=1s","method":"tools/call","id":"7","note":"n"}`,
	// Not the writer's: encoding/json decides.
	`{"Type":"end","seq":8}`,
	`{"type":"end","seq":8,"seq":9}`,
	`{"type":"end","seq":8,"extra":{"x":1}}`,
	`{"type":"end","seq":8.0}`,
	`{"type":"end","seq":1e3}`,
	`{"type":"end","seq":-1}`,
	`{"type":"end","seq":01}`,
	`{"type":"end","seq":18446744073709551616}`,
	`{"type":"end","at":-9223372036854775809}`,
	`{"type":"end","exited":null}`,
	`{"type":null}`,
	`{"type":"frame","lines":[{"json":null}]}`,
	`{"type":"frame","lines":[{"json":{"a":}}]}`,
	`{"type":"frame","lines":[{"json":{"a":1}},]}`,
	`{"type":"frame","lines":[{"json":{"a":1},"json":2}]}`,
	`{"type":"frame","lines":[{"dir":"x"}]}`,
	`{"type":"frame","lines":null}`,
	`{"type":"stderr","text":"a\u0000b\"c\\"}`,
	`{"type":"stderr","text":"a` + "\xff" + `b"}`,
	`{"type":"stderr","text":"a` + "\x01" + `b"}`,
	`{"type":"end"} x`,
	`{"type":"end"`,
	`{"type":"end",}`,
	`{"type":"end","exited":truex}`,
	`{"type":"end","exited":tru}`,
	`[]`,
	`"x"`,
	``,
	`{"typ\u0065":"end"}`,
	`{"type":"frame","lines":[{"json":"` + strings.Repeat("x", 100) + `"}]}`,
}

func TestDecodeRecordAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range decodeCases {
		agreesWithEncodingJSON(t, []byte(c))
	}
	// The writer's own records take the hand-written path.
	for _, c := range decodeCases[:13] {
		if !fastPathTaken([]byte(c)) {
			t.Errorf("%s: not decoded by hand", c)
		}
	}
}

// TestDecodeRecordClassifiesFrames: a frame's line as the writer embeds it
// is classified as it is decoded, once; a stderr line is not a frame.
func TestDecodeRecordClassifiesFrames(t *testing.T) {
	var rec rawRecord
	if err := decodeRecord([]byte(decodeCases[0]), &rec); err != nil || !rec.Lines[0].pre.OK() || rec.Lines[0].msg.Kind != wire.KindResult {
		t.Errorf("%s: not classified as decoded (%v)", decodeCases[0], err)
	}
	if err := decodeRecord([]byte(decodeCases[3]), &rec); err != nil || rec.pre.OK() {
		t.Errorf("%s: a stderr line classified (%v)", decodeCases[3], err)
	}
}

// TestDecodeRecordDepth: a frame nested as deep as encoding/json allows in
// the record, and one level deeper.
func TestDecodeRecordDepth(t *testing.T) {
	for _, depth := range []int{9996, 9997, 9998} {
		line := `{"type":"frame","lines":[{"json":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}]}`
		agreesWithEncodingJSON(t, []byte(line))
		line = `{"type":"stderr","json":` + strings.Repeat("[", depth+2) + strings.Repeat("]", depth+2) + `}`
		agreesWithEncodingJSON(t, []byte(line))
	}
}

// TestDecodeRecordFiles: every record of the captures in testdata.
func TestDecodeRecordFiles(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.capture")
	more, _ := filepath.Glob("testdata/interop/*.capture")
	for _, p := range append(paths, more...) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			agreesWithEncodingJSON(t, bytes.Clone(sc.Bytes()))
		}
		f.Close()
	}
}

func FuzzDecodeRecord(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		agreesWithEncodingJSON(t, line)
	})
}
