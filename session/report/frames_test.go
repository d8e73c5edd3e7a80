package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// randomLog is a session of n events drawn by rng and logged through a
// tracker, as a live one is: requests both ways and their answers (some
// never answered, some timed out: a finding logged later that points at a
// frame with none of its own), notifications, stray lines, stderr, notes
// and findings that point at no frame. As in a live log, a finding points
// back: at an event logged before it. retention 0 is the default budget.
func randomLog(rng *rand.Rand, n int, retention int64) (*eventlog.Log, *eventlog.Tracker) {
	l := eventlog.NewLog(retention)
	tr := eventlog.NewTracker(eventlog.TrackerOptions{})
	var last uint64 // the last Seq logged
	logFrame := func(dir wire.Dir, text string) uint64 {
		f := wire.FramesOf([]byte(text+"\n"), wire.Options{})[0]
		last = eventlog.Record(l, tr, eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f})
		return last
	}
	logFinding := func(code string, seq uint64, dir wire.Dir) {
		last = eventlog.Record(l, tr, eventlog.Event{Type: eventlog.EventFinding, Finding: &eventlog.LoggedFinding{
			Finding: wire.NewFinding(code, fmt.Sprintf("%s %d", code, seq)), FrameSeq: seq, Dir: dir}})
	}
	var asked []uint64 // requests the client sent, by seq, not answered yet
	var ids []int
	for i := range n {
		switch rng.IntN(9) {
		case 0, 1:
			asked = append(asked, logFrame(wire.ClientToServer, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)))
			ids = append(ids, i)
		case 2:
			if len(asked) > 0 {
				k := rng.IntN(len(asked))
				logFrame(wire.ServerToClient, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"tools":[]}}`, ids[k]))
				asked, ids = slices.Delete(asked, k, k+1), slices.Delete(ids, k, k+1)
			}
		case 3:
			if len(asked) > 0 {
				k := rng.IntN(len(asked))
				logFinding("request-timeout", asked[k], wire.ClientToServer)
				asked, ids = slices.Delete(asked, k, k+1), slices.Delete(ids, k, k+1)
			}
		case 4:
			logFrame(wire.ServerToClient, fmt.Sprintf("debug: step %d", i)) // a stray print
		case 5:
			last = eventlog.Record(l, tr, eventlog.Event{Type: eventlog.EventStderr, Stderr: &wire.Line{Content: fmt.Appendf(nil, "log %d", i), Term: wire.TermLF}})
		case 6:
			if last > 0 {
				logFinding("unflushed-output", 1+rng.Uint64N(last), wire.ServerToClient) // any event, frame or not
			}
		case 7:
			if rng.IntN(8) == 0 {
				logFinding("exit-at-start", 0, 0)
			}
			fallthrough
		default:
			logFrame(wire.ServerToClient, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%d"}}`, i))
		}
	}
	return l, tr
}

// TestFindingFramesReportsTheSame: a report that lists only the frames
// findings point at (Meta.FindingFrames) writes the same text, JUnit and
// SARIF as the report that lists every frame, and its frames are exactly
// those of the full list that carry a finding. Random sessions, some past
// the retention budget (dropped events are counted the same).
func TestFindingFramesReportsTheSame(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 35))
		retention := int64(0)
		if seed%3 == 0 {
			retention = 16 << 10
		}
		l, tr := randomLog(rng, 50+rng.IntN(400), retention)
		meta := Meta{Mode: "check", Command: []string{"srv"}}
		full := FromLog(l, tr, meta)
		meta.FindingFrames = true
		lean := FromLog(l, tr, meta)

		var want []Frame
		for _, f := range full.Frames {
			if len(f.Findings) > 0 {
				want = append(want, f)
			}
		}
		if len(want) == len(full.Frames) {
			t.Fatalf("seed %d: every frame has a finding; the test shows nothing", seed)
		}
		got, _ := json.Marshal(lean.Frames)
		wantJSON, _ := json.Marshal(want)
		if !bytes.Equal(got, wantJSON) {
			t.Fatalf("seed %d: frames listed\n%s\nwant\n%s", seed, got, wantJSON)
		}
		for i := range want {
			if lean.Frames[i].frame != want[i].frame {
				t.Fatalf("seed %d: frame %d holds another frame", seed, want[i].Seq)
			}
		}
		for _, w := range []struct {
			name  string
			write func(*Report, *bytes.Buffer) error
		}{
			{"text", func(r *Report, b *bytes.Buffer) error { return r.WriteText(b) }},
			{"junit", func(r *Report, b *bytes.Buffer) error { return r.WriteJUnit(b, CIOptions{}) }},
			{"sarif", func(r *Report, b *bytes.Buffer) error { return r.WriteSARIF(b, CIOptions{}) }},
		} {
			var a, b bytes.Buffer
			if err := w.write(&full, &a); err != nil {
				t.Fatal(err)
			}
			if err := w.write(&lean, &b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("seed %d: the %s reports differ:\n%s\n---\n%s", seed, w.name, a.Bytes(), b.Bytes())
			}
		}
		if retention != 0 && (full.Dropped == nil || lean.Dropped == nil || *full.Dropped != *lean.Dropped) {
			t.Errorf("seed %d: dropped %+v, listing only the frames of findings %+v", seed, full.Dropped, lean.Dropped)
		}
	}
}

// BenchmarkReportFromLogFindingFrames is BenchmarkReportFromLog's session
// reported as check's text report is: only the frames findings point at.
func BenchmarkReportFromLogFindingFrames(b *testing.B) {
	l, tr := benchLog(b, 10000)
	_, next := l.Bounds()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := FromLog(l, tr, Meta{FindingFrames: true})
		if len(r.Frames) == 0 {
			b.Fatal("no frames: the stray lines have findings")
		}
	}
	b.ReportMetric(float64(next-1)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
