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
//	go test -run '^$' -bench BenchmarkTap -benchtime 2000x .

// benchServer is a server (direct or tapped) with our ends of its pipes.
type benchServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	outEnd io.Closer // our end of its stdout
}

func startBenchServer(b *testing.B, fake string, tapped bool) *benchServer {
	b.Helper()
	argv := []string{testBinary, "-test.run=^$"}
	if tapped {
		argv = append([]string{linesmanBinary(b), "tap", "--dir", benchTapDir(b), "--name", fake, "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER="+fake)
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

// BenchmarkTapFlood: a server writing 1 KiB frames as fast as it can;
// b.N KiB read from it directly and through the tap, alternately in blocks
// of 4 MiB; reports both rates and their ratio.
func BenchmarkTapFlood(b *testing.B) {
	const block = 4 << 20
	direct := startBenchServer(b, "tap-flood", false)
	defer direct.stop()
	tapped := startBenchServer(b, "tap-flood", true)
	defer tapped.stop()
	buf := make([]byte, 64<<10)
	read := func(s *benchServer, size int) time.Duration {
		t0 := time.Now()
		for n := 0; n < size; {
			m, err := s.out.Read(buf[:min(len(buf), size-n)])
			if err != nil {
				b.Fatal(err)
			}
			n += m
		}
		return time.Since(t0)
	}
	read(direct, block) // warm up
	read(tapped, block)
	var dt, tt time.Duration
	b.SetBytes(2 << 10) // 1 KiB each way per op
	b.ResetTimer()
	for left := b.N << 10; left > 0; left -= block {
		dt += read(direct, min(block, left))
		tt += read(tapped, min(block, left))
	}
	b.StopTimer()
	mb := float64(b.N) / 1024
	b.ReportMetric(mb/dt.Seconds(), "direct-MiB/s")
	b.ReportMetric(mb/tt.Seconds(), "tap-MiB/s")
	b.ReportMetric(dt.Seconds()/tt.Seconds(), "tap/direct")
}

// benchTapDir is where the benchmark's taps record; LINESMAN_BENCH_NOREC=1
// makes it unwritable, to see what recording costs.
func benchTapDir(b *testing.B) string {
	if os.Getenv("LINESMAN_BENCH_NOREC") != "" {
		return "/dev/null/taps"
	}
	return b.TempDir()
}
