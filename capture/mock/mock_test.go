package mock

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

func TestRewriteID(t *testing.T) {
	for _, tc := range []struct{ raw, id, want string }{
		{`{"jsonrpc":"2.0","id":0,"result":{"v":"2.0"}}`, `"a"`, `{"jsonrpc":"2.0","id":"a","result":{"v":"2.0"}}`},
		{"{\n  \"result\": {\"id\": 5},\n  \"id\" :  7\n}\n", `9`, "{\n  \"result\": {\"id\": 5},\n  \"id\" :  9\n}\n"},
		{`not json`, `1`, `not json`},
	} {
		if got := string(rewrite([]byte(tc.raw), []byte(tc.id), "id")); got != tc.want {
			t.Errorf("rewrite(%q, %s) = %q; want %q", tc.raw, tc.id, got, tc.want)
		}
	}
	got := rewrite([]byte(`{"method":"notifications/progress","params":{"progressToken":"p1","progress":1}}`), []byte(`77`), "params", "progressToken")
	if string(got) != `{"method":"notifications/progress","params":{"progressToken":77,"progress":1}}` {
		t.Errorf("progress token: %s", got)
	}
}

func TestMatchLevels(t *testing.T) {
	req := func(s string) request { return parseRequest([]byte(s)) }
	s := &Script{}
	for i, text := range []string{
		`{"id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"progressToken":1}}}`,
		`{"id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}`,
		`{"id":3,"method":"tools/list","params":{"cursor":"c1"}}`,
	} {
		s.Cues = append(s.Cues, &cue{Seq: uint64(i + 1), Kind: wire.KindRequest, Method: req(text).Method, Req: req(text)})
	}
	for _, tc := range []struct {
		live  string
		seq   uint64
		level string
	}{
		{`{"id":9,"method":"tools/call","params":{"arguments":{"text":"b"},"name":"echo"}}`, 2, matchExact},
		{`{"id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"_meta":{"progressToken":"z"}}}`, 1, matchNoMeta},
		{`{"id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},"task":{}}}`, 1, matchStable},
		{`{"id":9,"method":"tools/list"}`, 3, matchStable},
	} {
		c, level := s.match(req(tc.live))
		if c == nil || c.Seq != tc.seq || level != tc.level {
			t.Errorf("%s: matched %v at %q; want frame %d at %q", tc.live, c, level, tc.seq, tc.level)
		}
	}
	if c, _ := s.match(req(`{"id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"zz"}}}`)); c != nil {
		t.Errorf("other arguments matched frame %d", c.Seq)
	}
}

// TestTiming: --timing recorded keeps the delay of an answer after its
// request, fast drops it.
func TestTiming(t *testing.T) {
	const delay = 300 * time.Millisecond
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	s := &Script{Cues: []*cue{{Seq: 1, Kind: wire.KindRequest, Method: "ping", Req: parseRequest([]byte(req)),
		Items: []item{{Kind: itemStdout, Answer: true, Delay: delay, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")}}}}}
	took := map[Timing]time.Duration{}
	for _, timing := range []Timing{TimingRecorded, TimingFast} {
		for _, c := range s.Cues {
			c.used = 0
		}
		var out bytes.Buffer
		start := time.Now()
		end := Play(s, eventlog.EraLegacy, Options{Timing: timing, Stdin: strings.NewReader(req + "\n"), Stdout: &out, Stderr: io.Discard})
		took[timing] = time.Since(start)
		if end != (Exit{}) || !strings.Contains(out.String(), `"result"`) {
			t.Errorf("timing %d: ended %+v, wrote %q", timing, end, out.String())
		}
	}
	if took[TimingRecorded] < delay || took[TimingFast] >= took[TimingRecorded] {
		t.Errorf("recorded took %v, fast %v; want recorded at least %v and fast sooner", took[TimingRecorded], took[TimingFast], delay)
	}
}
