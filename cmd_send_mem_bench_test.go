package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSendUnansweredRequests: linesman send of a million tools/call
// requests to a server that answers none of them (headless-no-answer),
// with a timeout long enough that every one is in flight at once before
// the timeouts end them: linesman's peak RSS (VmHWM of its own process),
// the run's wall time and the report's size. The goal is 450 MiB.
// LINESMAN_BENCH_REQUESTS and LINESMAN_BENCH_TIMEOUT change the count and
// the timeout (default 1000000 and 60s; the timeout must outlast sending
// them all, or the first ones end before the last are sent).
//
// go test -run '^$' -bench SendUnansweredRequests -benchtime 1x .
func BenchmarkSendUnansweredRequests(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("LINESMAN_BENCH_REQUESTS"))
	if n <= 0 {
		n = 1_000_000
	}
	timeout := os.Getenv("LINESMAN_BENCH_TIMEOUT")
	if timeout == "" {
		timeout = "60s"
	}
	input := filepath.Join(b.TempDir(), "requests.jsonl")
	f, err := os.Create(input)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for range n {
		w.WriteString(`{"method":"tools/call","params":{"name":"wait","arguments":{}}}` + "\n")
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	bin := linesmanBinary(b)
	for b.Loop() {
		cmd := exec.Command(bin, append([]string{"send", "--timeout", timeout, "--file", input}, fakeServerArgs("headless-no-answer")...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		peak, _ := runPeakRSS(b, cmd)
		wall := time.Since(start)
		if !bytes.Contains(out.Bytes(), []byte("request-timeout")) {
			b.Fatalf("no request timed out:\n%.3000s\nstderr:\n%.2000s", out.Bytes(), errb.Bytes())
		}
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(out.Len())/(1<<10), "report-KB")
	}
}
