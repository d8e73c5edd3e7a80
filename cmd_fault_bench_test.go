package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"
)

// startTapWith starts the tap between us and the tap-echo server with
// extra tap flags.
func startTapWith(b *testing.B, flags ...string) *benchServer {
	return startTapOf(b, linesmanBinary(b), flags...)
}

// startTapOf is startTapWith with the linesman binary bin.
func startTapOf(b *testing.B, bin string, flags ...string) *benchServer {
	b.Helper()
	argv := append([]string{bin, "tap", "--dir", benchTapDir(b), "--max-capture", "0", "--name", "fault-bench"}, flags...)
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

// BenchmarkTapNoFaultBaseline: the tap with no --fault against the tap
// built without the fault code, LINESMAN_BENCH_BASELINE (skipped without
// it), both between us and the tap-echo server, alternated in one run:
// single round trips (medians) and bursts of 100 pipelined pings (the
// median time of a burst). Build the baseline from main's last commit
// before `tap --fault` landed:
//
//	git worktree add --detach /tmp/base 70ab876^ && (cd /tmp/base && go build -o /tmp/base/linesman .)
//	LINESMAN_BENCH_BASELINE=/tmp/base/linesman go test -run '^$' -bench TapNoFaultBaseline -benchtime 2000x .
func BenchmarkTapNoFaultBaseline(b *testing.B) {
	base := os.Getenv("LINESMAN_BENCH_BASELINE")
	if base == "" {
		b.Skip("LINESMAN_BENCH_BASELINE names no baseline binary")
	}
	now := startTapWith(b)
	defer now.stop()
	old := startTapOf(b, base)
	defer old.stop()
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	burst := bytes.Repeat(req, 100)
	for range 50 {
		now.roundTrip(b, req)
		old.roundTrip(b, req)
	}
	var rtNow, rtOld, buNow, buOld []time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 { // which goes first alternates too
			rtNow = append(rtNow, now.roundTrip(b, req))
			rtOld = append(rtOld, old.roundTrip(b, req))
		} else {
			rtOld = append(rtOld, old.roundTrip(b, req))
			rtNow = append(rtNow, now.roundTrip(b, req))
		}
		if i%20 == 0 {
			buNow = append(buNow, burstTrip(b, now, burst, 100))
			buOld = append(buOld, burstTrip(b, old, burst, 100))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(median(rtNow).Nanoseconds())/1e3, "now-rt-µs")
	b.ReportMetric(float64(median(rtOld).Nanoseconds())/1e3, "base-rt-µs")
	b.ReportMetric(float64(median(rtNow))/float64(median(rtOld)), "rt-now/base")
	b.ReportMetric(float64(median(buNow))/float64(median(buOld)), "burst-now/base")
}

// burstTrip writes n requests at once and waits for the n answers.
func burstTrip(b *testing.B, s *benchServer, reqs []byte, n int) time.Duration {
	t0 := time.Now()
	if _, err := s.in.Write(reqs); err != nil {
		b.Fatal(err)
	}
	for range n {
		if _, err := s.out.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(t0)
}
