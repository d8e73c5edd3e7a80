package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/session"
	"linesman/session/eventlog"
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
// set; it returns once the capture holds every frame (Close drains). With
// pipe, the stream arrives through an OS pipe written by another goroutine
// in 64 KiB writes, as a server's stdout does.
func pump(tb testing.TB, stream []byte, path string, perRecord, pipe bool) int {
	log := eventlog.NewLog(0)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	var rec *Recorder
	if path != "" {
		var err error
		if rec, err = create(path, log, Header{Command: []string{"bench"}}, perRecord); err != nil {
			tb.Fatal(err)
		}
	}
	var src io.Reader = bytes.NewReader(stream)
	if pipe {
		pr, pw, err := os.Pipe()
		if err != nil {
			tb.Fatal(err)
		}
		defer pr.Close()
		go func() {
			defer pw.Close()
			for b := stream; len(b) > 0; {
				n, err := pw.Write(b[:min(len(b), 64<<10)])
				if err != nil {
					return
				}
				b = b[n:]
			}
		}()
		src = pr
	}
	fr := wire.NewFramer(src, wire.Options{})
	n := 0
	for {
		f, err := fr.Next()
		if err != nil {
			break
		}
		log.AppendWith(func(seq uint64, at time.Duration) eventlog.Event {
			tr.Apply(&eventlog.Event{Type: eventlog.EventFrame, Seq: seq, Dir: wire.ServerToClient, Frame: f, At: at})
			return eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: f}
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
// append) with capture off and on, in pairs within the same run, and
// reports the overhead of capture: "%overhead" is the median over the pairs
// of the wall-clock ratio, less one (pairs alternate which pass goes first,
// and the median shrugs off a pass slowed by another process on a shared
// machine); "%cpu-overhead" is the same for the CPU time the process used,
// the worst case, when the recorder cannot run on a core of its own.
// "coalesced" is the Recorder as shipped (records already waiting go out in
// one write call); "per-record" makes one write call per record; "-pipe"
// feeds the stream through an OS pipe, as a live session reads it, where
// the other variants read it from memory (the worst case for the ratio).
func BenchmarkCapture(b *testing.B) {
	for _, mode := range []struct {
		name            string
		perRecord, pipe bool
	}{{"coalesced", false, false}, {"per-record", true, false}, {"coalesced-pipe", false, true}, {"per-record-pipe", true, true}} {
		b.Run(mode.name, func(b *testing.B) {
			stream := benchStream(5000)
			dir := b.TempDir()
			var off, on time.Duration
			var wall, cpu []float64
			frames := 0
			pass := func(capture bool) (time.Duration, time.Duration) {
				// A fresh file each time: truncating the last one would
				// charge the pass for freeing its pages.
				path := filepath.Join(dir, "bench.jsonl")
				os.Remove(path)
				// Each pass starts from a collected heap, so neither
				// pays for the other's garbage.
				runtime.GC()
				c0, t0 := cpuTime(), time.Now()
				if capture {
					pump(b, stream, path, mode.perRecord, mode.pipe)
				} else {
					frames = pump(b, stream, "", false, mode.pipe)
				}
				return time.Since(t0), cpuTime() - c0
			}
			b.SetBytes(int64(2 * len(stream)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var offWall, offCPU, onWall, onCPU time.Duration
				if i%2 == 0 {
					offWall, offCPU = pass(false)
					onWall, onCPU = pass(true)
				} else {
					onWall, onCPU = pass(true)
					offWall, offCPU = pass(false)
				}
				off += offWall
				on += onWall
				wall = append(wall, onWall.Seconds()/offWall.Seconds())
				cpu = append(cpu, onCPU.Seconds()/offCPU.Seconds())
			}
			b.ReportMetric(float64(frames*b.N)/off.Seconds(), "frames/s-off")
			b.ReportMetric(float64(frames*b.N)/on.Seconds(), "frames/s-on")
			b.ReportMetric(100*(median(wall)-1), "%overhead")
			b.ReportMetric(100*(median(cpu)-1), "%cpu-overhead")
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cpuTime is the user and system time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEncodeFrame measures the hand-built frame record alone.
func BenchmarkEncodeFrame(b *testing.B) {
	frames := wire.FramesOf(benchStream(100), wire.Options{})
	evs := make([]eventlog.Event, len(frames))
	size := 0
	for i, f := range frames {
		evs[i] = eventlog.Event{Seq: uint64(i + 1), At: time.Duration(i) * time.Millisecond, Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: f}
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

// BenchmarkOpen measures how fast a capture is read back into a log
// (decoding, rebuilding each frame with the framer, the tracker).
func BenchmarkOpen(b *testing.B) {
	stream := benchStream(5000)
	path := filepath.Join(b.TempDir(), "open.jsonl")
	frames := pump(b, stream, path, false, false)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Open(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(frames*b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkRecorder measures the recorder alone: a fresh Recorder writes a
// log that already holds the frames of benchStream(5000) to a new file and
// closes it (create, read, encode, write, close). It is the cost that
// BenchmarkCapture adds to a pass, without the pipeline around it, so a
// change to the recorder shows here even when a loaded machine blurs the
// ratio; "cpu-ns/frame" counts every thread of the process.
func BenchmarkRecorder(b *testing.B) {
	frames := wire.FramesOf(benchStream(5000), wire.Options{})
	log := eventlog.NewLog(0)
	for _, f := range frames {
		log.Append(eventlog.Event{Type: eventlog.EventFrame, Dir: wire.ServerToClient, Frame: f})
	}
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	var cpu time.Duration
	var size int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.Remove(path)
		b.StartTimer()
		c0 := cpuTime()
		r, err := Create(path, log, Header{Command: []string{"bench"}})
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Close(); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		if written, _ := r.Stats(); written != uint64(len(frames)) {
			b.Fatalf("wrote %d events of %d", written, len(frames))
		}
	}
	b.StopTimer()
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	b.SetBytes(size)
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(frames)), "cpu-ns/frame")
	b.ReportMetric(float64(b.N*len(frames))/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkCaptureLiveSession is the capture overhead as a user meets it:
// a real child floods its stdout with ~1 KiB JSON-RPC notifications through
// a real pipe, and the session reads, frames, tracks and logs them, once
// without and once with a Recorder on the log (as --capture does), in pairs
// within the same run. "%overhead" is the median over the pairs of the
// wall-clock ratio on/off, less one.
//
//	go test -run '^$' -bench CaptureLiveSession -benchtime 10x ./capture
func BenchmarkCaptureLiveSession(b *testing.B) {
	const frames = 100_000
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` +
		strings.Repeat("x", 940) + `"}}`
	command := []string{"sh", "-c", fmt.Sprintf("yes '%s' | head -n %d", line, frames)}
	dir := b.TempDir()
	pass := func(capture bool) time.Duration {
		path := filepath.Join(dir, "live.jsonl")
		os.Remove(path)
		runtime.GC()
		t0 := time.Now()
		s, err := session.Start(session.Config{Command: command})
		if err != nil {
			b.Fatal(err)
		}
		var rec *Recorder
		if capture {
			if rec, err = Create(path, s.Log(), Header{Command: command}); err != nil {
				b.Fatal(err)
			}
		}
		<-s.Done()
		if rec != nil {
			if err := rec.Close(); err != nil {
				b.Fatal(err)
			}
		}
		took := time.Since(t0)
		if info := s.Info(); info.BytesIn != int64(frames*(len(line)+1)) {
			b.Fatalf("read %d bytes", info.BytesIn)
		}
		return took
	}
	var ratios []float64
	var off, on time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var a, c time.Duration
		if i%2 == 0 {
			a, c = pass(false), pass(true)
		} else {
			c, a = pass(true), pass(false)
		}
		off += a
		on += c
		ratios = append(ratios, c.Seconds()/a.Seconds())
	}
	sort.Float64s(ratios)
	b.ReportMetric(100*(ratios[len(ratios)/2]-1), "%overhead")
	b.ReportMetric(float64(frames)*float64(b.N)/off.Seconds(), "frames/s-off")
	b.ReportMetric(float64(frames)*float64(b.N)/on.Seconds(), "frames/s-on")
}

// BenchmarkOpenSchemaRatio is what check --from costs on a large
// recorded conversation (a 2025-11-25 handshake, a listing of 32 tools with
// their schemas, then 10,000 calls, each with a progress notification and
// an answer: 30,005 frames, read, framed, folded and judged) without the
// schema judge and with it, alternated in one run; reported as the schema
// judge's share of the whole (schema/open: (with − without) / with) and
// with/without.
//
//	go test -run '^$' -bench OpenSchemaRatio -benchtime 5x ./capture
func BenchmarkOpenSchemaRatio(b *testing.B) {
	path := filepath.Join(b.TempDir(), "large.txt")
	if err := os.WriteFile(path, largeConversation(10000), 0o600); err != nil {
		b.Fatal(err)
	}
	c, err := OpenWith(path, OpenOptions{}) // schemas compiled once per process, as in check
	if err != nil {
		b.Fatal(err)
	}
	if tot := c.Log.Totals(); tot.Severities[wire.SeverityError]+tot.Severities[wire.SeverityWarning] > 0 || tot.Frames[wire.ServerToClient] < 20000 {
		b.Fatalf("the conversation: %d frames from the server, findings %v", tot.Frames[wire.ServerToClient], tot.Findings)
	}
	var cpu [2]time.Duration // without, with
	for b.Loop() {
		for i, opts := range []OpenOptions{{NoSchemaJudge: true}, {}} {
			runtime.GC()
			c0 := cpuTime()
			if _, err := OpenWith(path, opts); err != nil {
				b.Fatal(err)
			}
			cpu[i] += cpuTime() - c0
		}
	}
	b.ReportMetric(float64(cpu[1]-cpu[0])/float64(cpu[1]), "schema/open")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "with/without")
}

// largeConversation is a transcript of a clean 2025-11-25 session of calls
// calls.
func largeConversation(calls int) []byte {
	var b bytes.Buffer
	b.WriteString(`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	b.WriteString(`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	b.WriteString(`> {"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	b.WriteString(`> {"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	b.WriteString(`< {"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for j := range 32 {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"does thing number %d, carefully","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]},"annotations":{"readOnlyHint":true}}`, j, j)
	}
	b.WriteString("]}}\n")
	for i := range calls {
		id := i + 2
		fmt.Fprintf(&b, `> {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"tool_%d","arguments":{"city":"Lima","days":3},"_meta":{"progressToken":%d}}}`+"\n", id, i%32, id)
		fmt.Fprintf(&b, `< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"progress":1,"total":2,"message":"fetching"}}`+"\n", id)
		fmt.Fprintf(&b, `< {"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}],"isError":false}}`+"\n", id, strings.Repeat("sunny ", 40))
	}
	return b.Bytes()
}

// unjudgedStreams are the bytes of a gap (what a tap passed over unjudged,
// recorded as a JSON string): a tap's flood of 1 KiB notifications, and
// the mixed stream of BenchmarkEncodeFrame.
func unjudgedStreams() []struct {
	name string
	b    []byte
} {
	var flood []byte
	for i := 0; len(flood) < 64<<10; i++ {
		head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%09d`, i)
		flood = append(flood, head+strings.Repeat("f", 1024-len(head)-len("\"}}\n"))+"\"}}\n"...)
	}
	return []struct {
		name string
		b    []byte
	}{{"flood", flood}, {"mixed", benchStream(100)}}
}

// BenchmarkEncodeUnjudged measures the record of a piece of a gap.
func BenchmarkEncodeUnjudged(b *testing.B) {
	for _, c := range unjudgedStreams() {
		b.Run(c.name, func(b *testing.B) {
			ev := eventlog.Event{Seq: 1, Type: eventlog.EventUnjudged, Unjudged: &eventlog.UnjudgedBytes{Dir: wire.ServerToClient, Bytes: c.b}}
			var buf []byte
			b.SetBytes(int64(len(c.b)))
			for b.Loop() {
				buf = appendEvent(buf[:0], &ev)
			}
		})
	}
}

// BenchmarkAppendString: the escaping of a gap's bytes, with plainRun over
// long runs and eight bytes at a time as before, alternated.
func BenchmarkAppendString(b *testing.B) {
	for _, c := range unjudgedStreams() {
		for _, f := range []struct {
			name string
			f    func([]byte, []byte) []byte
		}{{"plainRun", appendString}, {"eight", appendStringEightAtATime}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				var buf []byte
				b.SetBytes(int64(len(c.b)))
				for b.Loop() {
					buf = f.f(buf[:0], c.b)
				}
			})
		}
	}
}
