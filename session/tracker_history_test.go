package session

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"linesman/wire"
)

// handFrame builds a one-line frame of text classified as msg, without the
// framer (a flood of millions is built faster this way).
func handFrame(text string, msg wire.Message) *wire.Frame {
	return &wire.Frame{Lines: []wire.Line{{Content: []byte(text), Term: wire.TermLF, Length: int64(len(text))}}, Msg: msg}
}

// serverRequestFlood folds n server pings, each answered at once by the
// client, into log and tr as a session does (Frame under the log's lock,
// then Forget with the first retained Seq, unless keepAll); sample is
// called every 32k requests.
func serverRequestFlood(log *Log, tr *Tracker, n int, keepAll bool, sample func()) {
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		for _, dir := range []wire.Dir{wire.ServerToClient, wire.ClientToServer} {
			f := handFrame(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, wire.Message{Kind: wire.KindRequest, ID: wire.IntID(int64(i)), Method: "ping"})
			if dir == wire.ClientToServer {
				f = handFrame(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`, wire.Message{Kind: wire.KindResult, ID: wire.IntID(int64(i))})
			}
			log.AppendWith(func(seq uint64, at time.Duration) Event {
				tr.Frame(seq, dir, f, at)
				return Event{Type: EventFrame, Dir: dir, Frame: f}
			})
			if !keepAll {
				first, _ := log.Bounds()
				tr.Forget(first)
			}
		}
		if sample != nil && i%(32<<10) == 0 {
			sample()
		}
	}
}

// TestTrackerHistoryInsideRetention: past the log's budget, answered
// requests are summarised (counted, not kept), while a request still in
// flight is kept whatever its age.
func TestTrackerHistoryInsideRetention(t *testing.T) {
	log := NewLog(1 << 20)
	tr := NewTracker(TrackerOptions{})
	old := handFrame(`{"jsonrpc":"2.0","id":"slow","method":"tools/call"}`, wire.Message{Kind: wire.KindRequest, ID: wire.StringID("slow"), Method: "tools/call"})
	oldSeq := log.AppendWith(func(seq uint64, at time.Duration) Event {
		tr.Frame(seq, wire.ClientToServer, old, at)
		return Event{Type: EventFrame, Dir: wire.ClientToServer, Frame: old}
	})
	const n = 200_000
	serverRequestFlood(log, tr, n, false, nil)

	if c := tr.RequestCounts(); c[ReqAnswered] != n || c[ReqInFlight] != 1 {
		t.Errorf("counts %v, want %d answered and 1 in flight", c, n)
	}
	if r, ok := tr.RequestBySeq(oldSeq); !ok || r.State != ReqInFlight || len(tr.InFlight()) != 1 {
		t.Errorf("the request in flight was forgotten: %+v %v", r, ok)
	}
	first, next := log.Bounds()
	retained := int(next-first) / 2 // a request and its answer
	tr.mu.Lock()
	kept, answers := len(tr.all), len(tr.answers)
	tr.mu.Unlock()
	if first == 1 || kept > retained+retained/4+1024+1 || answers > kept {
		t.Errorf("tracker keeps %d requests (%d answers) for %d retained in the log", kept, answers, retained)
	}
	// A request still retained pairs as before.
	last := next - 1
	if p, ok := tr.PairOf(last); !ok || p.Request.Seq != last-1 {
		t.Errorf("pairing of the last answer: %+v %v", p, ok)
	}
}

// BenchmarkTrackerServerRequests folds 2M server requests (each answered)
// into a log with the default retention budget and reports the peak heap
// in use against the budget, and in the same run against the tracker
// keeping every record (no Forget: how it was) and against 4M notifications
// (frames with no tracker record).
func BenchmarkTrackerServerRequests(b *testing.B) {
	const n = 2_000_000
	peakOf := func(fill func(sample func())) float64 {
		runtime.GC()
		var peak uint64
		sample := func() {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		fill(sample)
		sample()
		return float64(peak) / (1 << 20)
	}
	for b.Loop() {
		requests := peakOf(func(sample func()) {
			serverRequestFlood(NewLog(0), NewTracker(TrackerOptions{}), n, false, sample)
		})
		keepAll := peakOf(func(sample func()) {
			serverRequestFlood(NewLog(0), NewTracker(TrackerOptions{}), n, true, sample)
		})
		notes := peakOf(func(sample func()) {
			log := NewLog(0)
			for i := 1; i <= 2*n; i++ {
				f := handFrame(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, wire.Message{Kind: wire.KindNotification, Method: "notifications/message"})
				log.Append(Event{Type: EventFrame, Dir: wire.ServerToClient, Frame: f})
				if i%(64<<10) == 0 {
					sample()
				}
			}
		})
		b.ReportMetric(requests, "peak-MB")
		b.ReportMetric(float64(DefaultRetention)/(1<<20), "budget-MB")
		b.ReportMetric(requests/notes, "x-notifications")
		b.ReportMetric(keepAll, "keep-all-peak-MB")
	}
}
