package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"linesman/session/eventlog"
	"linesman/wire"
)

// script is a session to play into a log the way a live session fills it:
// client sends split with wire.FramesOf, server stdout through one
// wire.Framer, stderr through a wire.Splitter, every frame through the
// tracker with Log.AppendWith.
type script struct {
	log *eventlog.Log
	tr  *eventlog.Tracker
	max int

	c2s, s2c []byte // every byte each way, to check the raw round trip
}

func newScript(retention int64, maxFrame int) *script {
	return &script{
		log: eventlog.NewLog(retention),
		tr:  eventlog.NewTracker(eventlog.TrackerOptions{}),
		max: maxFrame,
	}
}

func (s *script) frame(dir wire.Dir, f *wire.Frame) uint64 {
	return eventlog.Record(s.log, s.tr, eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f})
}

// send logs what the client wrote, as Session.Send does.
func (s *script) send(raw string) {
	s.c2s = append(s.c2s, raw...)
	for _, f := range wire.FramesOf([]byte(raw), wire.Options{MaxFrame: s.max}) {
		s.frame(wire.ClientToServer, f)
	}
}

// serve logs what the server wrote on stdout, framed as one stream.
func (s *script) serve(t testing.TB, stream []byte) {
	t.Helper()
	s.s2c = append(s.s2c, stream...)
	fr := wire.NewFramer(bytes.NewReader(stream), wire.Options{MaxFrame: s.max})
	for {
		f, err := fr.Next()
		if err != nil {
			break
		}
		s.frame(wire.ServerToClient, f)
	}
}

func (s *script) stderr(t testing.TB, text []byte) {
	t.Helper()
	sp := wire.NewSplitter(bytes.NewReader(text), s.max)
	for {
		l, err := sp.Next()
		if err != nil {
			break
		}
		s.log.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &l})
	}
}

func (s *script) process(p eventlog.ProcessEvent) {
	s.fact(eventlog.Event{Type: eventlog.EventProcess, Process: &p})
}

func (s *script) finding(f eventlog.LoggedFinding) {
	s.log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &f})
}

func (s *script) note(n string) { s.log.Append(eventlog.Event{Type: eventlog.EventNote, Note: n}) }

// fact logs an event the fold sees (an era decision, a restart, a timeout,
// the end), applied to the tracker under the log's lock as the session does,
// with the findings it settles logged after it.
func (s *script) fact(ev eventlog.Event) { eventlog.Record(s.log, s.tr, ev) }

// record writes the script's log to a fresh capture file and returns its path.
func record(t testing.TB, log *eventlog.Log, h Header) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	r, err := Create(path, log, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// sameEvents fails unless got holds exactly the events of want: types,
// order, Seqs, times, directions, raw bytes, classification and findings.
func sameEvents(t testing.TB, want, got *eventlog.Log) {
	t.Helper()
	wf, wn := want.Bounds()
	gf, gn := got.Bounds()
	if wn-wf != gn-gf {
		t.Fatalf("%d events read back, want %d", gn-gf, wn-wf)
	}
	if !want.Start().Equal(got.Start()) {
		t.Errorf("start %v, want %v", got.Start(), want.Start())
	}
	we, ge := want.Range(wf, wn), got.Range(gf, gn)
	for i := range we {
		if err := diffEvent(&we[i], &ge[i]); err != nil {
			t.Fatalf("event %d (seq %d): %v", i, we[i].Seq, err)
		}
	}
}

func diffEvent(w, g *eventlog.Event) error {
	switch {
	case w.Seq != g.Seq:
		return fmt.Errorf("seq %d, want %d", g.Seq, w.Seq)
	case w.Type != g.Type:
		return fmt.Errorf("type %v, want %v", g.Type, w.Type)
	case w.At != g.At:
		return fmt.Errorf("at %v, want %v", g.At, w.At)
	case !w.Wall.Equal(g.Wall):
		return fmt.Errorf("wall %v, want %v", g.Wall, w.Wall)
	case w.Dir != g.Dir:
		return fmt.Errorf("dir %v, want %v", g.Dir, w.Dir)
	case w.Note != g.Note:
		return fmt.Errorf("note %q, want %q", g.Note, w.Note)
	}
	switch w.Type {
	case eventlog.EventFrame:
		if len(w.Frame.Lines) != len(g.Frame.Lines) {
			return fmt.Errorf("%d lines, want %d", len(g.Frame.Lines), len(w.Frame.Lines))
		}
		for i := range w.Frame.Lines {
			if err := diffLine(&w.Frame.Lines[i], &g.Frame.Lines[i]); err != nil {
				return fmt.Errorf("line %d: %v", i, err)
			}
		}
		if !w.Frame.Msg.Equal(&g.Frame.Msg) {
			return fmt.Errorf("message %+v, want %+v", g.Frame.Msg, w.Frame.Msg)
		}
		if fmt.Sprint(w.Frame.Findings) != fmt.Sprint(g.Frame.Findings) {
			return fmt.Errorf("findings %v, want %v", g.Frame.Findings, w.Frame.Findings)
		}
	case eventlog.EventStderr:
		return diffLine(w.Stderr, g.Stderr)
	case eventlog.EventProcess:
		if *w.Process != *g.Process {
			return fmt.Errorf("process %+v, want %+v", *g.Process, *w.Process)
		}
	case eventlog.EventFinding:
		if *w.Finding != *g.Finding {
			return fmt.Errorf("finding %+v, want %+v", *g.Finding, *w.Finding)
		}
	case eventlog.EventEra:
		if *w.Era != *g.Era {
			return fmt.Errorf("era %+v, want %+v", *g.Era, *w.Era)
		}
	case eventlog.EventRestart:
		if fmt.Sprint(*w.Restart) != fmt.Sprint(*g.Restart) {
			return fmt.Errorf("restart %+v, want %+v", *g.Restart, *w.Restart)
		}
	case eventlog.EventIntercept:
		if *w.Intercept != *g.Intercept {
			return fmt.Errorf("intercept %+v, want %+v", *g.Intercept, *w.Intercept)
		}
		if (w.Frame == nil) != (g.Frame == nil) || w.Frame != nil && (!bytes.Equal(w.Frame.Raw(), g.Frame.Raw()) || !w.Frame.Msg.Equal(&g.Frame.Msg)) {
			return fmt.Errorf("intercepted frame %+v, want %+v", g.Frame, w.Frame)
		}
	}
	return nil
}

func diffLine(w, g *wire.Line) error {
	switch {
	case !bytes.Equal(w.Content, g.Content):
		return fmt.Errorf("content %q, want %q", clip(g.Content), clip(w.Content))
	case w.Term != g.Term:
		return fmt.Errorf("terminator %v, want %v", g.Term, w.Term)
	case w.Length != g.Length:
		return fmt.Errorf("length %d, want %d", g.Length, w.Length)
	case w.Truncated != g.Truncated:
		return fmt.Errorf("truncated %v, want %v", g.Truncated, w.Truncated)
	}
	return nil
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// rawOf concatenates the raw bytes of every frame in one direction.
func rawOf(log *eventlog.Log, dir wire.Dir) []byte {
	first, next := log.Bounds()
	var out []byte
	for _, ev := range log.Range(first, next) {
		if ev.Type == eventlog.EventFrame && ev.Dir == dir {
			out = append(out, ev.Frame.Raw()...)
		}
	}
	return out
}

func bigFrame(n int) []byte {
	prefix := `{"jsonrpc":"2.0","id":7,"result":{"blob":"`
	b := make([]byte, 0, n+1)
	b = append(b, prefix...)
	for len(b) < n-3 {
		b = append(b, "abcdefghij0123456789"[len(b)%20])
	}
	b = append(b, `"}}`...)
	return b
}

func TestRoundTrip(t *testing.T) {
	const pretty = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"tools\": []}\n}\n"
	cases := []struct {
		name     string
		maxFrame int
		play     func(t *testing.T, s *script)
	}{
		{"invalid-utf8", 0, func(t *testing.T, s *script) {
			s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n")
			s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"caf\xc3\xa9 \xc3\x28\"}}\nnot json \x80\x81\n"))
			s.stderr(t, []byte("latin-1 caf\xe9\n\xed\xa0\x80 surrogate\n"))
		}},
		{"crlf", 0, func(t *testing.T, s *script) {
			s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n")
			s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n"))
			s.stderr(t, []byte("windows\r\nlog\r\n"))
		}},
		{"big-frame-whole", 32 << 20, func(t *testing.T, s *script) {
			s.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}\n")
			s.serve(t, append(bigFrame(20<<20), '\n'))
		}},
		{"big-frame-truncated", 0, func(t *testing.T, s *script) {
			s.serve(t, append(append(bigFrame(20<<20), '\n'), "{\"jsonrpc\":\"2.0\",\"method\":\"after\"}\n"...))
		}},
		{"multi-line", 0, func(t *testing.T, s *script) {
			s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n")
			s.serve(t, []byte("starting up\n"+pretty+"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n"))
			s.send("{\n\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/initialized\"}\n")
		}},
		{"unfinished-run", 0, func(t *testing.T, s *script) {
			// Lines that began a JSON value and never completed it: each is
			// a non-json-line frame, judged with the run they were in.
			s.serve(t, []byte("[\n1,\n{\"a\":\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n{\n\"b\": [\n"))
		}},
		{"stderr-escapes", 0, func(t *testing.T, s *script) {
			s.stderr(t, []byte("\x1b[31mred\x1b[0m\n\x1b]0;title\x07 osc\n\xc2\x9b2J c1 csi\n\x00nul\tand tab\x7f\n"))
			s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"\x1b[2J\"}}\n"))
		}},
		{"everything-else", 0, func(t *testing.T, s *script) {
			s.process(eventlog.ProcessEvent{State: eventlog.StateStarting, Detail: "starting fake \"server\""})
			s.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 4242})
			s.note("era: legacy (server/discover answered -32601)")
			s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n")
			s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
			s.serve(t, []byte("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n[1,2]\n"))
			s.finding(eventlog.LoggedFinding{Finding: wire.NewFinding("request-timeout", "no answer to ping"), FrameSeq: 5, Dir: wire.ClientToServer})
			s.process(eventlog.ProcessEvent{State: eventlog.StateExiting, Step: eventlog.StepStdinClose, Pid: 4242})
			s.process(eventlog.ProcessEvent{State: eventlog.StateExiting, Step: eventlog.StepSIGTERM, Pid: 4242})
			s.process(eventlog.ProcessEvent{State: eventlog.StateExited, Step: eventlog.StepSIGTERM, Pid: 4242, ExitCode: -1, Signal: "SIGTERM", ShutdownTook: 2*time.Second + 3})
			s.finding(eventlog.LoggedFinding{Finding: wire.NewFinding("stderr-escape-sequences", "ESC [ 3 1 m")})
			s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}")) // unterminated
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScript(0, tc.maxFrame)
			tc.play(t, s)
			path := record(t, s.log, Header{Command: []string{"server", "--flag"}, MaxFrame: tc.maxFrame})
			c, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.Torn != 0 || c.Dropped != 0 {
				t.Errorf("torn %d, dropped %d: want 0, 0", c.Torn, c.Dropped)
			}
			sameEvents(t, s.log, c.Log)
			if got := rawOf(c.Log, wire.ClientToServer); !bytes.Equal(got, s.c2s) && !truncatedAny(c.Log) {
				t.Errorf("client bytes differ: %q, want %q", clip(got), clip(s.c2s))
			}
			if got := rawOf(c.Log, wire.ServerToClient); !bytes.Equal(got, s.s2c) && !truncatedAny(c.Log) {
				t.Errorf("server bytes differ: %q, want %q", clip(got), clip(s.s2c))
			}
			if c.Header.Format != FormatName || c.Header.Version != FormatVersion || c.Header.Linesman != eventlog.Version ||
				strings.Join(c.Header.Command, " ") != "server --flag" {
				t.Errorf("header %+v", c.Header)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

func truncatedAny(log *eventlog.Log) bool {
	first, next := log.Bounds()
	for _, ev := range log.Range(first, next) {
		if ev.Type == eventlog.EventFrame && ev.Frame.Truncated() {
			return true
		}
	}
	return false
}

// TestCaptureIsTerminalSafe: a capture shown with cat must not drive the
// terminal, whatever the server wrote.
func TestCaptureIsTerminalSafe(t *testing.T) {
	s := newScript(0, 0)
	s.stderr(t, []byte("\x1b[31mred\x1b[0m \xc2\x9b c1 \x7f del\n"))
	s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"s\":\"\x1b]0;x\x07\"}}\n"))
	v := "v\x7f\u0085\x1b"
	path := record(t, s.log, Header{Command: []string{"srv\x1b[2J", "\u009b"}, Env: []EnvVar{{Name: "K", Value: &v}}})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", c.Header.Command) != `["srv\x1b[2J" "\u009b"]` || *c.Header.Env[0].Value != v {
		t.Errorf("header read back as %q %q", c.Header.Command, *c.Header.Env[0].Value)
	}
	for i, c := range b {
		if (c < 0x20 && c != '\n') || c == 0x7f || (c == 0xc2 && i+1 < len(b) && b[i+1] < 0xa0) {
			t.Fatalf("raw control byte %#x at %d in %q", c, i, b)
		}
	}
}

// TestAppendStringMatchesJSON: the hand-built encoder gives back, through
// encoding/json, exactly the bytes it was given.
func TestAppendStringMatchesJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\x00\x01\x1f\x7f", "tab\tnl\ncr\r",
		"é ü 中文 🎉", "\u0080\u009f\u00a0", "\u2028\u2029", "</script>&"} {
		b := appendString(nil, []byte(s))
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q: %s: %v", s, b, err)
		}
		if got != s {
			t.Errorf("%q round-tripped as %q (via %s)", s, got, b)
		}
	}
}

// appendStringEightAtATime is appendString as it was before plainRun:
// eight bytes at a time at most. The oracle of its fast path.
func appendStringEightAtATime(buf []byte, s []byte) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && attention(binary.LittleEndian.Uint64(s[i:])) == 0 {
			i += 8
		}
		if i >= len(s) {
			break
		}
		if plain[s[i]] {
			i++
			continue
		}
		c := s[i]
		if c == 0xC2 {
			if i+1 < len(s) && s[i+1] < 0xA0 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[s[i+1]>>4], hexDigits[s[i+1]&0xF])
				i += 2
				start = i
				continue
			}
			i++
			continue
		}
		if c == 0xE2 || c == 0xD8 {
			if r, n := bidiAt(s, i); n > 0 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += n
				start = i
				continue
			}
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// firstNotPlain is plainRun's contract spelled byte by byte: the offset of
// the first byte at or after i that attention marks, or len(s).
func firstNotPlain(s []byte, i int) int {
	for i < len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return i
		}
		i++
	}
	return i
}

// TestPlainRunStopsWhereTheBytewiseLoopDoes: every byte value, at every
// place of a long run (window edges and 32-byte blocks included), after a
// false mark below it or not; and appendString writes what it wrote eight
// bytes at a time.
func TestPlainRunStopsWhereTheBytewiseLoopDoes(t *testing.T) {
	run := make([]byte, 3000)
	for i := range run {
		run[i] = 'a' + byte(i%26)
	}
	for _, at := range []int{0, 1, 7, 8, 31, 32, 33, 63, 64, 255, 256, 257, 767, 768, 1791, 1792, 2999} {
		for k := range 2 * 256 {
			// A second special byte right after: one that carries, or a
			// control byte, which keeps a valid byte valid UTF-8.
			c, next := k%256, []byte{0xff, 0x00}[k/256]
			b := append([]byte(nil), run...)
			b[at] = byte(c)
			if at+1 < len(b) {
				b[at+1] = next
			}
			for _, from := range []int{0, max(0, at-1), at} {
				if got, want := plainRun(b, from), firstNotPlain(b, from); got != want {
					t.Fatalf("byte %#x at %d, from %d: plainRun %d, want %d", c, at, from, got, want)
				}
			}
			want := bytes.IndexFunc(b, func(r rune) bool { return r < 0x20 || r > 0x7e })
			if got := unprintable(b); got != want {
				t.Fatalf("byte %#x at %d: unprintable %d, want %d", c, at, got, want)
			}
			if utf8.Valid(b) {
				if got, want := appendString(nil, b), appendStringEightAtATime(nil, b); !bytes.Equal(got, want) {
					t.Fatalf("byte %#x at %d: appendString differs from eight bytes at a time", c, at)
				}
			}
		}
	}
}

// FuzzPlainRun: plainRun stops where the byte-by-byte loop does, from any
// offset of any bytes; appendString writes what it wrote eight bytes at a
// time, however long the runs between the bytes it escapes.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`plain text "quoted" and \escaped`), 0, uint8(0))
	f.Add(bytes.Repeat([]byte("x"), 9000), 100, uint8(3))
	f.Add(append(bytes.Repeat([]byte("x"), 700), "é\x01\x7f\u200e\u0085"...), 3, uint8(200))
	f.Fuzz(func(t *testing.T, b []byte, from int, stretch uint8) {
		if len(b) == 0 {
			return
		}
		from = int(uint(from) % uint(len(b)))
		if got, want := plainRun(b, from), firstNotPlain(b, from); got != want {
			t.Fatalf("%q from %d: plainRun %d, want %d", b, from, got, want)
		}
		// Each byte repeated stretch+1 times: long runs of plain text
		// between what the fuzzer puts in.
		long := make([]byte, 0, len(b)*(int(stretch)+1))
		for _, c := range b {
			for range int(stretch) + 1 {
				long = append(long, c)
			}
		}
		for _, s := range [][]byte{b, long} {
			if !utf8.Valid(s) {
				continue
			}
			if got, want := appendString(nil, s), appendStringEightAtATime(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("%q: appendString %q, eight at a time %q", s, got, want)
			}
		}
	})
}

func FuzzAppendString(f *testing.F) {
	f.Add([]byte("a\x1b[0m\xc2\x85"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l := wire.Line{Content: b, Term: wire.TermLF, Length: int64(len(b))}
		rec := append([]byte{'{'}, appendLine(nil, &l)...)
		rec = append(rec, '}')
		var raw rawLine
		if err := json.Unmarshal(rec, &raw); err != nil {
			t.Fatalf("%q: %s: %v", b, rec, err)
		}
		got, err := raw.line()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Content, b) {
			t.Fatalf("%q came back as %q", b, got.Content)
		}
	})
}

// TestTornLastRecord: a recorder killed mid-write leaves a partial last
// line; Open skips it, says so, and gives back everything before it.
func TestTornLastRecord(t *testing.T) {
	s := newScript(0, 0)
	for i := range 5 {
		s.send(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i+1))
	}
	path := record(t, s.log, Header{})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lastStart := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	for _, cut := range []int{1, 10, len(b) - lastStart - 2} {
		if err := os.WriteFile(path, b[:lastStart+cut], 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Open(path)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if c.Torn != cut || c.Records != 4 || c.Log.Len() != 4 {
			t.Errorf("cut %d: torn %d, %d records, %d events; want %d, 4, 4", cut, c.Torn, c.Records, c.Log.Len(), cut)
		}
	}
	// A last record that lacks only its newline is whole.
	if err := os.WriteFile(path, b[:len(b)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := Open(path); err != nil || c.Torn != 0 || c.Records != 5 {
		t.Errorf("without the last newline: %v, %+v", err, c)
	}
	// Cut at a record boundary: nothing is torn.
	if err := os.WriteFile(path, b[:lastStart], 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := Open(path); err != nil || c.Torn != 0 || c.Records != 4 {
		t.Errorf("cut at a boundary: %v, %+v", err, c)
	}
}

func TestOpenRejects(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := Open(write("notes.txt", "hello\n")); !errors.Is(err, ErrNotCapture) {
		t.Errorf("a text file: %v, want ErrNotCapture", err)
	}
	if _, err := Open(write("empty", "")); !errors.Is(err, ErrNotCapture) {
		t.Errorf("an empty file: %v, want ErrNotCapture", err)
	}
	if _, err := Open(write("newer", `{"type":"header","format":"linesman-capture","version":99,"linesman":"9.0"}`+"\n")); err == nil ||
		!strings.Contains(err.Error(), "version 99") {
		t.Errorf("a newer version: %v", err)
	}
	// A newer version without the writer's name reads as English; a header
	// with no version is broken, not newer ("upgrade linesman" would mislead).
	if _, err := Open(write("newer-anon", `{"type":"header","format":"linesman-capture","version":7}`+"\n")); err == nil ||
		!strings.Contains(err.Error(), "written by a newer linesman;") {
		t.Errorf("a newer version, writer unnamed: %v", err)
	}
	if _, err := Open(write("no-version", `{"type":"header","format":"linesman-capture","linesman":"0.1.0"}`+"\n")); !errors.Is(err, ErrNotCapture) ||
		strings.Contains(err.Error(), "upgrade") {
		t.Errorf("a header without a version: %v", err)
	}
	hdr := `{"type":"header","format":"linesman-capture","version":1,"start":"2026-01-02T03:04:05.000000006Z"}` + "\n"
	// A corrupt record is skipped with its line number; the rest opens.
	if c, err := Open(write("bad", hdr+`{"type":"frame","seq":1,"at":5,"dir":"c2s","lines":[{"text":"x","term":"lf","len":1}]}`+"\n{oops\n")); err != nil ||
		c.SkippedCount != 1 || c.Skipped[0].Line != 3 || c.Log.Len() != 1 {
		t.Errorf("a corrupt record in line 3: %v, %+v", err, c)
	}
	// A truncated line claiming an absurd length opens at once, flagged.
	c, err := Open(write("huge", hdr+`{"type":"frame","seq":1,"at":5,"dir":"s2c","lines":[{"text":"{\"a\":","term":"lf","len":999999999999999,"truncated":true}]}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if ev, _ := c.Log.Get(1); ev.Frame == nil || !ev.Frame.Has("oversize-frame") || ev.Frame.Lines[0].Length != 999999999999999 {
		t.Errorf("huge truncated line read back as %+v", ev.Frame)
	}
	// A record type from a newer revision is skipped, the rest kept.
	c, err = Open(write("future", hdr+`{"type":"hologram","seq":1,"at":5}`+"\n"+`{"type":"note","seq":2,"at":6,"note":"n"}`+"\n"))
	if err != nil || c.Log.Len() != 1 {
		t.Fatalf("unknown record type: %v", err)
	}
	if ev, _ := c.Log.Get(1); ev.Note != "n" || ev.At != 6 || !ev.Wall.Equal(time.Date(2026, 1, 2, 3, 4, 5, 12, time.UTC)) {
		t.Errorf("note read back as %+v", ev)
	}
}

// TestDroppedEvents: events the log's retention dropped before the recorder
// wrote them are counted in a "dropped" record, and findings that point at
// frames still find them in the refilled log.
func TestDroppedEvents(t *testing.T) {
	s := newScript(4<<10, 0)
	for i := range 100 {
		s.send(fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", i+1))
	}
	first, next := s.log.Bounds()
	if first == 1 {
		t.Fatal("retention dropped nothing; the test needs a smaller budget")
	}
	s.finding(eventlog.LoggedFinding{Finding: wire.NewFinding("request-timeout", "kept"), FrameSeq: next - 1})
	s.finding(eventlog.LoggedFinding{Finding: wire.NewFinding("request-timeout", "dropped"), FrameSeq: 1})
	path := record(t, s.log, Header{})
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dropped == 0 {
		t.Fatal("no dropped count")
	}
	lf, ln := s.log.Bounds()
	if uint64(c.Log.Len())+c.Dropped != ln-1 || c.Dropped != lf-1 {
		t.Fatalf("%d events + %d dropped; the log had %d, %d dropped", c.Log.Len(), c.Dropped, ln-1, lf-1)
	}
	_, cn := c.Log.Bounds()
	kept, _ := c.Log.Get(cn - 2)
	if kept.Finding == nil || kept.Finding.FrameSeq != cn-3 {
		t.Fatalf("finding about a kept frame: %+v, want frame seq %d", kept.Finding, cn-3)
	}
	if f, _ := c.Log.Get(kept.Finding.FrameSeq); f.Type != eventlog.EventFrame || f.Frame.Msg.ID != wire.IntID(100) {
		t.Errorf("the finding points at %+v", f)
	}
	gone, _ := c.Log.Get(cn - 1)
	if gone.Finding == nil || gone.Finding.FrameSeq != 0 {
		t.Errorf("finding about a dropped frame: %+v, want frame seq 0", gone.Finding)
	}
}

// TestAppendStringEveryByte: the 8-byte fast path never skips a byte that
// needs escaping, whatever its position in the word.
func TestAppendStringEveryByte(t *testing.T) {
	for c := range 256 {
		for pos := range 9 {
			s := []byte("abcdefghi")
			s[pos] = byte(c)
			if c == 0xC2 && pos < 8 {
				s[pos+1] = 0x85 // a C1 control, NEL
			}
			if !utf8.Valid(s) {
				continue
			}
			var got string
			b := appendString(nil, s)
			if err := json.Unmarshal(b, &got); err != nil || got != string(s) {
				t.Fatalf("%q: %s: %v", s, b, err)
			}
			for _, x := range b {
				if x < 0x20 || x == 0x7f || (x == 0xC2 && c == 0xC2) {
					t.Fatalf("%q encoded with a raw control byte: %q", s, b)
				}
			}
		}
	}
}

// FuzzFrameRecord: whatever a server writes, the frame records of its
// frames decode to the exact lines ("json", "text" or "b64" alike), and no
// record carries a raw control byte.
func FuzzFrameRecord(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		"{\"a\":\"\u0085\"}\n{\"a\":\"\x7f\"}\n{\"a\":\"\xff\"}\n",
		"\xef\xbb\xbf{\"a\":1}\r\n{\t\"a\" : 1 }\n [1] \n[1,2]\n",
		"{\n\"a\":\n1}\n{\"a\":\"\\u0000\\\"\"}\n\"str\"\n123\n",
		"{\"deep\":" + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fr := range wire.FramesOf(data, wire.Options{MaxFrame: 4096}) {
			ev := eventlog.Event{Seq: 1, At: 1, Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: fr}
			rec := appendEvent(nil, &ev)
			for _, c := range rec[:len(rec)-1] {
				if c < 0x20 || c == 0x7f {
					t.Fatalf("raw control byte %#x in %q", c, rec)
				}
			}
			var raw rawRecord
			if err := json.Unmarshal(rec, &raw); err != nil {
				t.Fatalf("%q: %v", rec, err)
			}
			if len(raw.Lines) != len(fr.Lines) {
				t.Fatalf("%d lines back, want %d", len(raw.Lines), len(fr.Lines))
			}
			for i := range raw.Lines {
				l, err := raw.Lines[i].line()
				if err != nil {
					t.Fatal(err)
				}
				if err := diffLine(&fr.Lines[i], &l); err != nil {
					t.Fatalf("%q: %v", rec, err)
				}
			}
		}
	})
}

// TestDrainAcrossDrops drives the recorder's drain by hand over logs whose
// retention dropped events before, inside and across its batches, and
// between two drains: every retained event is written once, in order, and
// every dropped one is counted in a "dropped" record.
func TestDrainAcrossDrops(t *testing.T) {
	for _, tc := range []struct {
		name        string
		retention   int64
		before      int // events appended before the first drain
		after       int // events appended between the first and second drain
		wantDropped bool
	}{
		{"none", 0, 3 * batch, batch + 7, false},
		{"before-start", 20 << 10, 3 * batch, 0, true},
		{"less-than-a-batch", 40 << 10, 400, 0, true},
		{"between-drains", 20 << 10, 10, 5 * batch, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := eventlog.NewLog(tc.retention)
			add := func(n int) {
				for range n {
					log.Append(eventlog.Event{Type: eventlog.EventNote, Note: strings.Repeat("n", 100)})
				}
			}
			path := filepath.Join(t.TempDir(), "c.jsonl")
			r, err := prepare(path, log, Header{}, false)
			if err != nil {
				t.Fatal(err)
			}
			add(tc.before)
			r.drain()
			add(tc.after)
			r.drain()
			r.file.Close()
			c, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			first, next := log.Bounds()
			if (c.Dropped > 0) != tc.wantDropped {
				t.Errorf("dropped %d", c.Dropped)
			}
			if written, dropped := r.Stats(); c.Records != written || c.Dropped != dropped || written+dropped != next-1 {
				t.Errorf("stats %d written, %d dropped; read back %d and %d; the log had %d", written, dropped, c.Records, c.Dropped, next-1)
			}
			if uint64(c.Log.Len()) < next-first {
				t.Errorf("%d events read back; the log still holds %d", c.Log.Len(), next-first)
			}
		})
	}
}

// TestRoundTripTracker: the tracker rebuilt by Open stands where the live
// one stood — a request that timed out (the live Tick's finding is in the
// capture) and was answered late, one cancelled and answered after the
// cancel (late-response, recomputed), one lost at the exit.
func TestRoundTripTracker(t *testing.T) {
	const timeout = 10 * time.Millisecond
	s := newScript(0, 0)
	s.tr = eventlog.NewTracker(eventlog.TrackerOptions{Timeout: timeout})
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
	s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}\n")
	s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n")
	// The live session's clock reaches the deadline a while later:
	// request 1 (not 2, cancelled) times out; the session logs the timeout
	// and what it settles, at that time.
	time.Sleep(3 * timeout)
	s.fact(eventlog.Event{Type: eventlog.EventTimeout})
	s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"))
	s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n")
	s.process(eventlog.ProcessEvent{State: eventlog.StateExited, ExitCode: 0})
	// The end is logged a moment after the exit, as the session does.
	s.fact(eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{Exited: true}})

	c, err := Open(record(t, s.log, Header{TimeoutNs: int64(timeout)}))
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, s.log, c.Log)
	want, got := fmt.Sprintf("%+v", s.tr.Requests()), fmt.Sprintf("%+v", c.Tracker.Requests())
	if want != got {
		t.Errorf("requests read back:\n%s\nwant\n%s", got, want)
	}
	codes := ""
	first, end := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, end) {
		if ev.Type == eventlog.EventFrame {
			for _, f := range ev.Frame.Findings {
				codes += f.Code + " "
			}
		} else if ev.Type == eventlog.EventFinding {
			codes += ev.Finding.Code + " "
		}
	}
	for _, code := range []string{"request-timeout", "late-response"} {
		if !strings.Contains(codes, code) {
			t.Errorf("no %s in %q: the test lost its point", code, codes)
		}
	}
}

// TestRoundTripRestart: after a restart the live tracker starts afresh
// (Restarted, not Exited): an id used before the restart may be used again
// without reused-id. The rebuilt tracker must tell a restart's exit from a
// plain one, or it would flag what the live session did not.
func TestRoundTripRestart(t *testing.T) {
	s := newScript(0, 0)
	s.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 10})
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
	s.process(eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 10, ExitCode: -1, Signal: "SIGTERM", Step: eventlog.StepSIGTERM})
	s.fact(eventlog.Event{Type: eventlog.EventRestart, Restart: &eventlog.RestartEvent{N: 1, Command: []string{"srv"}},
		Note: "restart #1: starting srv again"})
	s.process(eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 11})
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
	s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n") // reused now
	s.process(eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 11})
	// As the session does: the end, after the exit.
	s.fact(eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{Exited: true}})

	c, err := Open(record(t, s.log, Header{}))
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, s.log, c.Log)
	if want, got := fmt.Sprintf("%+v", s.tr.Requests()), fmt.Sprintf("%+v", c.Tracker.Requests()); want != got {
		t.Errorf("requests read back:\n%s\nwant\n%s", got, want)
	}
}

// TestRoundTripEra: the era the live session pinned (an era record) is
// the era the rebuilt tracker judges by, so era-dependent findings agree —
// here a server request in the modern era, and a reused id whose severity
// depends on the era.
func TestRoundTripEra(t *testing.T) {
	for _, era := range []eventlog.Era{eventlog.EraModern, eventlog.EraLegacy} {
		s := newScript(0, 0)
		// The words say nothing the fold reads: only the typed decision.
		s.fact(eventlog.Event{Type: eventlog.EventEra, Era: &eventlog.EraDecision{Era: era, Version: "v-" + era.String()}, Note: "decided"})
		s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
		s.serve(t, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
		s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
		c, err := Open(record(t, s.log, Header{}))
		if err != nil {
			t.Fatal(err)
		}
		sameEvents(t, s.log, c.Log)
		if hs := c.Tracker.Handshake(); hs.Era != era || hs.ProtocolVersion != "v-"+era.String() || !hs.EraPinned {
			t.Errorf("handshake %+v, want era %v pinned, version v-%v", hs, era, era)
		}
	}
}

// TestCreateMakesPrivate: a capture replacing a world-readable file becomes
// 0600 too, and starts afresh.
func TestCreateMakesPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(path, []byte("old contents that are longer than a header would be, surely, yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newScript(0, 0)
	s.note("new")
	r, err := Create(path, s.log, Header{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	c, err := Open(path)
	if err != nil || c.Log.Len() != 1 {
		t.Fatalf("%v, %+v", err, c)
	}
}

// FuzzOpen: whatever follows a valid header, reading a capture never
// panics; it yields events or an error.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"type":"frame","seq":1,"at":5,"dir":"s2c","lines":[{"json":{"a":1},"term":"lf","len":7}]}` + "\n"))
	f.Add([]byte(`{"type":"frame","seq":1,"at":5,"dir":"c2s","lines":[{"text":"abc","term":"none","len":9,"truncated":true}]}` + "\n"))
	f.Add([]byte(`{"type":"stderr","seq":2,"at":6,"b64":"/w==","term":"crlf","len":1}` + "\n" + `{"type":"dropped","fromSeq":3,"count":4}` + "\n"))
	f.Add([]byte(`{"type":"finding","seq":9,"at":1,"code":"x","severity":"error","message":"m","frameSeq":4,"dir":"c2s"}` + "\n"))
	f.Add([]byte(`{"type":"process","seq":1,"at":1,"state":"exited","step":"sigkill","pid":1,"exitCode":-1,"signal":"SIGKILL"}` + "\n" + `{"type":"note","seq":2,"at":2,"note":"restart #1"}` + "\n"))
	const header = `{"type":"header","format":"linesman-capture","version":1,"start":"2026-01-02T03:04:05Z","maxFrame":1024}` + "\n"
	f.Fuzz(func(t *testing.T, body []byte) {
		rd := newReader(bytes.NewReader(append([]byte(header), body...)), "fuzz", OpenOptions{})
		if err := rd.poll(); err != nil {
			return
		}
		if err := rd.end(); err != nil {
			return
		}
		first, next := rd.c.Log.Bounds()
		for _, ev := range rd.c.Log.Range(first, next) {
			if ev.Type == eventlog.EventFrame && (ev.Frame == nil || len(ev.Frame.Lines) == 0) {
				t.Fatalf("a frame event without lines: %+v", ev)
			}
		}
	})
}

// TestCreateLimited: a capture with a size limit holds whole records up to
// it, then a note that it stops there; recording stops with ErrLimit, and
// the file reads back.
func TestCreateLimited(t *testing.T) {
	const limit = 20 << 10
	log := eventlog.NewLog(0)
	path := filepath.Join(t.TempDir(), "c.jsonl")
	r, err := CreateLimited(path, log, Header{}, limit)
	if err != nil {
		t.Fatal(err)
	}
	for range 500 {
		log.Append(eventlog.Event{Type: eventlog.EventNote, Note: strings.Repeat("n", 100)})
	}
	err = r.Close()
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("Close: %v, want ErrLimit", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > limit+1024 {
		t.Errorf("the capture holds %d bytes, past its limit of %d and the note", fi.Size(), limit)
	}
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, next := c.Log.Bounds()
	last, _ := c.Log.Get(next - 1)
	if last.Type != eventlog.EventNote || !strings.Contains(last.Note, "reached its limit of 20480 bytes") {
		t.Errorf("last event %+v, want the note that the capture stops", last)
	}
	if n := c.Log.Len(); n < 100 || n >= 500 {
		t.Errorf("%d events read back, want the ones that fit", n)
	}
	// Unlimited, the same log is recorded whole.
	path2 := filepath.Join(t.TempDir(), "d.jsonl")
	r2, err := CreateLimited(path2, log, Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Close(); err != nil {
		t.Fatal(err)
	}
	if c2, err := Open(path2); err != nil || c2.Log.Len() != 500 {
		t.Errorf("unlimited: %v, %d events", err, c2.Log.Len())
	}
}

// TestReplayedCapturesAgree: every recorded conversation in testdata —
// captures of every format version, other tools' logs, transcripts —
// opened, recorded again and reopened gives the same projection: the
// second replay reads typed records where the first read older formats,
// and must come out the same (era, offer, process, findings, counts).
func TestReplayedCapturesAgree(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"testdata/*.capture", "testdata/interop/*.capture", "testdata/*.log", "testdata/*.jsonl", "testdata/*.txt"} {
		m, _ := filepath.Glob(pattern)
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d recordings found: %v", len(paths), paths)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			first, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			h := first.Header
			h.Format, h.Version = "", 0 // another tool's log is recorded as a capture
			second, err := Open(record(t, first.Log, h))
			if err != nil {
				t.Fatal(err)
			}
			var a, b bytes.Buffer
			if err := WriteFindings(&a, first.Log, first.Tracker, first.Header); err != nil {
				t.Fatal(err)
			}
			if err := WriteFindings(&b, second.Log, second.Tracker, first.Header); err != nil {
				t.Fatal(err)
			}
			if a.String() != b.String() {
				t.Errorf("the projection of %s changed on a second replay:\nfirst  %s\nsecond %s", path, a.String(), b.String())
			}
		})
	}
}

// TestCaptureEscapesBidiControls: a frame or a stderr line holding bidi
// controls (U+202E and friends) is written with them as \u escapes, so a
// capture shown with cat or opened in an editor is not reordered, and it
// reads back byte for byte.
func TestCaptureEscapesBidiControls(t *testing.T) {
	s := newScript(0, 0)
	frame := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"abc\u202edef\u2066x\u061c\u200e\"}}\n"
	s.serve(t, []byte(frame))
	s.stderr(t, []byte("log \u202egnp.exe\n"))
	path := record(t, s.log, Header{})
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, bidi := range []string{"\u202e", "\u2066", "\u061c", "\u200e"} {
		if bytes.Contains(raw, []byte(bidi)) {
			t.Errorf("the capture holds %U raw:\n%s", []rune(bidi)[0], raw)
		}
	}
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, s.log, c.Log)
}
