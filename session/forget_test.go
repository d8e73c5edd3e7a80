package session

import (
	"fmt"
	"testing"
	"time"

	"linesman/session/eventlog"
)

// TestTimedOutRequestsForgotten: requests that time out unanswered after
// the log has dropped their frames leave the tracker (counted, not kept)
// as the timeouts' findings are logged, as answered ones do as frames are:
// a million timed-out requests were kept whole until the report, where the
// log's budget says they are charged for only while their frames are kept.
func TestTimedOutRequestsForgotten(t *testing.T) {
	t.Parallel()
	const n = 3000
	s := startProto(t, "proto-deaf", Config{NoHandshake: true, Retention: 256 << 10, Timeout: 2 * time.Second})
	for i := 1; i <= n; i++ {
		if err := s.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x"}}`+"\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	tr := s.Tracker()
	deadline := time.Now().Add(testWait)
	for tr.RequestCounts()[eventlog.ReqTimedOut] < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := tr.RequestCounts()[eventlog.ReqTimedOut]; got != n {
		t.Fatalf("%d requests timed out, want %d", got, n)
	}
	// 256 KiB holds a few hundred request frames; Forget lags by at most
	// 1024 Seqs, and runs once the timeouts' findings are all logged.
	settle := time.Now().Add(10 * time.Second)
	for tr.NumRequests() > n/2 && time.Now().Before(settle) {
		time.Sleep(20 * time.Millisecond)
	}
	if kept := tr.NumRequests(); kept > n/2 {
		t.Errorf("the tracker keeps %d of %d timed-out requests whose frames the log dropped", kept, n)
	}
}
