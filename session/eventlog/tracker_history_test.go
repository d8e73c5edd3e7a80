package eventlog

import (
	"os"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
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
// called every 4096 requests.
func serverRequestFlood(log *Log, tr *Tracker, n int, keepAll bool, sample func()) {
	for i := 1; i <= n; i++ {
		id := strconv.Itoa(i)
		for _, dir := range []wire.Dir{wire.ServerToClient, wire.ClientToServer} {
			f := handFrame(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, wire.Message{Kind: wire.KindRequest, ID: wire.IntID(int64(i)), Method: "ping"})
			if dir == wire.ClientToServer {
				f = handFrame(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`, wire.Message{Kind: wire.KindResult, ID: wire.IntID(int64(i))})
			}
			log.AppendWith(func(seq uint64, at time.Duration) Event {
				tr.frame(seq, dir, f, at)
				return Event{Type: EventFrame, Dir: dir, Frame: f}
			})
			if !keepAll {
				first, _ := log.Bounds()
				tr.Forget(first)
			}
		}
		if sample != nil && i%(4<<10) == 0 {
			sample()
		}
	}
}

// TestTrackerHistoryInsideRetention: past the log's budget, answered
// requests are summarised (counted, not kept), while a request still in
// flight is kept whatever its age; the bytes the log counts stay inside
// its budget, and the records it does not charge for are the request in
// flight and at most forgetEvery ended ones.
func TestTrackerHistoryInsideRetention(t *testing.T) {
	const budget = 12 << 20 // ~8k requests retained: the old pass, every quarter of the history, left up to ~3k records uncharged
	log := NewLog(budget)
	tr := NewTracker(TrackerOptions{})
	old := handFrame(`{"jsonrpc":"2.0","id":"slow","method":"tools/call"}`, wire.Message{Kind: wire.KindRequest, ID: wire.StringID("slow"), Method: "tools/call"})
	oldSeq := log.AppendWith(func(seq uint64, at time.Duration) Event {
		tr.frame(seq, wire.ClientToServer, old, at)
		return Event{Type: EventFrame, Dir: wire.ClientToServer, Frame: old}
	})
	const n = 60_000
	var worstBytes int64
	var worstEnded int
	serverRequestFlood(log, tr, n, false, func() {
		_, bytes := log.Retained()
		first, _ := log.Bounds()
		_, ended := tr.Unsummarised(first)
		worstBytes, worstEnded = max(worstBytes, bytes), max(worstEnded, ended)
	})

	if c := tr.RequestCounts(); c[ReqAnswered] != n || c[ReqInFlight] != 1 {
		t.Errorf("counts %v, want %d answered and 1 in flight", c, n)
	}
	if r, ok := tr.RequestBySeq(oldSeq); !ok || r.State != ReqInFlight || len(tr.InFlight()) != 1 {
		t.Errorf("the request in flight was forgotten: %+v %v", r, ok)
	}
	first, next := log.Bounds()
	if first == 1 {
		t.Fatalf("the log dropped nothing: the flood did not reach the budget")
	}
	inFlight, ended := tr.Unsummarised(first)
	if inFlight != 1 || ended > forgetEvery || worstEnded > forgetEvery {
		t.Errorf("records outside the log's budget: %d in flight (want 1), %d ended now, %d at worst (want at most %d)", inFlight, ended, worstEnded, forgetEvery)
	}
	if _, bytes := log.Retained(); bytes > budget || worstBytes > budget {
		t.Errorf("the log counts %d bytes now, %d at worst, for a budget of %d", bytes, worstBytes, budget)
	}
	retained := int(next-first) / 2 // a request and its answer
	tr.mu.Lock()
	kept, answers := len(tr.all), len(tr.answers)
	tr.mu.Unlock()
	if kept > retained+forgetEvery+1 || answers > kept {
		t.Errorf("tracker keeps %d requests (%d answers) for %d retained in the log", kept, answers, retained)
	}
	// A request still retained pairs as before.
	last := next - 1
	if p, ok := tr.PairOf(last); !ok || p.Request.Seq != last-1 {
		t.Errorf("pairing of the last answer: %+v %v", p, ok)
	}
}

// TestNullAnswersForgotten: the pairing of an error with id null to the
// unreadable client frame it most likely answers is forgotten with the
// error's frame, so a server answering a flood of garbage with parse errors
// does not grow the tracker past the log's budget.
func TestNullAnswersForgotten(t *testing.T) {
	log := NewLog(256 << 10)
	tr := NewTracker(TrackerOptions{NoProtocolRules: true})
	const n = 50_000
	const perrText = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	perrMsg, _ := wire.Classify([]byte(perrText))
	for i := 0; i < n; i++ {
		bad := handFrame(`not json`, wire.Message{Kind: wire.KindNonJSON})
		perr := handFrame(perrText, perrMsg)
		for _, fr := range []struct {
			dir wire.Dir
			f   *wire.Frame
		}{{wire.ClientToServer, bad}, {wire.ServerToClient, perr}} {
			log.AppendWith(func(seq uint64, at time.Duration) Event {
				tr.frame(seq, fr.dir, fr.f, at)
				return Event{Type: EventFrame, Dir: fr.dir, Frame: fr.f}
			})
			first, _ := log.Bounds()
			tr.Forget(first)
		}
	}
	first, next := log.Bounds()
	tr.mu.Lock()
	kept := len(tr.nullAnswers)
	tr.mu.Unlock()
	if retained := int(next-first) / 2; first == 1 || kept > retained+forgetEvery {
		t.Errorf("%d null-id answers remembered for %d retained in the log (first seq %d)", kept, retained, first)
	}
	// The last one still pairs with the frame before it.
	if p, ok := tr.PairOf(next - 1); !ok || p.Unreadable != next-2 {
		t.Errorf("pairing of the last parse error: %+v %v", p, ok)
	}
}

// BenchmarkTrackerServerRequests folds 2M server requests (each answered)
// into a log with the default retention budget, under the soft memory
// limit main sets (MemoryLimit), and reports the peak heap in use and the
// peak RSS against the budget; in the same run, 4M notifications (frames
// with no tracker record) give the log's own figure. live-MB is the heap
// still live after the flood (after a collection): what the budget bounds.
func BenchmarkTrackerServerRequests(b *testing.B) {
	const n = 2_000_000
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryLimit))
	for b.Loop() {
		requests := peakOf(func(sample func()) any {
			log, tr := NewLog(0), NewTracker(TrackerOptions{})
			serverRequestFlood(log, tr, n, false, sample)
			return []any{log, tr}
		})
		notes := peakOf(func(sample func()) any {
			log := NewLog(0)
			for i := 1; i <= 2*n; i++ {
				f := handFrame(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, wire.Message{Kind: wire.KindNotification, Method: "notifications/message"})
				log.Append(Event{Type: EventFrame, Dir: wire.ServerToClient, Frame: f})
				if i%(64<<10) == 0 {
					sample()
				}
			}
			return log
		})
		b.ReportMetric(float64(DefaultRetention)/(1<<20), "budget-MB")
		b.ReportMetric(float64(MemoryLimit)/(1<<20), "limit-MB")
		b.ReportMetric(requests.heap, "peak-heap-MB")
		b.ReportMetric(requests.live, "live-MB")
		if requests.rss > 0 {
			b.ReportMetric(requests.rss, "peak-RSS-MB")
			b.ReportMetric(notes.rss, "notif-peak-RSS-MB")
		}
		b.ReportMetric(notes.heap, "notif-peak-heap-MB")
	}
}

// peak is what peakOf measured, in MiB.
type peak struct{ heap, live, rss float64 }

// peakOf runs fill from a collected heap, sampling the heap in use
// whenever fill calls sample, and returns the peak heap in use, the heap
// still live after fill (what fill returns is kept alive until then) and
// the process's peak RSS during fill (0 where it cannot be read).
func peakOf(fill func(sample func()) any) peak {
	runtime.GC()
	debug.FreeOSMemory()
	rssOK := resetPeakRSS()
	var p peak
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		p.heap = max(p.heap, float64(ms.HeapInuse)/(1<<20))
	}
	keep := fill(sample)
	sample()
	if rssOK {
		p.rss = float64(peakRSS()) / (1 << 20)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.live = float64(ms.HeapAlloc) / (1 << 20)
	runtime.KeepAlive(keep)
	return p
}

// resetPeakRSS resets the kernel's high-water mark of this process's RSS
// (Linux: writing 5 to /proc/self/clear_refs); false where it cannot.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil && peakRSS() > 0
}

// peakRSS is VmHWM of /proc/self/status, in bytes (0 if unreadable).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// waitingFlood folds n client tools/call requests that are never
// answered into log and tr as a session does (the frame under the log's
// lock, then Forget with the first retained Seq); sample is called every
// 4096 requests.
func waitingFlood(log *Log, tr *Tracker, n int, sample func()) {
	for i := 1; i <= n; i++ {
		text := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"wait","arguments":{}}}`
		f := handFrame(text, wire.Message{Kind: wire.KindRequest, ID: wire.IntID(int64(i)), Method: "tools/call"})
		log.AppendWith(func(seq uint64, at time.Duration) Event {
			tr.frame(seq, wire.ClientToServer, f, at)
			return Event{Type: EventFrame, Dir: wire.ClientToServer, Frame: f}
		})
		first, _ := log.Bounds()
		if outside, passed := tr.Forget(first); passed {
			log.Reserve(outside)
		}
		if sample != nil && i%(4<<10) == 0 {
			sample()
		}
	}
}

// BenchmarkTrackerWaitingRequests folds 1M client requests that are never
// answered (all in flight at once, as `linesman send` of a million
// requests to a server that answers none) into a log with the default
// budget, under linesman's soft memory limit, and reports the peak heap
// in use, the heap live after the flood and the peak RSS.
//
//	go test ./session/eventlog -run '^$' -bench TrackerWaitingRequests -benchtime 1x
func BenchmarkTrackerWaitingRequests(b *testing.B) {
	const n = 1_000_000
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryLimit))
	for b.Loop() {
		p := peakOf(func(sample func()) any {
			log, tr := NewLog(0), NewTracker(TrackerOptions{Timeout: time.Hour})
			waitingFlood(log, tr, n, sample)
			if c := tr.RequestCounts(); c[ReqInFlight] != n {
				b.Fatalf("%d in flight, want %d", c[ReqInFlight], n)
			}
			return []any{log, tr}
		})
		b.ReportMetric(p.heap, "peak-heap-MB")
		b.ReportMetric(p.live, "live-MB")
		if p.rss > 0 {
			b.ReportMetric(p.rss, "peak-RSS-MB")
		}
	}
}

// TestShrunkMaps: a map that held many and now holds under a quarter of
// them is copied into one of its size, with the same contents; one that
// holds more, or was never large, is kept.
func TestShrunkMaps(t *testing.T) {
	m := map[int]int{}
	peak := 0
	for i := range 10_000 {
		m[i] = i
	}
	if got := shrunk(m, &peak); reflect.ValueOf(got).Pointer() != reflect.ValueOf(m).Pointer() || peak != 10_000 {
		t.Fatalf("a map at its peak was copied (peak %d)", peak)
	}
	for i := range 7_000 {
		delete(m, i)
	}
	if got := shrunk(m, &peak); reflect.ValueOf(got).Pointer() != reflect.ValueOf(m).Pointer() {
		t.Errorf("a map at 30%% of its peak was copied: only under a quarter is")
	}
	for i := 7_000; i < 9_000; i++ {
		delete(m, i)
	}
	got := shrunk(m, &peak)
	if reflect.ValueOf(got).Pointer() == reflect.ValueOf(m).Pointer() || !reflect.DeepEqual(got, m) || peak != len(m) {
		t.Errorf("a map at a tenth of its peak: copied %v, same contents %v, peak %d", reflect.ValueOf(got).Pointer() != reflect.ValueOf(m).Pointer(), reflect.DeepEqual(got, m), peak)
	}
	small, p := map[int]int{1: 1}, 100
	if got := shrunk(small, &p); reflect.ValueOf(got).Pointer() != reflect.ValueOf(small).Pointer() {
		t.Errorf("a small map was copied")
	}
}
