package session

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// teeBuffer is a StdoutTee that keeps what it is given.
type teeBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *teeBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *teeBuffer) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// TestInletAndTeesAreByteExact: bytes written to the Inlet in arbitrary
// pieces reach the server unchanged (cat sends them back), the tee passes
// the server's stdout on unchanged, both directions are logged whole, and
// each client frame is logged before the server's echo of it (the scribe
// runs behind the wire, but keeps the wire's causal order).
func TestInletAndTeesAreByteExact(t *testing.T) {
	log := eventlog.NewLog(0)
	tee := &teeBuffer{}
	s, err := Start(Config{Command: []string{"cat"}, Log: log, Observe: true, NoHandshake: true, StdoutTee: tee})
	if err != nil {
		t.Fatal(err)
	}
	input := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n" +
		"not json \xff\xfe\x00 at all\n" +
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("y", 300<<10) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n" +
		"a last line without a newline")
	in := s.Inlet()
	for rest, n := input, 1; len(rest) > 0; n = n*3%7919 + 1 { // uneven pieces
		k := min(len(rest), n)
		if _, err := in.Write(rest[:k]); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
	in.Close()
	waitClosed(t, s.Done(), "the session's end")

	if got := tee.bytes(); !bytes.Equal(got, input) {
		t.Errorf("the tee passed on %d bytes, want the %d written", len(got), len(input))
	}
	var c2s, s2c []byte
	c2sSeq := map[string]uint64{}
	first, next := log.Bounds()
	for _, ev := range log.Range(first, next) {
		if ev.Type != eventlog.EventFrame {
			continue
		}
		raw := ev.Frame.Raw()
		if ev.Dir == wire.ClientToServer {
			c2s = append(c2s, raw...)
			c2sSeq[string(raw)] = ev.Seq
			continue
		}
		s2c = append(s2c, raw...)
		if seq, ok := c2sSeq[string(raw)]; !ok || seq > ev.Seq {
			t.Errorf("server frame #%d (%.40q) logged before the client frame it echoes", ev.Seq, raw)
		}
	}
	if !bytes.Equal(c2s, input) || !bytes.Equal(s2c, input) {
		t.Errorf("logged %d bytes to the server and %d back, want %d each way", len(c2s), len(s2c), len(input))
	}
}

// TestLentReadsAreLoggedIntact: the stdout forwarder lends its large reads
// to the scribe queue rather than copying them, and reads on into other
// buffers of the same pool; the scribe's framer cuts its frames out of
// those buffers, which then never go back to the pool (the few it copies
// out of do): what the log holds of a flood of distinct frames, read while
// the scribe frames behind the wire, is byte for byte what the server
// wrote, and so is what the host got.
func TestLentReadsAreLoggedIntact(t *testing.T) {
	log := eventlog.NewLog(0)
	tee := &teeBuffer{}
	s, err := Start(Config{Command: []string{"cat"}, Log: log, Observe: true, NoHandshake: true, StdoutTee: tee})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	var input []byte
	for i := 0; len(input) < 8<<20; i++ {
		input = fmt.Appendf(input, `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d,"data":"%s"}}`+"\n", i, strings.Repeat(string(rune('a'+i%26)), 200+i%700))
	}
	in := s.Inlet()
	writeInPieces(t, in, input, 64<<10)
	in.Close()
	waitClosed(t, s.Done(), "the session's end")
	if got := tee.bytes(); !bytes.Equal(got, input) {
		t.Errorf("the host got %d bytes, not the %d the server wrote", len(got), len(input))
	}
	var s2c []byte
	frames := 0
	first, next := log.Bounds()
	for _, ev := range log.Range(first, next) {
		if ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient {
			s2c = append(s2c, ev.Frame.Raw()...)
			frames++
		}
	}
	if !bytes.Equal(s2c, input) {
		i := 0
		for i < min(len(s2c), len(input)) && s2c[i] == input[i] {
			i++
		}
		t.Errorf("the log holds %d bytes in %d frames from the server, not the %d it wrote (they differ from byte %d)", len(s2c), frames, len(input), i)
	}
}

// TestScribeFallingBehindNeverHoldsTheWire: with both scribes held (the
// machine too busy to run them), every byte still crosses the tap both
// ways; once they run, what fitted the budget is logged whole and in
// order, the rest is logged unjudged after it, byte for byte (so that a
// capture holds it all), and notes say exactly how many bytes of each
// direction the scribes passed over.
func TestScribeFallingBehindNeverHoldsTheWire(t *testing.T) {
	log := eventlog.NewLog(0)
	tee := &teeBuffer{}
	hold := make(chan struct{})
	const budget = 64 << 10
	s, err := Start(Config{Command: []string{"cat"}, Log: log, Observe: true, NoHandshake: true,
		StdoutTee: tee, ScribeBudget: budget, scribeHold: hold})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	var input []byte
	for i := range 1024 {
		input = fmt.Appendf(input, `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d,"data":"%s"}}`+"\n", i, strings.Repeat("z", 900))
	}
	in := s.Inlet()
	writeInPieces(t, in, input, 4000) // lines cut anywhere
	// The scribes have not read a byte, and the host has it all back.
	deadline := time.Now().Add(testWait)
	for len(tee.bytes()) < len(input) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := tee.bytes(); !bytes.Equal(got, input) {
		t.Fatalf("with the scribes held, the host got %d bytes back, want the %d sent", len(got), len(input))
	}
	close(hold)
	in.Close()
	waitClosed(t, s.Done(), "the session's end")

	gapRE := regexp.MustCompile(`tap fell behind: (\d+) bytes \(\d+ lines\) from the (host|server)`)
	judged := map[wire.Dir]int64{}
	gaps := map[wire.Dir]int64{}
	lines := map[wire.Dir][]byte{}
	stream := map[wire.Dir][]byte{} // frames and unjudged bytes, in log order
	last := map[wire.Dir]bool{}
	first, next := log.Bounds()
	for _, ev := range log.Range(first, next) {
		switch {
		case ev.Type == eventlog.EventFrame:
			judged[ev.Dir] += ev.Frame.Size()
			lines[ev.Dir] = append(lines[ev.Dir], ev.Frame.Raw()...)
			stream[ev.Dir] = append(stream[ev.Dir], ev.Frame.Raw()...)
		case ev.Type == eventlog.EventUnjudged:
			stream[ev.Unjudged.Dir] = append(stream[ev.Unjudged.Dir], ev.Unjudged.Bytes...)
			last[ev.Unjudged.Dir] = ev.Unjudged.Last
		case ev.Type == eventlog.EventNote && gapRE.MatchString(ev.Note):
			m := gapRE.FindStringSubmatch(ev.Note)
			n, _ := strconv.ParseInt(m[1], 10, 64)
			d := wire.ClientToServer
			if m[2] == "server" {
				d = wire.ServerToClient
			}
			gaps[d] += n
		}
	}
	for _, d := range []wire.Dir{wire.ClientToServer, wire.ServerToClient} {
		if gaps[d] == 0 {
			t.Errorf("%s: no note of what the scribe did not see", d)
		}
		if judged[d]+gaps[d] != int64(len(input)) {
			t.Errorf("%s: %d bytes judged + %d noted unjudged, want the %d passed on", d, judged[d], gaps[d], len(input))
		}
		// The budget, and the read that crossed it (64 KiB at most).
		if judged[d] == 0 || judged[d] > budget+64<<10 || !bytes.HasPrefix(input, lines[d]) {
			t.Errorf("%s: judged %d bytes, not the whole lines at the start that fit the budget (%d)", d, judged[d], budget)
		}
		if !bytes.Equal(stream[d], input) {
			t.Errorf("%s: the frames and unjudged bytes logged are %d bytes, not the %d passed on", d, len(stream[d]), len(input))
		}
		if !last[d] {
			t.Errorf("%s: the last unjudged piece does not end the gap", d)
		}
	}
}

// writeInPieces writes input to in in writes of at most size bytes (lines
// cut anywhere), as a host's pipe may hand them over.
func writeInPieces(t *testing.T, in *Inlet, input []byte, size int) {
	t.Helper()
	for rest := input; len(rest) > 0; {
		k := min(len(rest), size)
		if _, err := in.Write(rest[:k]); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
}

// TestScribeChunksGoToTheFramer: the scribe's reader hands the framer the
// queued chunks themselves (a lent buffer's bytes are that buffer), except
// a pooled buffer less than half full, whose bytes are copied out, in
// order, and then the end.
func TestScribeChunksGoToTheFramer(t *testing.T) {
	q := newScribeQueue(1<<20, nil)
	big := chunkPool.Get().(*[chunkSize]byte)
	n := copy(big[:], bytes.Repeat([]byte("a\n"), chunkSize/2-8))
	_, lent := q.lend(wire.ServerToClient, big, n)
	if lent == nil {
		t.Fatal("a full read was not lent")
	}
	lent.release() // the forwarder passed it on
	q.put(wire.ServerToClient, []byte("small\n"))
	half := bytes.Repeat([]byte("h"), chunkSize/4)
	q.put(wire.ServerToClient, half) // copied into a pooled buffer
	q.end(wire.ServerToClient, false)
	r := scribeReader{q, wire.ServerToClient}

	b, err := r.ReadChunk()
	if err != nil || len(b) != n || &b[0] != &big[0] || cap(b) != n {
		t.Fatalf("the lent read: %d bytes (%v), not the lent buffer's %d", len(b), err, n)
	}
	if b, err = r.ReadChunk(); err != nil || string(b) != "small\n" {
		t.Fatalf("the small chunk: %q, %v", b, err)
	}
	if b, err = r.ReadChunk(); err != nil || !bytes.Equal(b, half) || cap(b) >= chunkSize {
		t.Fatalf("the quarter-full chunk: %d bytes (cap %d), %v; want a copy of its %d", len(b), cap(b), err, len(half))
	}
	if _, err = r.ReadChunk(); err != io.EOF {
		t.Fatalf("after the end: %v, want EOF", err)
	}
}
