package capture

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"linesman/session"
	"linesman/wire"
)

// benchStream is a realistic server stream: mostly short results and
// notifications, some ~1 KiB results, a few 16 KiB tools/list answers.
func benchStream(frames int) []byte {
	var b bytes.Buffer
	for i := range frames {
		switch {
		case i%100 == 99:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"tools":[`, i)
			for j := range 64 {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"name":"tool_%d","description":"does thing number %d, carefully","inputSchema":{"type":"object"}}`, j, j)
			}
			b.WriteString("]}}\n")
		case i%10 == 9:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`+"\n", i, bytes.Repeat([]byte("lorem ipsum "), 80))
		case i%2 == 0:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"progress":%d,"total":100}}`+"\n", i, i%100)
		default:
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"ok %d"}],"isError":false}}`+"\n", i, i)
		}
	}
	return b.Bytes()
}

// pump runs stream through a Framer and the tracker into a fresh log, as a
// session's stdout reader does, with a Recorder writing the log when path is
// set; it returns once the capture holds every frame (Close drains).
func pump(tb testing.TB, stream []byte, path string) int {
	log := session.NewLog(0)
	tr := session.NewTracker(session.TrackerOptions{})
	var rec *Recorder
	if path != "" {
		var err error
		if rec, err = Create(path, log, Header{Command: []string{"bench"}}); err != nil {
			tb.Fatal(err)
		}
	}
	fr := wire.NewFramer(bytes.NewReader(stream), wire.Options{})
	n := 0
	for {
		f, err := fr.Next()
		if err != nil {
			break
		}
		log.AppendWith(func(seq uint64, at time.Duration) session.Event {
			tr.Frame(seq, wire.ServerToClient, f, at)
			return session.Event{Type: session.EventFrame, Dir: wire.ServerToClient, Frame: f}
		})
		n++
	}
	if rec != nil {
		if err := rec.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return n
}

// BenchmarkCapture measures frames/s through a log (framing, tracker,
// append) with capture off and on, alternating in the same run so both see
// the same machine, and reports the overhead of capture as a percentage.
func BenchmarkCapture(b *testing.B) {
	stream := benchStream(20000)
	dir := b.TempDir()
	var off, on time.Duration
	frames := 0
	b.SetBytes(int64(2 * len(stream)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		frames = pump(b, stream, "")
		t1 := time.Now()
		pump(b, stream, filepath.Join(dir, "bench.jsonl"))
		on += time.Since(t1)
		off += t1.Sub(t0)
	}
	b.ReportMetric(float64(frames*b.N)/off.Seconds(), "frames/s-off")
	b.ReportMetric(float64(frames*b.N)/on.Seconds(), "frames/s-on")
	b.ReportMetric(100*(on.Seconds()/off.Seconds()-1), "%overhead")
}

// BenchmarkEncodeFrame measures the hand-built frame record alone.
func BenchmarkEncodeFrame(b *testing.B) {
	frames := wire.FramesOf(benchStream(100), wire.Options{})
	evs := make([]session.Event, len(frames))
	size := 0
	for i, f := range frames {
		evs[i] = session.Event{Seq: uint64(i + 1), At: time.Duration(i) * time.Millisecond, Type: session.EventFrame, Dir: wire.ServerToClient, Frame: f}
		size += len(f.Raw())
	}
	var buf []byte
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range evs {
			buf = appendEvent(buf[:0], &evs[j])
		}
	}
}
