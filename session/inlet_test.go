package session

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"linesman/wire"
)

// causalTee is a StdoutTee that checks, at every write, that each line it
// completes was logged as a server frame before its last byte was passed
// on: the order a host's answer is judged by.
type causalTee struct {
	t   *testing.T
	log *Log

	mu    sync.Mutex
	buf   bytes.Buffer
	lines int
}

func (c *causalTee) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	c.lines += bytes.Count(p, []byte("\n"))
	logged := 0
	first, next := c.log.Bounds()
	for _, ev := range c.log.Range(first, next) {
		if ev.Type == EventFrame && ev.Dir == wire.ServerToClient {
			logged += len(ev.Frame.Lines)
		}
	}
	if logged < c.lines {
		c.t.Errorf("a line reached the host before its frame was logged (%d lines passed on, %d logged)", c.lines, logged)
	}
	return len(p), nil
}

func (c *causalTee) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// TestInletAndTeesAreByteExact: bytes written to the Inlet in arbitrary
// pieces reach the server unchanged (cat sends them back), the tee passes
// the server's stdout on unchanged, both directions are logged whole, and
// each client frame is logged before the server could answer it.
func TestInletAndTeesAreByteExact(t *testing.T) {
	log := NewLog(0)
	tee := &causalTee{t: t, log: log}
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
		if ev.Type != EventFrame {
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
