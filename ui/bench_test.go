package ui

import (
	"slices"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// benchLog returns a log of n frames (a few distinct frames in rotation,
// their bytes shared between events so that a million fit in memory) with
// some stderr.
func benchLog(tb testing.TB, n int) *eventlog.Log {
	log := eventlog.NewLogAt(time.Unix(0, 0), 1<<40)
	var frames []*wire.Frame
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":3}}` + "\n",
		"stray print on stdout\n",
	} {
		frames = append(frames, wire.FramesOf([]byte(s), wire.Options{})...)
	}
	line := &wire.Line{Content: []byte("INFO handled request"), Term: wire.TermLF, Length: 20}
	for i := 0; i < n; i++ {
		at := time.Duration(i) * time.Microsecond
		dir := wire.ServerToClient
		if i%4 == 0 {
			dir = wire.ClientToServer
		}
		// Each event gets its own frame value (sharing the bytes): the
		// projection adds its findings to the frame, and a frame shared by
		// a million events would collect a million findings.
		f := *frames[i%len(frames)]
		f.Findings = slices.Clip(f.Findings)
		log.Append(eventlog.Event{At: at + 1, Type: eventlog.EventFrame, Dir: dir, Frame: &f})
		// Enough stderr to fill its pane in the small log too, so that
		// both screens draw the same number of rows.
		if i < 200 || i%10 == 0 {
			log.Append(eventlog.Event{At: at + 1, Type: eventlog.EventStderr, Stderr: line})
		}
	}
	return log
}

func benchModel(tb testing.TB, n int) *Model {
	log := benchLog(tb, n)
	m := NewModel(Options{Log: log, Theme: "dark", Now: func() time.Duration { return time.Hour }})
	m.resize(160, 48)
	// Select a frame in the middle, so the list is not at either end.
	m.frames.selectSeq(m.c.ix.frames[len(m.c.ix.frames)/2])
	m.refresh()
	return m
}

func renderLoop(b *testing.B, m *Model) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(m.Render()) == 0 {
			b.Fatal("empty render")
		}
	}
}

// BenchmarkRender draws a full 160×48 screen with 100 and with 1,000,000
// frames in the log. The ratio sub-benchmark draws the two screens
// alternately in one loop and reports the ratio of their total times, so
// that load from other processes weighs on both alike: rendering must cost
// what is on screen, not what is in the log.
func BenchmarkRender(b *testing.B) {
	small := benchModel(b, 100)
	defer small.Close()
	big := benchModel(b, 1_000_000)
	defer big.Close()
	b.Run("frames=100", func(b *testing.B) { renderLoop(b, small) })
	b.Run("frames=1000000", func(b *testing.B) { renderLoop(b, big) })
	b.Run("ratio", func(b *testing.B) {
		var ts, tb time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			small.Render()
			t1 := time.Now()
			big.Render()
			ts += t1.Sub(t0)
			tb += time.Since(t1)
		}
		b.ReportMetric(float64(tb)/float64(ts), "big/small")
	})
}

// BenchmarkIngest measures how many frames a second the UI can index as
// they arrive (what a flood costs the UI goroutine between two redraws).
func BenchmarkIngest(b *testing.B) {
	log := benchLog(b, b.N)
	b.ResetTimer()
	x := newIndex(log, nil)
	x.ingest()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}
