package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/wire"
)

// The tap's cost, measured as a host meets it: a real server behind real
// pipes, reached directly, through `linesman tap` and through a bare copying
// proxy (the floor of any process in the middle), in turn, round after
// round, so that all see the same machine. Each benchmark reports the goal's
// ratio, the tap's against the proxy's, as the median of the rounds' ratios
// with their spread (the lower and upper quartile, "-q1" and "-q3").
//
//	go test -run '^$' -bench BenchmarkTapLatency -benchtime 2000x -count 3 .
//	go test -run '^$' -bench BenchmarkTapFlood -benchtime 1000000x -count 3 .
//
// With LINESMAN_BENCH_BASELINE=/path/to/an/older/linesman, that binary's tap
// runs in every round too ("base"); with LINESMAN_BENCH_PROXIES=1, so does
// tap-proxy given the tap's own pipes ("proxy-same": see serveTapProxy).
//
// CPU is each process's own, from rusage: the process in the middle waits
// for its server (a tap through its containment helper), so its rusage
// holds the server's, which the server writes to TAP_SELF_CPU as it ends
// and which is taken off. A shared machine's load skews CPU time far less
// than wall time.

// benchServer is a server (direct or behind a process in the middle) with
// our ends of its pipes.
type benchServer struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	outEnd  io.Closer // our end of its stdout
	cpuFile string    // where the server writes its own CPU time
	tapDir  string    // where a tap records ("": none)
}

// benchMiddle is one way to reach a fake server: directly (argv nil), or
// through the command argv puts in front of it.
type benchMiddle struct {
	name  string
	argv  func(b *testing.B, dir string) []string // the tap's command line in front of the server's
	proxy bool                                    // through tap-proxy
	env   []string
}

// direct reports whether m reaches its server directly.
func (m benchMiddle) direct() bool { return m.argv == nil && !m.proxy }

// benchMiddles are the ways each round reaches its server: direct, the tap,
// the proxy, and the optional ones (see the top of this file).
func benchMiddles() []benchMiddle {
	tap := func(bin string) func(b *testing.B, dir string) []string {
		return func(b *testing.B, dir string) []string {
			if bin == "" {
				bin = linesmanBinary(b)
			}
			// No capture limit: the tap records all it judges.
			return []string{bin, "tap", "--dir", dir, "--max-capture", "0", "--name", "bench", "--"}
		}
	}
	ms := []benchMiddle{
		{name: "direct"},
		{name: "tap", argv: tap("")},
		{name: "proxy", proxy: true},
	}
	if base := os.Getenv("LINESMAN_BENCH_BASELINE"); base != "" {
		ms = append(ms, benchMiddle{name: "base", argv: tap(base)})
	}
	if os.Getenv("LINESMAN_BENCH_PROXIES") == "1" {
		ms = append(ms, benchMiddle{name: "proxy-same", proxy: true, env: []string{"TAP_PROXY_SAME=1"}})
	}
	return ms
}

// start starts fake behind m.
func (m benchMiddle) start(b *testing.B, fake string, env ...string) *benchServer {
	b.Helper()
	argv := []string{testBinary, "-test.run=^$"}
	var tapDir string
	if m.argv != nil {
		tapDir = benchTapDir(b)
		argv = append(m.argv(b, tapDir), argv...)
	}
	cpuFile := filepath.Join(b.TempDir(), "server-cpu")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "TAP_SELF_CPU="+cpuFile)
	if m.proxy {
		cmd.Env = append(cmd.Env, "LINESMAN_FAKE_SERVER=tap-proxy", "TAP_PROXIED="+fake)
	} else {
		cmd.Env = append(cmd.Env, "LINESMAN_FAKE_SERVER="+fake)
	}
	cmd.Env = append(append(cmd.Env, m.env...), env...)
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
	return &benchServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), outEnd: out, cpuFile: cpuFile, tapDir: tapDir}
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

// framesRecorded counts the frame records of the capture of an ended tap:
// under a flood, the frames its judge saw (the rest it passed over, and
// recorded unjudged). The capture is read a piece at a time: a child's
// peak RSS counts from its parent's at its start (exec keeps the larger),
// so the benchmark keeps its own small.
func (s *benchServer) framesRecorded() int {
	paths, _ := filepath.Glob(filepath.Join(s.tapDir, "*.jsonl"))
	n := 0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		r := bufio.NewReaderSize(f, 1<<20)
		start := true // at the start of a record
		for {
			line, err := r.ReadSlice('\n')
			if start && bytes.HasPrefix(line, []byte(`{"type":"frame",`)) {
				n++
			}
			start = err == nil
			if err != nil && err != bufio.ErrBufferFull {
				break
			}
		}
		f.Close()
	}
	return n
}

// ownCPU is the CPU time, user and system, of the ended process less its
// server's (all of it when there is no process in the middle); false when
// the server did not say what it spent.
func (s *benchServer) ownCPU(direct bool) (time.Duration, bool) {
	ps := s.cmd.ProcessState
	if ps == nil {
		return 0, false
	}
	all := ps.UserTime() + ps.SystemTime()
	if direct {
		return all, true
	}
	raw, err := os.ReadFile(s.cpuFile)
	if err != nil {
		return 0, false
	}
	us, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil {
		return 0, false
	}
	return all - time.Duration(us)*time.Microsecond, true
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// reportSpread reports the median of xs as unit, and its lower and upper
// quartiles as unit-q1 and unit-q3.
func reportSpread(b *testing.B, xs []float64, unit string) {
	if len(xs) == 0 {
		return
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	b.ReportMetric(s[len(s)/2], unit)
	b.ReportMetric(s[len(s)/4], unit+"-q1")
	b.ReportMetric(s[(3*len(s))/4], unit+"-q3")
}

// latencyRounds is how many rounds BenchmarkTapLatency cuts b.N into.
const latencyRounds = 20

// BenchmarkTapLatency: one request, one answer, b.N times through each
// middle, alternating, in latencyRounds rounds. Reports what the tap and
// the proxy add to the direct round trip (the medians of the rounds'
// medians), the goal's ratio tap/proxy-added per round with its spread,
// the same at the rounds' lower quartiles ("-p25": the path itself, less
// the waits a busy machine adds to some round trips), and the CPU time per
// request of the tap and the proxy over the whole run (tap/proxy-cpu).
func BenchmarkTapLatency(b *testing.B) {
	ms := benchMiddles()
	servers := make([]*benchServer, len(ms))
	for i, m := range ms {
		servers[i] = m.start(b, "tap-echo")
		defer servers[i].stop()
	}
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	for range 50 { // warm them up
		for _, s := range servers {
			s.roundTrip(b, req)
		}
	}
	var rounds [][][]time.Duration // per round, per middle: the round trips
	b.ResetTimer()
	for r := range latencyRounds {
		n := b.N/latencyRounds + min(1, max(0, b.N%latencyRounds-r))
		if n == 0 {
			continue
		}
		round := make([][]time.Duration, len(ms))
		for range n {
			for i, s := range servers {
				round[i] = append(round[i], s.roundTrip(b, req))
			}
		}
		rounds = append(rounds, round)
	}
	b.StopTimer()
	reportAdded(b, ms, rounds, 2, "")
	reportAdded(b, ms, rounds, 4, "-p25")
	reportCPUPerRequest(b, ms, servers, b.N+50)
}

// reportAdded reports, per middle, what it adds to the direct round trip
// at the len/q-th shortest round trip of each round (q 2: the median), the
// median over the rounds, and the goal's ratios of the rounds with their
// spread; suffix tells the quantile apart in the units.
func reportAdded(b *testing.B, ms []benchMiddle, rounds [][][]time.Duration, q int, suffix string) {
	at := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/q]
	}
	added := make([][]float64, len(ms)) // per middle, per round: µs over direct
	for _, round := range rounds {
		direct := at(round[0])
		for i := range ms {
			added[i] = append(added[i], float64((at(round[i])-direct).Nanoseconds())/1000)
		}
	}
	for i, m := range ms[1:] {
		s := slices.Clone(added[i+1])
		slices.Sort(s)
		b.ReportMetric(s[len(s)/2], m.name+"-added-µs"+suffix)
	}
	byName := func(name string) int { return slices.IndexFunc(ms, func(m benchMiddle) bool { return m.name == name }) }
	for _, pair := range [][2]string{{"tap", "proxy"}, {"base", "proxy"}, {"proxy-same", "proxy"}} {
		n, d := byName(pair[0]), byName(pair[1])
		if n < 0 || d < 0 {
			continue
		}
		var xs []float64
		for r := range added[n] {
			xs = append(xs, added[n][r]/added[d][r])
		}
		reportSpread(b, xs, pair[0]+"/"+pair[1]+"-added"+suffix)
	}
}

// reportCPUPerRequest stops the servers and reports the CPU time per
// request of each middle, which a shared machine's load does not skew as
// it skews wall time, and the tap's against the proxy's.
func reportCPUPerRequest(b *testing.B, ms []benchMiddle, servers []*benchServer, requests int) {
	perReq := make([]float64, len(ms))
	for i, s := range servers {
		s.stop()
		cpu, ok := s.ownCPU(ms[i].direct())
		if !ok {
			b.Fatalf("%s: the server did not say what CPU it spent", ms[i].name)
		}
		perReq[i] = float64(cpu.Nanoseconds()) / 1000 / float64(requests)
		if i > 0 {
			b.ReportMetric(perReq[i], ms[i].name+"-cpu-µs/req")
		}
	}
	t := slices.IndexFunc(ms, func(m benchMiddle) bool { return m.name == "tap" })
	p := slices.IndexFunc(ms, func(m benchMiddle) bool { return m.name == "proxy" })
	if perReq[p] > 0 {
		b.ReportMetric(perReq[t]/perReq[p], "tap/proxy-cpu")
	}
}

// floodBlock is the size of one round of BenchmarkTapFlood per middle.
const floodBlock = 64 << 20

// floodSample is what one middle cost in one round of BenchmarkTapFlood.
type floodSample struct {
	size       int           // bytes read
	read, stop time.Duration // from the start to the last byte read; the stop
	cpu        time.Duration // its own (see benchServer.ownCPU)
	rss        int64         // peak resident set, bytes (its own or its server's)
	judged     int           // a tap's: frames its judge saw (see framesRecorded)
}

// BenchmarkTapFlood: a server writing 1 KiB frames as fast as it can, one
// write each; b.N KiB read from it through each middle, in rounds of
// floodBlock each (every middle once a round). The rate is the host's:
// from the start of the process to the last byte read. Each process is
// then stopped, and waited for, before the next starts, so that none pays
// for another's work left over (the tap finishing its judging); the tap's
// stop is reported on its own.
//
// Reported: the goal's ratio tap/proxy-cpu (the tap's own CPU time against
// the proxy's, per round) with its spread, each middle's CPU time per MiB
// (median of the rounds), the wall ratios to direct, the mean time the
// tap took to exit once stopped, the tap's largest peak RSS of all rounds
// beside its soft memory limit (session/run's tapMemoryLimit), and the
// share of the flood its judge saw (tap-judged-%; it may fall behind, and
// what it passes over costs less: CPU per MiB depends on it).
func BenchmarkTapFlood(b *testing.B) {
	ms := benchMiddles()
	buf := make([]byte, 64<<10)
	run := func(m benchMiddle, size int) floodSample {
		t0 := time.Now()
		s := m.start(b, "tap-flood")
		defer s.stop()
		for n := 0; n < size; {
			k, err := s.out.Read(buf[:min(len(buf), size-n)])
			if err != nil {
				b.Fatal(err)
			}
			n += k
		}
		t1 := time.Now()
		s.stop()
		cpu, ok := s.ownCPU(m.direct())
		if !ok {
			b.Fatalf("%s: the server did not say what CPU it spent", m.name)
		}
		var rss int64
		if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss << 10
		}
		return floodSample{size: size, read: t1.Sub(t0), stop: time.Since(t1), cpu: cpu, rss: rss, judged: s.framesRecorded()}
	}
	for _, m := range ms { // warm up (and build linesman, outside the timing)
		run(m, floodBlock/16)
	}
	got := make([][]floodSample, len(ms))
	b.SetBytes(int64(len(ms)) << 10) // 1 KiB read through each middle per op
	b.ResetTimer()
	for left := b.N << 10; left > 0; left -= floodBlock {
		for i, m := range ms {
			got[i] = append(got[i], run(m, min(floodBlock, left)))
		}
	}
	b.StopTimer()
	reportFlood(b, ms, got)
}

// reportFlood reports BenchmarkTapFlood's figures from its rounds.
func reportFlood(b *testing.B, ms []benchMiddle, got [][]floodSample) {
	byName := func(name string) []floodSample {
		if i := slices.IndexFunc(ms, func(m benchMiddle) bool { return m.name == name }); i >= 0 {
			return got[i]
		}
		return nil
	}
	ratio := func(num, den string, of func(floodSample) float64, unit string) {
		n, d := byName(num), byName(den)
		if n == nil || d == nil {
			return
		}
		var xs []float64
		for r := range n {
			xs = append(xs, of(n[r])/of(d[r]))
		}
		reportSpread(b, xs, unit)
	}
	cpu := func(s floodSample) float64 { return s.cpu.Seconds() }
	ratio("tap", "proxy", cpu, "tap/proxy-cpu")
	ratio("base", "proxy", cpu, "base/proxy-cpu")
	ratio("tap", "base", cpu, "tap/base-cpu")
	ratio("proxy-same", "proxy", cpu, "proxy-same/proxy-cpu")
	for i, m := range ms {
		var perMiB []float64
		for _, s := range got[i] {
			perMiB = append(perMiB, float64(s.cpu.Microseconds())/(float64(s.size)/(1<<20)))
		}
		slices.Sort(perMiB)
		b.ReportMetric(perMiB[len(perMiB)/2], m.name+"-cpu-µs/MiB")
		if i > 0 {
			ratio(m.name, "direct", func(s floodSample) float64 { return 1 / s.read.Seconds() }, m.name+"/direct")
		}
	}
	var stops time.Duration
	for _, s := range byName("tap") {
		stops += s.stop
	}
	b.ReportMetric(float64(stops.Milliseconds())/float64(len(got[0])), "tap-stop-ms")
	for _, name := range []string{"tap", "base", "proxy"} {
		var peak int64
		var judged []float64
		for _, s := range byName(name) {
			peak = max(peak, s.rss)
			judged = append(judged, 100*float64(s.judged<<10)/float64(s.size))
		}
		if len(judged) > 0 && name != "proxy" {
			reportSpread(b, judged, name+"-judged-%")
		}
		if peak > 0 {
			b.ReportMetric(float64(peak)/(1<<20), name+"-peak-RSS-MiB")
		}
	}
	// The proxy's peak is the floor of all: a child's counts from its
	// parent's RSS when it started (see framesRecorded).
	b.ReportMetric(128, "tap-soft-limit-MiB")
}

// benchTapDir is where the benchmark's taps record; LINESMAN_BENCH_NOREC=1
// makes it unwritable, to see what recording costs.
func benchTapDir(b *testing.B) string {
	if os.Getenv("LINESMAN_BENCH_NOREC") != "" {
		return "/dev/null/taps"
	}
	return b.TempDir()
}

// BenchmarkTapRequestsInFlight: `linesman tap` between a host writing a
// million tools/call requests and a server that reads them all and answers
// none (qa-deaf), so that every one is in flight when the host closes
// stdin and the server exits. Reports the tap's peak RSS and anonymous
// memory against its soft memory limit (128 MiB), its CPU time, and how
// many frames it judged live (the rest its scribe passed over, unjudged, for
// the capture's reader to judge); checks that its capture holds every
// request forwarded. "flood": the host writes as fast as the pipe takes
// it; "paced": 2,000 requests every 20 ms, which its scribe keeps up with,
// so that the tracker holds every request in flight. LINESMAN_BENCH_REQUESTS
// changes the count.
//
//	go test -run '^$' -bench TapRequestsInFlight -benchtime 1x .
func BenchmarkTapRequestsInFlight(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("LINESMAN_BENCH_REQUESTS"))
	if n <= 0 {
		n = 1_000_000
	}
	var input []byte
	for i := 1; i <= n; i++ {
		input = fmt.Appendf(input, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{}}}`+"\n", i)
	}
	for _, paced := range []bool{false, true} {
		name := map[bool]string{false: "flood", true: "paced"}[paced]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				tapInFlight(b, input, n, paced)
			}
		})
	}
}

// tapInFlight runs one tap of BenchmarkTapRequestsInFlight and reports it.
// Its peak RSS is the tap's VmHWM (runPeakMemory), beside the largest of
// its anonymous memory (what its soft limit bounds; the rest are the pages
// of the executable): the rusage of a child Go
// started says the parent's size, since Go starts a child on the parent's
// memory until the exec, and the kernel keeps the larger.
func tapInFlight(b *testing.B, input []byte, n int, paced bool) {
	dir := b.TempDir()
	cmd := exec.Command(linesmanBinary(b), "tap", "--dir", dir, "--max-capture", "0", "--name", "deaf", "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=qa-deaf")
	cmd.Stdin = bytes.NewReader(input)
	if paced {
		cmd.Stdin = &pacedReader{rest: input, step: 2000 * (len(input) / n), pause: 20 * time.Millisecond}
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	peak, anon, err := runPeakMemory(b, cmd)
	if err != nil {
		b.Fatalf("tap: %v\n%s", err, errb.Bytes())
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	b.StopTimer()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(paths) != 1 {
		b.Fatalf("captures %v in %s", paths, dir)
	}
	c, err := capture.Open(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	if got := c.Log.Totals().Frames[wire.ClientToServer]; got != uint64(n) || c.Dropped != 0 {
		b.Fatalf("the capture holds %d client frames of %d (%d events dropped)", got, n, c.Dropped)
	}
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	b.ReportMetric(float64(anon)/(1<<20), "peak-anon-MB")
	b.ReportMetric(float64(bytes.Count(raw, []byte(`"type":"frame"`))), "judged-live")
	b.ReportMetric(float64(ru.Utime.Nano()+ru.Stime.Nano())/1e9, "cpu-s")
	b.ReportMetric(wall.Seconds(), "wall-s")
}

// pacedReader hands out rest a step at a time (cut at a line end), with a
// pause before each step but the first.
type pacedReader struct {
	rest    []byte
	step    int
	pause   time.Duration
	started bool
	left    int // of the current step
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		return 0, io.EOF
	}
	if p.left == 0 {
		if p.started {
			time.Sleep(p.pause)
		}
		p.started = true
		p.left = min(p.step, len(p.rest))
		if p.left < len(p.rest) {
			p.left += bytes.IndexByte(p.rest[p.left:], '\n') + 1
		}
	}
	k := copy(b[:min(len(b), p.left)], p.rest)
	p.rest, p.left = p.rest[k:], p.left-k
	return k, nil
}
