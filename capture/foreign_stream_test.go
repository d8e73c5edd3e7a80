package capture

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"linesman/wire"
)

// writeJSONLFlood writes a JSON Lines conversation of about size bytes to
// a file in dir: a handshake, then tools/call requests of 1 KiB, each
// answered; calls is how many.
func writeJSONLFlood(t testing.TB, dir string, size int64) (path string, calls int) {
	t.Helper()
	path = filepath.Join(dir, "flood.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintln(w, `{"dir":"c2s","ts":"2026-01-02T03:04:05Z","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}`)
	fmt.Fprintln(w, `{"dir":"s2c","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`)
	fmt.Fprintln(w, `{"dir":"c2s","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}`)
	pad := strings.Repeat("x", 1000)
	var written int64
	for ; written < size; calls++ {
		id := calls + 1
		n, _ := fmt.Fprintf(w, `{"dir":"c2s","message":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"pad":"%s"}}}}`+"\n", id, pad)
		m, _ := fmt.Fprintf(w, `{"dir":"s2c","message":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}}`+"\n", id, pad)
		written += int64(n + m)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, calls
}

// TestForeignLogStreams: another tool's log is read a batch at a time into
// the log's retention budget, never held whole: opening a 96 MiB JSON
// Lines file with an 8 MiB budget grows the process's resident memory by
// less than four budgets (the whole file was held: well over 96 MiB), and
// the log still counts every frame. linesman's soft memory limit holds
// the heap near its budget and a headroom (main.go); here the headroom is
// two budgets.
func TestForeignLogStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 96 MiB")
	}
	const budget = 8 << 20
	path, calls := writeJSONLFlood(t, t.TempDir(), 96<<20)
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 * budget))
	runtime.GC()
	debug.FreeOSMemory()
	before := statusKB("VmRSS")
	if before == 0 || !resetPeakRSS() {
		t.Skip("no /proc/self/status or clear_refs here")
	}
	c, err := OpenWith(path, OpenOptions{Retention: budget})
	if err != nil {
		t.Fatal(err)
	}
	growth := statusKB("VmHWM") - before
	t.Logf("peak RSS growth %d MiB with a %d MiB budget", growth>>10, budget>>20)
	if growth<<10 > 4*budget {
		t.Errorf("peak RSS grew by %d MiB reading the log with a %d MiB budget: the file is held, not streamed", growth>>10, budget>>20)
	}
	if got := c.Log.Totals().Frames[wire.ServerToClient]; got != uint64(calls)+1 {
		t.Errorf("%d server frames counted, want every one (%d)", got, calls+1)
	}
	if dropped, _ := c.Log.Dropped(); dropped == 0 {
		t.Error("nothing dropped: the budget was not reached, the test shows nothing")
	}
}

// resetPeakRSS resets VmHWM to the resident set now.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// statusKB is the named figure of /proc/self/status in KiB (0 if unreadable).
func statusKB(name string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
