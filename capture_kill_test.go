package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/wire"
)

// killFramePad makes each flooded frame big enough (about 40 KiB) that a
// SIGKILL often lands in the middle of writing a record.
const killFramePad = 40 << 10

func floodFrame(i int) string {
	return fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"i\":%d,\"pad\":\"%s\"}}\n",
		i, strings.Repeat(string(rune('a'+i%26)), killFramePad+i%1000))
}

func init() {
	// capture-recorder is a recording linesman in miniature: a real
	// separate process that logs a flood of server frames into a session
	// log and records it to $CAPTURE_FILE with capture.Recorder, the code
	// that --capture runs, until it is killed. It says "recording" on
	// stdout once the first frames are on disk.
	registerFake("capture-recorder", func() {
		log := session.NewLog(0)
		tr := session.NewTracker(session.TrackerOptions{})
		rec, err := capture.Create(os.Getenv("CAPTURE_FILE"), log, capture.Header{Command: []string{"flood"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_ = rec // never closed: the test kills this process
		said := false
		for i := 1; ; i++ {
			for _, f := range wire.FramesOf([]byte(floodFrame(i)), wire.Options{}) {
				log.AppendWith(func(seq uint64, at time.Duration) session.Event {
					tr.Frame(seq, wire.ServerToClient, f, at)
					return session.Event{Type: session.EventFrame, Dir: wire.ServerToClient, Frame: f}
				})
			}
			if written, _ := rec.Stats(); written >= 100 && !said {
				fmt.Println("recording")
				said = true
			}
		}
	})
}

// TestCaptureSurvivesSIGKILL kills a recording process with SIGKILL in the
// middle of a flood and opens its capture: every record before the torn one
// is there, in order and byte for byte, and the torn one (if the kill cut
// one) is reported and skipped.
func TestCaptureSurvivesSIGKILL(t *testing.T) {
	for round := range 3 {
		path := filepath.Join(t.TempDir(), "killed.jsonl")
		cmd := exec.Command(testBinary, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=capture-recorder", "CAPTURE_FILE="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || line != "recording\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the recorder said %q, %v", line, err)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("the recorder ended with %v, not by SIGKILL", err)
		}

		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := capture.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		complete := strings.Count(string(raw), "\n") - 1 // less the header
		if int(c.Records) != complete || c.Log.Len() != complete || complete < 100 {
			t.Fatalf("%d records read back, %d events; the file has %d complete records (want >= 100)", c.Records, c.Log.Len(), complete)
		}
		if torn := len(raw) - (strings.LastIndexByte(string(raw), '\n') + 1); c.Torn != torn {
			t.Errorf("torn %d, want %d", c.Torn, torn)
		}
		i := 1
		for _, ev := range c.Log.Range(1, uint64(complete)+1) {
			if ev.Seq != uint64(i) || ev.Type != session.EventFrame || string(ev.Frame.Raw()) != floodFrame(i) {
				t.Fatalf("event %d: seq %d, %v, %.60q", i, ev.Seq, ev.Type, ev.Frame.Raw())
			}
			i++
		}
		t.Logf("round %d: %d records intact, torn last record: %d bytes", round, complete, c.Torn)
	}
}
