package main

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
	"time"
)

// startTapWith starts the tap between us and the tap-echo server with
// extra tap flags.
func startTapWith(b *testing.B, flags ...string) *benchServer {
	b.Helper()
	argv := append([]string{linesmanBinary(b), "tap", "--dir", benchTapDir(b), "--max-capture", "0", "--name", "fault-bench"}, flags...)
	argv = append(append(argv, "--"), testBinary, "-test.run=^$")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=tap-echo")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &benchServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), outEnd: out}
}

// BenchmarkTapFaultPath: round trips through the tap with no --fault (the
// fault code a nil check: stdout goes to the host as it comes) and
// through the tap with a --fault that matches nothing (every answer goes
// through the injector), alternated in one run; reports the medians and
// the ratio of the injector's path to the plain one.
func BenchmarkTapFaultPath(b *testing.B) {
	plain := startTapWith(b)
	defer plain.stop()
	faulted := startTapWith(b, "--fault", "delay:1s@no/such-method")
	defer faulted.stop()
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	for range 50 {
		plain.roundTrip(b, req)
		faulted.roundTrip(b, req)
	}
	p := make([]time.Duration, 0, b.N)
	f := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		p = append(p, plain.roundTrip(b, req))
		f = append(f, faulted.roundTrip(b, req))
	}
	b.StopTimer()
	mp, mf := median(p), median(f)
	b.ReportMetric(float64(mp.Microseconds()), "no-fault-median-µs")
	b.ReportMetric(float64(mf.Microseconds()), "injector-median-µs")
	b.ReportMetric(float64(mf)/float64(mp), "injector/no-fault")
}
