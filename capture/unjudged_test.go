package capture

import (
	"bytes"
	"fmt"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// TestUnjudgedBytesAreFramedOnReading: the bytes a tap's scribe passed over
// (EventUnjudged pieces, a multi-line value spread across two of them, a
// line of invalid UTF-8) are recorded as they are, and reading the capture
// back frames and judges them as the live framer would have: the server's
// stream is whole again, in order, and a finding recorded after the gap
// still points at its frame.
func TestUnjudgedBytesAreFramedOnReading(t *testing.T) {
	log := eventlog.NewLog(0)
	msg := func(i int) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d}}`+"\n", i)
	}
	var stream []byte
	logFrame := func(b []byte) uint64 {
		stream = append(stream, b...)
		f := wire.FramesOf(b, wire.Options{})[0]
		return log.Append(eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: f})
	}
	logPiece := func(b []byte, last bool) {
		stream = append(stream, b...)
		log.Append(eventlog.Event{Type: eventlog.EventUnjudged, Unjudged: &eventlog.UnjudgedBytes{Dir: wire.ServerToClient, Bytes: b, Last: last}})
	}
	logFrame(msg(1))
	logPiece(append(msg(2), "{\n"...), false)
	log.Append(eventlog.Event{Type: eventlog.EventNote, Note: "between the pieces"})
	logPiece(append([]byte(`"jsonrpc":"2.0","method":"x"}`+"\n\xff\xfe\n"), msg(3)...), true)
	after := logFrame(msg(4))
	lf := eventlog.LoggedFinding{Finding: wire.NewFinding("blank-line", "pointing at the frame after the gap"), FrameSeq: after}
	log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &lf})

	c, err := Open(record(t, log, Header{}))
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	var frames []*wire.Frame
	var last uint64
	first, next := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, next) {
		switch {
		case ev.Type == eventlog.EventFrame:
			got = append(got, ev.Frame.Raw()...)
			frames = append(frames, ev.Frame)
			last = ev.Seq
		case ev.Type == eventlog.EventFinding && ev.Finding.Code == "blank-line":
			if ev.Finding.FrameSeq != last || last == 0 {
				t.Errorf("the finding after the gap points at seq %d, want %d (the last frame)", ev.Finding.FrameSeq, last)
			}
		}
	}
	if !bytes.Equal(got, stream) {
		t.Fatalf("the frames read back hold\n%q\nwant the stream\n%q", got, stream)
	}
	want := wire.FramesOf(stream, wire.Options{})
	if len(frames) != len(want) {
		t.Fatalf("%d frames read back, want the %d a framer cuts from the stream", len(frames), len(want))
	}
	for i := range want {
		if frames[i].Msg.Kind != want[i].Msg.Kind || len(frames[i].Lines) != len(want[i].Lines) {
			t.Errorf("frame %d: %v of %d lines, want %v of %d", i, frames[i].Msg.Kind, len(frames[i].Lines), want[i].Msg.Kind, len(want[i].Lines))
		}
	}
	if !frames[2].Has("multi-line-frame") || !frames[3].Has("invalid-utf8") {
		t.Errorf("the gap's frames are not judged: %v, %v", frames[2].Findings, frames[3].Findings)
	}
}
