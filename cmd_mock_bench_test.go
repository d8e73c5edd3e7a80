package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"linesman/capture"
)

// pingLine is the request of the mock flood, id i.
func pingLine(i int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
}

// recordDemoPings records, through the tap, a session of the demo server
// answering an initialize and a few pings, and returns the capture.
func recordDemoPings(b *testing.B) string {
	b.Helper()
	bin := linesmanBinary(b)
	dir := b.TempDir()
	cmd := exec.Command(bin, "tap", "--dir", dir, "--name", "demo", "--", bin, "demo-server")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReader(out)
	io.WriteString(in, faultInit)
	br.ReadBytes('\n')
	io.WriteString(in, faultInited)
	for i := range 3 {
		in.Write(pingLine(10 + i))
		br.ReadBytes('\n')
	}
	in.Close()
	io.Copy(io.Discard, br)
	cmd.Wait()
	taps, err := capture.ListTaps(dir)
	if err != nil || len(taps) != 1 {
		b.Fatalf("taps: %v %v", taps, err)
	}
	return taps[0].Path
}

// floodRate starts argv, makes the handshake, then writes n pings at once
// (a writer goroutine) while reading the n answers, and returns the
// answers a second, from the first ping written to the last answer read.
func floodRate(b *testing.B, n int, argv ...string) float64 {
	b.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	br := bufio.NewReaderSize(out, 1<<16)
	io.WriteString(in, faultInit)
	br.ReadSlice('\n')
	io.WriteString(in, faultInited)
	t0 := time.Now()
	go func() {
		bw := bufio.NewWriter(in)
		for i := range n {
			bw.Write(pingLine(100 + i))
		}
		bw.Flush()
	}()
	for range n {
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatalf("%s: %v", argv, err)
		}
	}
	return float64(n) / time.Since(t0).Seconds()
}

// BenchmarkMockFlood: `linesman mock --timing fast` of a recorded demo
// server session, flooded with b.N pings at once, against the demo server
// it recorded, flooded alike, in one run; reports both rates and the
// mock's as a ratio of the real server's.
func BenchmarkMockFlood(b *testing.B) {
	bin := linesmanBinary(b)
	path := recordDemoPings(b)
	floodRate(b, 100, bin, "demo-server") // warm the page cache
	b.ResetTimer()
	real := floodRate(b, b.N, bin, "demo-server")
	mocked := floodRate(b, b.N, bin, "mock", "--timing", "fast", path)
	b.StopTimer()
	b.ReportMetric(real, "real-req/s")
	b.ReportMetric(mocked, "mock-req/s")
	b.ReportMetric(mocked/real, "mock/real")
}
