package session

import (
	"fmt"
	"sync"
	"testing"
	"time"
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
