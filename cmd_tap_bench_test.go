package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The tap's cost, measured as a host meets it: a real server behind real
// pipes, reached directly and through `linesman tap`, alternately in the
// same run so that both see the same machine.
//
//	go test -run '^$' -bench BenchmarkTapLatency -benchtime 2000x .
//	go test -run '^$' -bench BenchmarkTapFlood -benchtime 1000000x .

// benchServer is a server (direct or tapped) with our ends of its pipes.
type benchServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	outEnd io.Closer // our end of its stdout
}

func startBenchServer(b *testing.B, fake string, tapped bool, env ...string) *benchServer {
	b.Helper()
	argv := []string{testBinary, "-test.run=^$"}
	if tapped {
		// No capture limit: the tap records all it judges, as before the limit existed.
		argv = append([]string{linesmanBinary(b), "tap", "--dir", benchTapDir(b), "--max-capture", "0", "--name", fake, "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "LINESMAN_FAKE_SERVER="+fake), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &benchServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), outEnd: out}
}

// stop ends the server and waits for it; twice is fine. EOF, then SIGTERM
// (not SIGINT, which a shell script's background job inherits ignored),
// and our end of its stdout closed, so that a flood blocked on a full pipe
// ends too, tapped or not.
func (s *benchServer) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.in.Close()
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.outEnd.Close()
	s.cmd.Wait()
}

// roundTrip sends one request line and waits for the answer line.
func (s *benchServer) roundTrip(b *testing.B, req []byte) time.Duration {
	t0 := time.Now()
	if _, err := s.in.Write(req); err != nil {
		b.Fatal(err)
	}
	if _, err := s.out.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0)
}

// cpuMicros is the CPU time, user and system, of an ended server process
// and the children it waited for.
func cpuMicros(s *benchServer) float64 {
	ps := s.cmd.ProcessState
	if ps == nil {
		return 0
	}
	return float64((ps.UserTime() + ps.SystemTime()).Microseconds())
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkTapLatency: one request, one answer, b.N times each way,
// alternating; reports the median round trip direct and tapped, what the
// tap adds, and what a bare copying proxy adds (the floor of any tap).
func BenchmarkTapLatency(b *testing.B) {
	direct := startBenchServer(b, "tap-echo", false)
	defer direct.stop()
	tapped := startBenchServer(b, "tap-echo", true)
	defer tapped.stop()
	proxy := startBenchServer(b, "tap-proxy", false)
	defer proxy.stop()
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	for range 50 { // warm them up
		direct.roundTrip(b, req)
		tapped.roundTrip(b, req)
		proxy.roundTrip(b, req)
	}
	d := make([]time.Duration, 0, b.N)
	t := make([]time.Duration, 0, b.N)
	p := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d = append(d, direct.roundTrip(b, req))
		t = append(t, tapped.roundTrip(b, req))
		p = append(p, proxy.roundTrip(b, req))
	}
	b.StopTimer()
	md, mt, mp := median(d), median(t), median(p)
	b.ReportMetric(float64(md.Microseconds()), "direct-median-µs")
	b.ReportMetric(float64(mt.Microseconds()), "tap-median-µs")
	b.ReportMetric(float64((mt - md).Microseconds()), "added-median-µs")
	// The floor: a bare copying process in the middle (no judge).
	b.ReportMetric(float64((mp - md).Microseconds()), "proxy-added-median-µs")
	// CPU time per request, which a shared machine's load does not skew
	// as it skews wall time: the tap's process (and its server) against
	// the proxy's (and its server, the same echo).
	tapped.stop()
	proxy.stop()
	n := float64(b.N + 50)
	b.ReportMetric(cpuMicros(tapped)/n, "tap-cpu-µs/req")
	b.ReportMetric(cpuMicros(proxy)/n, "proxy-cpu-µs/req")
}

// BenchmarkTapFlood: a server writing 1 KiB frames as fast as it can, one
// write each; b.N KiB read from it directly, through the tap and through a
// bare copying proxy, in rounds of 256 MiB each. The rate is the host's:
// from the start of the process to the last byte read. Each process is
// then stopped, and waited for, before the next starts, so that none pays
// for another's work left over (the tap finishing its judging); the tap's
// stop is reported on its own. Reports the three rates, the ratios to
// direct, the mean time the tap took to exit once stopped, and the CPU
// time the tap and the proxy spent per MiB.
func BenchmarkTapFlood(b *testing.B) {
	const block = 256 << 20
	buf := make([]byte, 64<<10)
	run := func(fake string, tapped bool, size int, env ...string) (read, stop time.Duration, cpu float64) {
		t0 := time.Now()
		s := startBenchServer(b, fake, tapped, env...)
		defer s.stop()
		for n := 0; n < size; {
			m, err := s.out.Read(buf[:min(len(buf), size-n)])
			if err != nil {
				b.Fatal(err)
			}
			n += m
		}
		t1 := time.Now()
		s.stop()
		return t1.Sub(t0), time.Since(t1), cpuMicros(s)
	}
	// Warm up (and build linesman, outside the timing).
	run("tap-flood", false, block/16)
	run("tap-flood", true, block/16)
	var dt, tt, pt, stops time.Duration
	var dcpu, tcpu, pcpu float64
	rounds := 0
	b.SetBytes(3 << 10) // 1 KiB read three ways per op
	b.ResetTimer()
	for left := b.N << 10; left > 0; left -= block {
		size := min(block, left)
		d, _, dc := run("tap-flood", false, size)
		t, stop, tc := run("tap-flood", true, size)
		p, _, pc := run("tap-proxy", false, size, "TAP_PROXIED=tap-flood")
		dt, tt, pt, stops = dt+d, tt+t, pt+p, stops+stop
		dcpu, tcpu, pcpu = dcpu+dc, tcpu+tc, pcpu+pc
		rounds++
	}
	b.StopTimer()
	mb := float64(b.N) / 1024
	b.ReportMetric(mb/dt.Seconds(), "direct-MiB/s")
	b.ReportMetric(mb/tt.Seconds(), "tap-MiB/s")
	b.ReportMetric(dt.Seconds()/tt.Seconds(), "tap/direct")
	b.ReportMetric(dt.Seconds()/pt.Seconds(), "proxy/direct")
	b.ReportMetric(float64(stops.Milliseconds())/float64(rounds), "tap-stop-ms")
	// CPU time per MiB of the process in the middle (its own, less its
	// server's, which the direct run measures): the cost a busier machine
	// turns into wall time.
	b.ReportMetric((tcpu-dcpu)/mb, "tap-cpu-µs/MiB")
	b.ReportMetric((pcpu-dcpu)/mb, "proxy-cpu-µs/MiB")
}

// benchTapDir is where the benchmark's taps record; LINESMAN_BENCH_NOREC=1
// makes it unwritable, to see what recording costs.
func benchTapDir(b *testing.B) string {
	if os.Getenv("LINESMAN_BENCH_NOREC") != "" {
		return "/dev/null/taps"
	}
	return b.TempDir()
}
