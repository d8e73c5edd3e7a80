package eventlog

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"linesman/wire"
)

func noteEvent(i int) Event { return Event{Type: EventNote, Note: fmt.Sprintf("note %d", i)} }

func TestLogSeqAndRange(t *testing.T) {
	l := NewLog(0)
	for i := 1; i <= 5; i++ {
		if seq := l.Append(noteEvent(i)); seq != uint64(i) {
			t.Fatalf("append %d got seq %d", i, seq)
		}
	}
	first, next := l.Bounds()
	if first != 1 || next != 6 || l.Len() != 5 {
		t.Fatalf("bounds %d..%d len %d, want 1..6 len 5", first, next, l.Len())
	}
	evs := l.Range(0, 100) // clamped to what is retained
	if len(evs) != 5 || evs[0].Seq != 1 || evs[4].Seq != 5 {
		t.Fatalf("Range(0,100) = %d events", len(evs))
	}
	if got := l.Range(3, 3); got != nil {
		t.Fatalf("empty range returned %d events", len(got))
	}
	if ev, ok := l.Get(4); !ok || ev.Note != "note 4" {
		t.Fatalf("Get(4) = %+v, %v", ev, ok)
	}
	if _, ok := l.Get(6); ok {
		t.Fatal("Get past the end succeeded")
	}
}

func TestLogKeepsTimeOrderAndWall(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	l := NewLogAt(start, 0)
	l.Append(Event{Type: EventNote, At: 5 * time.Second})
	seq := l.Append(Event{Type: EventNote, At: 3 * time.Second}) // older reading, raced
	ev, _ := l.Get(seq)
	if ev.At != 5*time.Second {
		t.Fatalf("out-of-order At kept: %v", ev.At)
	}
	if !ev.Wall.Equal(start.Add(5 * time.Second)) {
		t.Fatalf("Wall %v does not follow At", ev.Wall)
	}
}

func TestLogRetentionDropsOldestAndCounts(t *testing.T) {
	one := noteEvent(0)
	budget := 10 * one.approxSize()
	l := NewLog(budget)
	for i := 1; i <= 100; i++ {
		l.Append(noteEvent(i))
	}
	dropped, droppedBytes := l.Dropped()
	first, next := l.Bounds()
	if next != 101 {
		t.Fatalf("next seq %d, want 101: seq numbers must keep counting", next)
	}
	if uint64(l.Len())+dropped != 100 || first != dropped+1 {
		t.Fatalf("len %d + dropped %d != 100 (first %d)", l.Len(), dropped, first)
	}
	if l.Len() > 10 || l.Len() < 9 || droppedBytes <= 0 {
		t.Fatalf("retained %d events (%d bytes dropped) for a 10-event budget", l.Len(), droppedBytes)
	}
	if _, ok := l.Get(1); ok {
		t.Fatal("the oldest event survived the retention limit")
	}
	if ev, ok := l.Get(100); !ok || ev.Note != "note 100" {
		t.Fatal("the newest event is gone")
	}
}

func TestLogRetentionKeepsTheNewestEvenWhenHuge(t *testing.T) {
	l := NewLog(1)
	l.Append(noteEvent(1))
	l.Append(noteEvent(2))
	if l.Len() != 1 {
		t.Fatalf("len %d, want the newest event kept alone", l.Len())
	}
	if ev, _ := l.Get(2); ev.Note != "note 2" {
		t.Fatal("the newest event was dropped")
	}
}

func TestLogSubscribeCoalescesAndNeverBlocks(t *testing.T) {
	l := NewLog(0)
	sig, cancel := l.Subscribe()
	// Nobody reads: appends must not wait for the subscriber.
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10000; i++ {
			l.Append(noteEvent(i))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Append blocked on a subscriber that does not read")
	}
	<-sig // one signal stands for all of them
	select {
	case <-sig:
		t.Fatal("signals did not coalesce")
	default:
	}
	cancel()
	l.Append(noteEvent(0))
	select {
	case <-sig:
		t.Fatal("signalled after cancel")
	default:
	}
}

func TestLogAppendWithKnowsItsSeq(t *testing.T) {
	l := NewLog(0)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if i%2 == 0 {
					l.Append(noteEvent(i))
					continue
				}
				l.AppendWith(func(seq uint64, at time.Duration) Event {
					return Event{Type: EventNote, Note: fmt.Sprintf("seq %d", seq)}
				})
			}
		}()
	}
	wg.Wait()
	evs := l.Range(1, 1<<62)
	if len(evs) != 1600 {
		t.Fatalf("%d events, want 1600", len(evs))
	}
	withSeq := 0
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if i > 0 && ev.At < evs[i-1].At {
			t.Fatalf("event %d is older than the one before it", ev.Seq)
		}
		var n uint64
		if _, err := fmt.Sscanf(ev.Note, "seq %d", &n); err == nil {
			withSeq++
			if n != ev.Seq {
				t.Fatalf("AppendWith was told seq %d but the event got %d", n, ev.Seq)
			}
		}
	}
	if withSeq != 800 {
		t.Fatalf("%d AppendWith events, want 800", withSeq)
	}
}

func TestLogAppendRangeReusesTheCallersBuffer(t *testing.T) {
	one := noteEvent(0)
	l := NewLog(10 * one.approxSize())
	for i := 1; i <= 5; i++ {
		l.Append(noteEvent(i))
	}
	// It appends after what dst already holds, and clamps like Range.
	dst := l.AppendRange([]Event{{Note: "mine"}}, 0, 100)
	if len(dst) != 6 || dst[0].Note != "mine" || dst[1].Seq != 1 || dst[5].Seq != 5 {
		t.Fatalf("AppendRange(dst, 0, 100) = %d events", len(dst))
	}
	for i, ev := range dst[1:] {
		if want, _ := l.Get(uint64(i + 1)); ev != want {
			t.Fatalf("copy of seq %d differs from Get: %+v", i+1, ev)
		}
	}
	// An empty range gives dst back as it was, even past the end.
	for _, r := range [][2]uint64{{3, 3}, {4, 2}, {6, 100}} {
		if got := l.AppendRange(dst[:2], r[0], r[1]); len(got) != 2 || &got[0] != &dst[0] {
			t.Fatalf("AppendRange(dst, %d, %d) = %d events, want dst unchanged", r[0], r[1], len(got))
		}
	}
	// A buffer with room is filled in place: no allocation once warm.
	buf := make([]Event, 0, 8)
	if allocs := testing.AllocsPerRun(100, func() { buf = l.AppendRange(buf[:0], 2, 5) }); allocs != 0 {
		t.Fatalf("AppendRange into a large enough buffer allocated %v times", allocs)
	}
	if len(buf) != 3 || buf[0].Seq != 2 || buf[2].Seq != 4 {
		t.Fatalf("AppendRange(buf, 2, 5) = %+v", buf)
	}
	// After retention drops, it starts at the oldest retained event, as
	// Range does: a reader tells what it missed by the first Seq.
	for i := 6; i <= 100; i++ {
		l.Append(noteEvent(i))
	}
	first, next := l.Bounds()
	got := l.AppendRange(buf[:0], 1, next)
	want := l.Range(1, next)
	if first <= 1 || len(got) != len(want) || got[0].Seq != first || got[len(got)-1].Seq != next-1 {
		t.Fatalf("after drops: AppendRange from 1 gave %d events from seq %d, Range %d, first retained %d", len(got), got[0].Seq, len(want), first)
	}
}

// Events live in chunks: reads that span chunk boundaries, and drops that
// free whole chunks, must see exactly the retained events in order.
func TestLogAcrossChunks(t *testing.T) {
	one := noteEvent(10000)
	l := NewLog(2500 * one.approxSize())
	const total = 5*eventChunk + 77
	for i := 1; i <= total; i++ {
		l.Append(noteEvent(i))
	}
	first, next := l.Bounds()
	if next != total+1 || l.Len() != int(next-first) {
		t.Fatalf("bounds %d..%d with len %d", first, next, l.Len())
	}
	all := l.AppendRange(nil, 0, next)
	if len(all) != l.Len() {
		t.Fatalf("AppendRange returned %d of %d events", len(all), l.Len())
	}
	for i, ev := range all {
		want := first + uint64(i)
		if ev.Seq != want || ev.Note != fmt.Sprintf("note %d", want) {
			t.Fatalf("event %d: seq %d note %q, want seq %d", i, ev.Seq, ev.Note, want)
		}
		if got, ok := l.Get(want); !ok || got.Seq != want {
			t.Fatalf("Get(%d) = %d, %v", want, got.Seq, ok)
		}
	}
	// A window straddling a chunk boundary.
	mid := first + eventChunk - 3
	win := l.Range(mid, mid+10)
	if len(win) != 10 || win[0].Seq != mid || win[9].Seq != mid+9 {
		t.Fatalf("Range over a chunk boundary: %d events from %d", len(win), win[0].Seq)
	}
}

// TestLogHoldKeepsWhatAReaderHasNotRead: events from the held Seq on stay
// past the budget, however many; moving the hold lets the budget apply.
func TestLogHoldKeepsWhatAReaderHasNotRead(t *testing.T) {
	one := noteEvent(0)
	budget := 10 * one.approxSize()
	l := NewLog(budget)
	l.Hold(5)
	for i := 1; i <= 40; i++ {
		l.Append(noteEvent(i))
	}
	if first, _ := l.Bounds(); first != 5 || l.Len() != 36 {
		t.Fatalf("first retained %d of %d, want 5 of 36: held events were dropped (or the unheld kept)", first, l.Len())
	}
	l.Hold(38)
	if first, _ := l.Bounds(); first > 38 || l.Len() > 10 {
		t.Fatalf("after the hold moved on: first %d, %d retained; want the budget's 10", first, l.Len())
	}
	l.Hold(0)
	l.Append(noteEvent(41))
	if l.Len() > 10 {
		t.Fatalf("released: %d retained, want at most the budget's 10", l.Len())
	}
}

// TestLogPaceWaitsForTheHold: an appender that paces itself waits while
// the held events cost more than the budget, until the reader's hold is
// within half of it of the log's end, or released; within the budget, or
// without a hold, it goes on at once.
func TestLogPaceWaitsForTheHold(t *testing.T) {
	one := noteEvent(0)
	l := NewLog(10 * one.approxSize())
	l.Pace() // no hold
	l.Hold(1)
	for i := 1; i <= 9; i++ {
		l.Append(noteEvent(i))
	}
	l.Pace() // held: within the budget
	for i := 10; i <= 25; i++ {
		l.Append(noteEvent(i))
	}
	if l.Paces() != 0 {
		t.Fatalf("%d waits within the budget", l.Paces())
	}
	paced := func() chan struct{} {
		done := make(chan struct{})
		go func() { l.Pace(); close(done) }()
		return done
	}
	done := paced()
	for l.Paces() != 1 {
		runtime.Gosched()
	}
	l.Hold(15) // 11 held: more than half the budget
	select {
	case <-done:
		t.Fatal("the appender went on with 11 events held of a 10-event budget")
	default:
	}
	if first, _ := l.Bounds(); first != 15 {
		t.Fatalf("first retained %d, want 15: held events were dropped (or the unheld kept)", first)
	}
	l.Hold(22) // 4 held
	<-done
	for i := 26; i <= 40; i++ {
		l.Append(noteEvent(i))
	}
	done = paced()
	for l.Paces() != 2 {
		runtime.Gosched()
	}
	l.Hold(0) // the reader stopped
	<-done
}

// The log's Kept counts are what a pass over the retained events counts,
// as events are appended and as the budget drops the oldest, and
// AppendListed leaves out exactly the frames logged without a finding.
func TestLogKeptCountsWhatItHolds(t *testing.T) {
	frame := func(findings int) Event {
		f := &wire.Frame{Lines: []wire.Line{{Content: []byte("{}"), Length: 2, Term: wire.TermLF}}}
		for range findings {
			f.Findings = append(f.Findings, wire.NewFinding("blank-line", "x"))
		}
		return Event{Type: EventFrame, Dir: wire.ServerToClient, Frame: f}
	}
	one := frame(2)
	l := NewLog(40 * one.approxSize())
	for i := range 300 {
		switch i % 4 {
		case 0, 1:
			l.Append(frame(i % 3))
		case 2:
			l.Append(Event{Type: EventFinding, Finding: &LoggedFinding{Finding: wire.NewFinding("blank-line", "y")}})
		default:
			l.Append(noteEvent(i))
		}
		var want Kept
		first, next := l.Bounds()
		for _, ev := range l.Range(first, next) {
			switch {
			case ev.Type == EventFrame && ev.Frame != nil:
				want.Frames++
				want.Findings += len(ev.Frame.Findings)
			case ev.Type == EventFinding && ev.Finding != nil:
				want.Findings++
			}
		}
		if got := l.Kept(); got != want {
			t.Fatalf("after %d appends (%d dropped): Kept %+v, the events hold %+v", i+1, first-1, got, want)
		}
		var listed []uint64
		bare := 0
		for _, ev := range l.Range(first, next) {
			if ev.Type == EventFrame && ev.Frame != nil && len(ev.Frame.Findings) == 0 {
				bare++
			} else {
				listed = append(listed, ev.Seq)
			}
		}
		got, skipped := l.AppendListed(nil, first, next)
		var gotSeqs []uint64
		for _, ev := range got {
			gotSeqs = append(gotSeqs, ev.Seq)
		}
		if skipped != bare || fmt.Sprint(gotSeqs) != fmt.Sprint(listed) {
			t.Fatalf("AppendListed left out %d frames and gave %v; want %d left out and %v", skipped, gotSeqs, bare, listed)
		}
	}
	if dropped, _ := l.Dropped(); dropped == 0 {
		t.Fatal("the budget dropped nothing: the counts out were not tested")
	}
}
