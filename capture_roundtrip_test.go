package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/wire"
)

// roundTripBig is the size of the one-line reply of capture-roundtrip.
const roundTripBig = 20 << 20

func init() {
	// capture-roundtrip answers the first line it reads with everything a
	// capture must keep byte for byte: escape sequences on stderr, invalid
	// UTF-8, CRLF, a pretty-printed (multi-line) reply, an unterminated
	// stderr line and a 20 MiB frame; then it waits for stdin to close.
	registerFake("capture-roundtrip", func() {
		in := bufio.NewReader(os.Stdin)
		if _, err := in.ReadString('\n'); err != nil {
			os.Exit(1)
		}
		out := bufio.NewWriter(os.Stdout)
		os.Stderr.WriteString("\x1b[1;31mERROR\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \xc2\x9b\xff\r\n")
		out.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"caf\xe9 \xed\xa0\x80\"}}\n")
		out.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\r\n")
		out.WriteString("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\n    \"content\": []\n  }\n}\n")
		out.WriteString("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"blob\":\"")
		for i := 0; i < roundTripBig/64; i++ {
			out.WriteString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
		}
		out.WriteString("\"}}\n")
		out.Flush()
		os.Stderr.WriteString("bye, no newline")
		io.Copy(io.Discard, in)
	})
}

// TestCaptureRoundTripLiveSession records a real session (a child process
// over real pipes, through --capture's startCapture) with invalid UTF-8,
// CRLF, multi-line frames, stderr escape sequences and a 20 MiB frame, then
// opens the capture: the event log read back is the live one — types,
// order, Seqs, times, directions, raw bytes, classification and findings.
func TestCaptureRoundTripLiveSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.jsonl")
	flags := commonFlags{era: "legacy", timeout: 30 * time.Second, capture: path, maxFrame: 32 << 20,
		stdinWait: 5 * time.Second, sigtermWait: 2 * time.Second, env: envFlag{"LINESMAN_FAKE_SERVER=capture-roundtrip"}}
	command := []string{testBinary, "-test.run=^$"}
	cfg := sessionConfig(&flags, command)
	cfg.NoHandshake = true
	s, err := session.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := startCapture(&flags, s.Log(), command)
	if err != nil {
		s.Kill()
		<-s.Done()
		t.Fatal(err)
	}
	sent := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"s\":\"\xff\"}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}\r\n" +
		"{\n\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/initialized\"\n}\n"
	if err := s.Send([]byte(sent)); err != nil {
		t.Fatal(err)
	}
	// Wait for the big frame, then shut the server down politely.
	sig, cancel := s.Log().Subscribe()
	deadline := time.After(2 * time.Minute)
	for from := uint64(1); ; {
		_, next := s.Log().Bounds()
		big := false
		for _, ev := range s.Log().Range(from, next) {
			big = big || (ev.Type == session.EventFrame && ev.Frame.Size() > roundTripBig)
		}
		from = next
		if big {
			break
		}
		select {
		case <-sig:
		case <-deadline:
			t.Fatal("no 20 MiB frame after two minutes")
		}
	}
	cancel()
	s.Shutdown()
	<-s.Done()
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	live := s.Log()
	if c.Torn != 0 || c.Dropped != 0 {
		t.Errorf("torn %d, dropped %d", c.Torn, c.Dropped)
	}
	if !c.Log.Start().Equal(live.Start()) {
		t.Errorf("start %v, want %v", c.Log.Start(), live.Start())
	}
	_, ln := live.Bounds()
	_, cn := c.Log.Bounds()
	if ln != cn {
		t.Fatalf("%d events read back, want %d", cn-1, ln-1)
	}
	var raw [3][]byte // by direction, then stderr
	kinds := map[string]bool{}
	for seq := uint64(1); seq < ln; seq++ {
		w, _ := live.Get(seq)
		g, _ := c.Log.Get(seq)
		if err := sameEvent(&w, &g); err != nil {
			t.Fatalf("event %d (%v): %v", seq, w.Type, err)
		}
		switch w.Type {
		case session.EventFrame:
			raw[w.Dir] = append(raw[w.Dir], g.Frame.Raw()...)
			for _, f := range g.Frame.Findings {
				kinds[f.Code] = true
			}
		case session.EventStderr:
			raw[0] = append(raw[0], g.Stderr.Content...)
			raw[0] = append(raw[0], g.Stderr.Term.Bytes()...)
		case session.EventFinding:
			kinds[g.Finding.Code] = true
		}
	}
	if string(raw[wire.ClientToServer]) != sent {
		t.Errorf("client bytes: %q, want %q", raw[wire.ClientToServer], sent)
	}
	if n := len(raw[wire.ServerToClient]); n < roundTripBig || !bytes.HasSuffix(raw[wire.ServerToClient], []byte("cdef\"}}\n")) {
		t.Errorf("server bytes: %d, ending %q", n, raw[wire.ServerToClient][max(0, n-20):])
	}
	if want := "\x1b[1;31mERROR\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \xc2\x9b\xff\r\nbye, no newline"; !strings.Contains(string(raw[0]), want) {
		t.Errorf("stderr bytes: %q", raw[0])
	}
	for _, code := range []string{"invalid-utf8", "crlf-line-ending", "multi-line-frame", "stderr-escape-sequences"} {
		if !kinds[code] {
			t.Errorf("no %s finding in the session; the test lost its point: %v", code, kinds)
		}
	}
}

// sameEvent compares two log events field by field, payloads included.
func sameEvent(w, g *session.Event) error {
	if w.Seq != g.Seq || w.Type != g.Type || w.At != g.At || !w.Wall.Equal(g.Wall) || w.Dir != g.Dir || w.Note != g.Note {
		return fmt.Errorf("got %d %v at %v %v %v %q, want %d %v at %v %v %v %q",
			g.Seq, g.Type, g.At, g.Wall, g.Dir, g.Note, w.Seq, w.Type, w.At, w.Wall, w.Dir, w.Note)
	}
	sameLine := func(a, b *wire.Line) error {
		if !bytes.Equal(a.Content, b.Content) || a.Term != b.Term || a.Length != b.Length || a.Truncated != b.Truncated {
			return fmt.Errorf("line %.60q %v %d %v, want %.60q %v %d %v", b.Content, b.Term, b.Length, b.Truncated, a.Content, a.Term, a.Length, a.Truncated)
		}
		return nil
	}
	switch w.Type {
	case session.EventFrame:
		if len(w.Frame.Lines) != len(g.Frame.Lines) {
			return fmt.Errorf("%d lines, want %d", len(g.Frame.Lines), len(w.Frame.Lines))
		}
		for i := range w.Frame.Lines {
			if err := sameLine(&w.Frame.Lines[i], &g.Frame.Lines[i]); err != nil {
				return err
			}
		}
		if w.Frame.Msg != g.Frame.Msg || fmt.Sprint(w.Frame.Findings) != fmt.Sprint(g.Frame.Findings) {
			return fmt.Errorf("frame %+v %v, want %+v %v", g.Frame.Msg, g.Frame.Findings, w.Frame.Msg, w.Frame.Findings)
		}
	case session.EventStderr:
		return sameLine(w.Stderr, g.Stderr)
	case session.EventProcess:
		if *w.Process != *g.Process {
			return fmt.Errorf("process %+v, want %+v", *g.Process, *w.Process)
		}
	case session.EventFinding:
		if *w.Finding != *g.Finding {
			return fmt.Errorf("finding %+v, want %+v", *g.Finding, *w.Finding)
		}
	}
	return nil
}
