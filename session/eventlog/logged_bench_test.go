package eventlog

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"linesman/wire"
)

// BenchmarkLoggedFrame frames a stream as a live session frames its
// server's stdout (wire.Framer over the bytes) and logs each frame with its
// projection and the protocol judge (Record), the log keeping them all:
// flood, 1 KiB notifications/message; progress, a request with a progress
// token, a progress notification and the result, ~120 bytes each. Per
// frame it reports the allocations, the live heap the kept log holds
// (heap-B/frame, after a collection; the stream's own bytes are counted,
// they are what the frames hold) and what the log's retention budget
// charges for it (budget-B/frame): the budget must not charge less than
// the heap it keeps.
func BenchmarkLoggedFrame(b *testing.B) {
	const n = 8192
	for _, c := range []struct {
		name   string
		stream func(i int) string
	}{
		{"flood", func(i int) string {
			head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"%10d","data":"`, i)
			return head + string(bytes.Repeat([]byte("x"), 1024-len(head)-4)) + `"}}` + "\n"
		}},
		{"progress", func(i int) string {
			id, tok := i/3+1, fmt.Sprintf("t%d", i/3+1)
			switch i % 3 {
			case 0:
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":%q}}}`+"\n", id, tok)
			case 1:
				return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%q,"progress":1,"total":2,"message":"half"}}`+"\n", tok)
			}
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`+"\n", id)
		}},
	} {
		var stream []byte
		for i := range n {
			stream = append(stream, c.stream(i)...)
		}
		b.Run(c.name, func(b *testing.B) {
			var got cost
			for range b.N {
				got = logStream(stream, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/frame")
			b.ReportMetric(got.allocs, "allocs/frame")
			b.ReportMetric(got.allocated, "B/frame")
			b.ReportMetric(got.heap, "heap-B/frame")
			b.ReportMetric(got.budget, "budget-B/frame")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// cost is what logging a frame cost, on average.
type cost struct{ allocs, allocated, heap, budget float64 }

// logStream frames and logs stream, n frames, every frame the server's
// (the progress stream's requests are the client's), and returns what a
// frame cost: allocations, bytes allocated, live heap and budget.
func logStream(stream []byte, n int) cost {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	log := NewLog(1 << 40)
	tr := NewTracker(TrackerOptions{})
	fr := wire.NewFramer(bytes.NewReader(stream), wire.Options{})
	for {
		f, err := fr.Next()
		if err != nil {
			break
		}
		dir := wire.ServerToClient
		if f.Msg.Kind == wire.KindRequest {
			dir = wire.ClientToServer
		}
		Record(log, tr, Event{Type: EventFrame, Dir: dir, Frame: f})
	}
	fr = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	events, bytes := log.Retained()
	if events != n {
		panic(fmt.Sprintf("%d events logged, want %d", events, n))
	}
	runtime.KeepAlive(log)
	runtime.KeepAlive(tr)
	per := func(x uint64) float64 { return float64(x) / float64(n) }
	return cost{per(after.Mallocs - before.Mallocs), per(after.TotalAlloc - before.TotalAlloc), per(after.HeapAlloc - before.HeapAlloc), float64(bytes) / float64(n)}
}
