package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// framingCodes are the codes wire itself emits.
var framingCodes = []string{
	"non-json-line", "multi-line-frame", "blank-line", "crlf-line-ending", "invalid-utf8", "utf8-bom",
	"control-characters", "unterminated-frame", "oversize-frame", "batch-array", "invalid-jsonrpc",
	"duplicate-key", "non-integer-id",
}

// summary renders frames as "kind[lines]:codes" for table comparisons.
func summary(frames []*Frame) string {
	var parts []string
	for _, f := range frames {
		parts = append(parts, fmt.Sprintf("%s[%d]:%s", f.Msg.Kind, len(f.Lines), strings.Join(codes(f.Findings), ",")))
	}
	return strings.Join(parts, " ")
}

func TestFramerProducesEveryFramingCode(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		code string
		in   string
		opts Options
		want string
	}{
		{"non-json-line", "Starting server...\n" + ok + "\n", Options{}, "non-json[1]:non-json-line result[1]:"},
		{"multi-line-frame", "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {}\n}\n", Options{}, "result[5]:multi-line-frame"},
		{"blank-line", ok + "\n\n", Options{}, "result[1]: non-json[1]:blank-line"},
		{"crlf-line-ending", ok + "\r\n", Options{}, "result[1]:crlf-line-ending"},
		{"invalid-utf8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"s\":\"\xc3\x28\"}}\n", Options{}, "result[1]:invalid-utf8"},
		{"utf8-bom", "\xEF\xBB\xBF" + ok + "\n", Options{}, "result[1]:utf8-bom"},
		{"control-characters", "progress 10%\rprogress 20%\n", Options{}, "non-json[1]:control-characters,non-json-line"},
		{"unterminated-frame", ok, Options{}, "result[1]:unterminated-frame"},
		{"oversize-frame", `{"jsonrpc":"2.0","id":9,"result":{"blob":"` + strings.Repeat("A", 100) + `"}}` + "\n" + ok + "\n",
			Options{MaxFrame: 64}, "result[1]:oversize-frame result[1]:"},
		{"batch-array", `[` + ok + `]` + "\n", Options{}, "invalid[1]:batch-array"},
		{"invalid-jsonrpc", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}` + "\n", Options{}, "invalid[1]:invalid-jsonrpc"},
		{"duplicate-key", `{"jsonrpc":"2.0","id":1,"result":{},"result":{}}` + "\n", Options{}, "result[1]:duplicate-key"},
		{"non-integer-id", `{"jsonrpc":"2.0","id":1e0,"result":{}}` + "\n", Options{}, "result[1]:non-integer-id"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			frames := FramesOf([]byte(tt.in), tt.opts)
			if got := summary(frames); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			for _, f := range frames {
				if f.Has(tt.code) {
					seen[tt.code] = true
				}
			}
			checkFrames(t, []byte(tt.in), frames, tt.opts)
		})
	}
	for _, c := range framingCodes {
		if !seen[c] {
			t.Errorf("no test produced %s", c)
		}
	}
}

// cleanStream is what a well-behaved server writes.
func cleanStream() string {
	msgs := []any{
		map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "x", "version": "1"}}},
		map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": 1, "progress": 1, "total": 2, "message": "é <b> & \u2028"}},
		map[string]any{"jsonrpc": "2.0", "id": "s-1", "method": "roots/list"},
		map[string]any{"jsonrpc": "2.0", "id": 2, "error": map[string]any{"code": -32601, "message": "no", "data": []any{1, 2.5, nil, true}}},
		map[string]any{"jsonrpc": "2.0", "id": 3, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "line1\nline2\t\"q\"\\"}}}},
	}
	var b strings.Builder
	for _, m := range msgs {
		line, err := Marshal(m)
		if err != nil {
			panic(err)
		}
		b.Write(line)
	}
	return b.String()
}

func TestFramerCleanStreamHasNoFindings(t *testing.T) {
	in := cleanStream()
	frames := FramesOf([]byte(in), Options{})
	if len(frames) != 5 {
		t.Fatalf("got %d frames, want 5", len(frames))
	}
	for _, f := range frames {
		if len(f.Findings) != 0 || f.Msg.Kind == KindNonJSON || f.Msg.Kind == KindInvalid {
			t.Errorf("clean frame %q: kind %v, findings %v", f.Raw(), f.Msg.Kind, f.Findings)
		}
	}
	checkFrames(t, []byte(in), frames, Options{})
}

func TestFramerPrettyPrintedReplyIsOneFrame(t *testing.T) {
	v := map[string]any{"jsonrpc": "2.0", "id": 4, "result": map[string]any{
		"tools": []any{
			map[string]any{"name": "echo", "description": "Echo {the} [input]", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
			map[string]any{"name": "add", "inputSchema": map[string]any{"type": "object", "required": []any{"a", "b"}}},
		},
		"nextCursor": nil, "n": -1.5e3, "ok": true, "no": false}}
	pretty, _ := json.MarshalIndent(v, "", "  ")
	lines := bytes.Count(pretty, []byte("\n")) + 1
	if lines < 30 {
		t.Fatalf("fixture has only %d lines", lines)
	}
	in := "before\n" + string(pretty) + "\n" + cleanStream()
	frames := FramesOf([]byte(in), Options{})
	if frames[0].Msg.Kind != KindNonJSON || !frames[0].Has("non-json-line") {
		t.Errorf("first frame: %v", frames[0].Findings)
	}
	f := frames[1]
	if len(f.Lines) != lines || f.Msg.Kind != KindResult || f.Msg.ID != IntID(4) || len(f.Findings) != 1 || !f.Has("multi-line-frame") {
		t.Fatalf("pretty reply: %d lines (want %d), kind %v, id %v, findings %v", len(f.Lines), lines, f.Msg.Kind, f.Msg.ID, f.Findings)
	}
	if len(frames) != 2+5 {
		t.Errorf("got %d frames, want 7", len(frames))
	}
	checkFrames(t, []byte(in), frames, Options{})

	// The same with CRLF line ends: still one frame, and the line ends flagged.
	crlf := strings.ReplaceAll(string(pretty), "\n", "\r\n") + "\r\n"
	frames = FramesOf([]byte(crlf), Options{})
	if len(frames) != 1 || !frames[0].Has("multi-line-frame") || !frames[0].Has("crlf-line-ending") || frames[0].Has("control-characters") {
		t.Errorf("CRLF pretty reply: %s", summary(frames))
	}
}

func TestFramerReassembly(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name string
		in   string
		opts Options
		want string
	}{
		{"never completes, then EOF", "{\n  \"a\": 1,\n", Options{}, "non-json[1]:non-json-line non-json[1]:non-json-line"},
		{"broken, then a message", "{\n  \"a\" 1\n" + msg + "\n", Options{}, "non-json[1]:non-json-line non-json[1]:non-json-line result[1]:"},
		{"a stray { does not swallow the next message", "{\n" + msg + "\n" + msg + "\n", Options{}, "non-json[1]:non-json-line result[1]: result[1]:"},
		{"a stray [ does not swallow the next message", "[\n" + msg + "\n", Options{}, "non-json[1]:non-json-line result[1]:"},
		{"failing line starts a new candidate", "{\n{\n\"jsonrpc\":\"2.0\",\"method\":\"x\"\n}\n", Options{}, "non-json[1]:non-json-line notification[3]:multi-line-frame"},
		{"blank line inside a pretty frame", "{\"jsonrpc\":\"2.0\",\n\n\"method\":\"x\"}\n", Options{}, "notification[3]:multi-line-frame"},
		{"blank line in a broken run", "{\n\nhello\n", Options{}, "non-json[1]:non-json-line non-json[1]:blank-line non-json[1]:non-json-line"},
		{"trailing text after the value", "{\"jsonrpc\":\"2.0\",\n\"method\":\"x\"} junk\n", Options{}, "non-json[1]:non-json-line non-json[1]:non-json-line"},
		{"a string cannot span lines", "{\"a\":\"x\ny\"}\n", Options{}, "non-json[1]:non-json-line non-json[1]:non-json-line"},
		{"a number cannot span lines", "{\"a\":1\n2}\n", Options{}, "non-json[1]:non-json-line non-json[1]:non-json-line"},
		{"pending line bound", "[\n1,\n2,\n3,\n4]\n", Options{MaxPendingLines: 3}, "non-json[1]:non-json-line non-json[1]:non-json-line non-json[1]:non-json-line non-json[1]:non-json-line non-json[1]:non-json-line"},
		{"pending byte bound", "[\n1,\n2,\n3,\n4]\n", Options{MaxPendingBytes: 8}, "non-json[1]:non-json-line non-json[1]:non-json-line non-json[1]:non-json-line non-json[1]:non-json-line non-json[1]:non-json-line"},
		{"within the bounds", "[\n1,\n2,\n3,\n4]\n", Options{MaxPendingLines: 5}, "invalid[5]:batch-array,multi-line-frame"},
		{"unterminated multi-line frame", "{\"jsonrpc\":\"2.0\",\n\"method\":\"x\"}", Options{}, "notification[2]:multi-line-frame,unterminated-frame"},
		{"a line that cannot start a value is not held", "hello {\n" + msg + "\n", Options{}, "non-json[1]:non-json-line result[1]:"},
		{"oversize line ends a run", "{\n\"" + strings.Repeat("x", 40) + "\"\n" + msg + "\n", Options{MaxFrame: 38},
			"non-json[1]:non-json-line invalid[1]:invalid-jsonrpc,oversize-frame result[1]:"},
		{"truncated message keeps what it can", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x":"` + strings.Repeat("y", 50) + "\"}}\n", Options{MaxFrame: 60}, "request[1]:oversize-frame"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frames := FramesOf([]byte(tt.in), tt.opts)
			if got := summary(frames); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			checkFrames(t, []byte(tt.in), frames, tt.opts)
		})
	}
}

func TestFramerExplainsARawNewlineInAString(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"result":{"text":"first line` + "\n" + `second line"}}` + "\n"
	frames := FramesOf([]byte(in), Options{})
	if len(frames) != 2 || !strings.Contains(frames[0].Findings[0].Message, `raw line break in a string`) {
		t.Fatalf("got %s: %v", summary(frames), frames[0].Findings)
	}
}

func TestFramerTruncatedMessageKeepsIDAndMethod(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"x":"` + strings.Repeat("y", 50) + "\"}}\n"
	f := FramesOf([]byte(in), Options{MaxFrame: 60})[0]
	if f.Msg.ID != IntID(12) || f.Msg.Method != "tools/call" || f.Lines[0].Length != int64(len(in)-1) {
		t.Fatalf("got %+v", f.Msg)
	}
}

// TestFramerReturnsWithoutReadingAhead proves that a live stream gets each
// frame as soon as its last line has arrived: the reader fails the test if
// it is read a second time.
func TestFramerReturnsWithoutReadingAhead(t *testing.T) {
	for _, in := range []string{
		"hello\n",
		`{"jsonrpc":"2.0","method":"x"}` + "\n",
		"{\n\"jsonrpc\":\"2.0\",\n\"method\":\"x\"\n}\n",
		"[INFO] started\n",
		"{'python': 'repr'}\n",
	} {
		f := NewFramer(&oneShot{t: t, data: []byte(in)}, Options{})
		fr, err := f.Next()
		if err != nil || !bytes.Equal(fr.Raw(), []byte(in)) {
			t.Fatalf("%q: got %v, %v", in, fr, err)
		}
	}
}

// checkFrames verifies the byte-exact property over frames, and that every
// finding is registered.
func checkFrames(t testing.TB, in []byte, frames []*Frame, opts Options) {
	t.Helper()
	var lines []Line
	for _, f := range frames {
		if len(f.Lines) == 0 {
			t.Fatal("a frame without lines")
		}
		lines = append(lines, f.Lines...)
		for _, x := range f.Findings {
			info, ok := Lookup(x.Code)
			if !ok || x.Severity != info.Severity || x.Message == "" {
				t.Fatalf("finding %+v: registered=%v", x, ok)
			}
		}
		if len(f.Lines) > 1 {
			if !f.Has("multi-line-frame") || f.Msg.Kind == KindNonJSON {
				t.Fatalf("a frame of %d lines that is not a multi-line JSON frame: %v", len(f.Lines), f.Findings)
			}
		}
	}
	checkExact(t, in, lines, opts.withDefaults().MaxFrame)
}

func TestFramesOfEmpty(t *testing.T) {
	if got := FramesOf(nil, Options{}); len(got) != 0 {
		t.Fatalf("got %d frames", len(got))
	}
}

func TestFramerReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("{\n\"a\":1,\n"), &errReader{})
	f := NewFramer(r, Options{})
	var n int
	for {
		_, err := f.Next()
		if err != nil {
			if err != errBoom {
				t.Fatalf("err = %v", err)
			}
			break
		}
		n++
	}
	if n != 2 {
		t.Fatalf("got %d frames before the error, want the 2 pending lines", n)
	}
}

var errBoom = fmt.Errorf("boom")

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errBoom }

func ExampleFramer() {
	stream := "Server starting...\n" +
		"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {}\n}\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":50,\"total\":100}}\r\n"
	f := NewFramer(strings.NewReader(stream), Options{})
	for {
		fr, err := f.Next()
		if err != nil {
			break
		}
		fmt.Printf("%s, %d line(s), %d bytes\n", fr.Msg.Kind, len(fr.Lines), fr.Size())
		for _, x := range fr.Findings {
			fmt.Printf("  %s %s\n", x.Severity, x.Code)
		}
	}
	// Output:
	// non-json, 1 line(s), 19 bytes
	//   error non-json-line
	// result, 5 line(s), 50 bytes
	//   error multi-line-frame
	// notification, 1 line(s), 108 bytes
	//   note crlf-line-ending
}

// TestFramesOfIsSmall: the session frames every message the user sends with
// FramesOf and keeps the frames, so a short message must cost about its own
// size, not a read buffer or a slab of frames.
func TestFramesOfIsSmall(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 100
	keep := make([][]*Frame, n)
	for i := range keep {
		keep[i] = FramesOf(msg, Options{})
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 2048 {
		t.Fatalf("FramesOf of a %d-byte message allocates %d bytes", len(msg), per)
	}
	if len(keep[n-1]) != 1 || keep[n-1][0].Msg.Method != "ping" {
		t.Fatal("wrong frames")
	}
}

func TestFramerFlagsACarriageReturnBetweenTokens(t *testing.T) {
	// Valid JSON (CR is JSON whitespace), but a raw CR inside a line.
	frames := FramesOf([]byte("{\"jsonrpc\":\"2.0\",\r\"method\":\"x\"}\n"), Options{})
	if got := summary(frames); got != "notification[1]:control-characters" {
		t.Fatalf("got %s", got)
	}
}

func TestSplitterCut(t *testing.T) {
	lf := func(s string) Line { return Line{Content: []byte(s), Term: TermLF, Length: int64(len(s))} }
	for _, c := range []struct {
		name  string
		lines []Line
		want  bool
	}{
		{"lines as cut", []Line{lf("{}"), lf(""), {Content: []byte("x\r"), Term: TermCRLF, Length: 2}, {Content: []byte("y"), Length: 1}}, true},
		{"a line feed inside", []Line{lf("a\nb")}, false},
		{"a CR before LF", []Line{lf("a\r")}, false},
		{"no terminator before the last", []Line{{Content: []byte("a"), Length: 1}, lf("b")}, false},
		{"an empty last line with no terminator", []Line{lf("a"), {}}, false},
		{"a length other than the content's", []Line{{Content: []byte("a"), Term: TermLF, Length: 5}}, false},
		{"truncated", []Line{{Content: []byte("a"), Term: TermLF, Length: 1, Truncated: true}}, false},
	} {
		if got := SplitterCut(c.lines); got != c.want {
			t.Errorf("%s: SplitterCut = %v, want %v", c.name, got, c.want)
		}
	}
}
