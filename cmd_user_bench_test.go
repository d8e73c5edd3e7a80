package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmarks of this file time what a user runs: whole processes of the
// built binary, each against the baseline a user would compare it with,
// interleaved round by round so that the load of the machine falls on every
// variant alike. Each reports the median of the per-round ratios and their
// spread (the lower and upper quartile, "-q1" and "-q3"), of wall time and
// of CPU time (user+system of the process, from its rusage: on a shared
// machine the steadier of the two). With LINESMAN_BENCH_BASELINE=/path/to/an
// older linesman, that binary runs interleaved too ("base" variants).
//
//	go test -run '^$' -bench 'OneShot|Ingest|CheckFrom' -benchtime 20x .

// sample is what one run of a process cost: wall time, its CPU time, and
// the CPU time of every process of the run (a pipeline's writer too).
type sample struct{ wall, cpu, all time.Duration }

// variant is one process a benchmark runs each round.
type variant struct {
	name string
	run  func(b *testing.B) sample
}

// interleave runs every variant once a round, b.N rounds, and returns the
// samples by variant name.
func interleave(b *testing.B, vs []variant) map[string][]sample {
	out := map[string][]sample{}
	b.ResetTimer()
	for range b.N {
		for _, v := range vs {
			out[v.name] = append(out[v.name], v.run(b))
		}
	}
	b.StopTimer()
	return out
}

// reportRatio reports num/den per round, wall and CPU: the median and the
// quartiles, named "num/den" (wall) and "num/den-cpu". The CPU ratio is
// fair when both rusages hold the same work: linesman's holds its server's
// (the containment helper waits for the server, and linesman for the
// helper), as a minimal host's holds its own.
func reportRatio(b *testing.B, got map[string][]sample, num, den string) {
	reportRatioOf(b, got, num, den, true)
}

func reportRatioOf(b *testing.B, got map[string][]sample, num, den string, withCPU bool) {
	n, d := got[num], got[den]
	if len(n) == 0 || len(d) == 0 {
		return
	}
	var wall, cpu, all []float64
	for i := range n {
		wall = append(wall, n[i].wall.Seconds()/d[i].wall.Seconds())
		if withCPU && d[i].cpu > 0 {
			cpu = append(cpu, n[i].cpu.Seconds()/d[i].cpu.Seconds())
		}
		if withCPU && d[i].all > d[i].cpu {
			all = append(all, n[i].all.Seconds()/d[i].all.Seconds())
		}
	}
	report := func(xs []float64, unit string) {
		if len(xs) == 0 {
			return
		}
		slices.Sort(xs)
		b.ReportMetric(xs[len(xs)/2], unit)
		b.ReportMetric(xs[len(xs)/4], unit+"-q1")
		b.ReportMetric(xs[(3*len(xs))/4], unit+"-q3")
	}
	report(wall, num+"/"+den)
	report(cpu, num+"/"+den+"-cpu")
	report(all, num+"/"+den+"-cpu-all") // only when den is a pipeline
}

// reportMedian reports the median wall and CPU milliseconds of a variant.
func reportMedian(b *testing.B, got map[string][]sample, name string) {
	var wall, cpu []time.Duration
	for _, s := range got[name] {
		wall, cpu = append(wall, s.wall), append(cpu, s.cpu)
	}
	if len(wall) == 0 {
		return
	}
	b.ReportMetric(float64(median(wall).Microseconds())/1000, name+"-ms")
	b.ReportMetric(float64(median(cpu).Microseconds())/1000, name+"-cpu-ms")
}

// runProcess runs name with args, stdin from in (nil: none), its output
// discarded, and returns its wall and CPU time. fatal says whether a failed
// exit ends the benchmark (linesman's exit status is its verdict).
func runProcess(b *testing.B, fatal bool, in []byte, name string, args ...string) sample {
	cmd := exec.Command(name, args...)
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil && (fatal || cmd.ProcessState == nil) {
		b.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	// The rusage of a process holds that of the children it waited for:
	// linesman's holds its server's (through the containment helper).
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return sample{wall: wall, cpu: cpu, all: cpu}
}

// runPiped runs writer | reader (reader's output discarded) and returns the
// wall time of both, the reader's CPU time (the reader's own cost) and the
// CPU time of both.
func runPiped(b *testing.B, writer, reader []string) sample {
	pr, pw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	w := exec.Command(writer[0], writer[1:]...)
	r := exec.Command(reader[0], reader[1:]...)
	w.Stdout, r.Stdin, r.Stdout = pw, pr, io.Discard
	start := time.Now()
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	if err := r.Start(); err != nil {
		b.Fatal(err)
	}
	pw.Close()
	pr.Close()
	werr, rerr := w.Wait(), r.Wait()
	wall := time.Since(start)
	if werr != nil || rerr != nil {
		b.Fatalf("%v | %v: %v, %v", writer, reader, werr, rerr)
	}
	cpu := r.ProcessState.UserTime() + r.ProcessState.SystemTime()
	return sample{wall: wall, cpu: cpu, all: cpu + w.ProcessState.UserTime() + w.ProcessState.SystemTime()}
}

// buildGo builds a Go package of this module into dir.
func buildGo(b *testing.B, dir, pkg string) string {
	out := filepath.Join(dir, filepath.Base(pkg))
	if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// baselineVariants adds the same run by LINESMAN_BENCH_BASELINE's binary,
// named "base-" + the variant's name, after each linesman variant.
func baselineVariants(vs []variant, mk func(bin string) func(*testing.B) sample) []variant {
	base := os.Getenv("LINESMAN_BENCH_BASELINE")
	out := slices.Clone(vs)
	if base == "" {
		return out
	}
	return append(out, variant{"base", mk(base)})
}

// BenchmarkOneShotUser: one-shot check and send against a go-sdk server
// (testdata/echoserver), each against a minimal go-sdk host doing the same
// handshake, listing the tools and waiting for the server's exit
// (testdata/minclient). Reported: check/minclient, send/minclient (and
// base/minclient, check/base with LINESMAN_BENCH_BASELINE: the baseline's
// check).
//
//	go test -run '^$' -bench OneShotUser -benchtime 40x .
func BenchmarkOneShotUser(b *testing.B) {
	bin := linesmanBinary(b)
	dir := b.TempDir()
	minclient := buildGo(b, dir, "./testdata/minclient")
	server := buildGo(b, dir, "./testdata/echoserver")
	list := []byte(`{"jsonrpc":"2.0","method":"tools/list"}` + "\n")
	check := func(bin string) func(*testing.B) sample {
		return func(b *testing.B) sample { return runProcess(b, false, nil, bin, "check", "--", server) }
	}
	vs := baselineVariants([]variant{
		{"minclient", func(b *testing.B) sample { return runProcess(b, true, nil, minclient, server) }},
		{"check", check(bin)},
		{"send", func(b *testing.B) sample { return runProcess(b, false, list, bin, "send", "--", server) }},
	}, check)
	got := interleave(b, vs)
	reportMedian(b, got, "minclient")
	reportMedian(b, got, "check")
	reportMedian(b, got, "base")
	reportRatio(b, got, "check", "minclient")
	reportRatio(b, got, "send", "minclient")
	reportRatio(b, got, "base", "minclient")
	reportRatio(b, got, "check", "base")
}

// benchFrames writes a file of notifications of exactly size bytes each,
// newline included, total bytes in all.
func benchFrames(b *testing.B, path string, size, total int) {
	var buf bytes.Buffer
	frame := make([]byte, 0, size)
	for i := 0; buf.Len() < total; i++ {
		frame = fmt.Appendf(frame[:0], `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"%10d","data":"`, i)
		for len(frame) < size-len("\"}}\n") {
			frame = append(frame, 'x')
		}
		buf.Write(append(frame, "\"}}\n"...))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
}

// benchMB is the size of the streams the ingest benchmarks read
// (LINESMAN_BENCH_MB, default 64 MiB: within the log's retention budget).
func benchMB() int {
	if n, err := strconv.Atoi(os.Getenv("LINESMAN_BENCH_MB")); err == nil && n > 0 {
		return n
	}
	return 64
}

// BenchmarkIngestUser: linesman check reading a server that floods its
// stdout with notifications (dd writing a file of them, bs= bytes a write),
// against cat reading the same dd: frames of 1 KiB written in 64 KiB
// batches and one a write, frames of 64 KiB one a write and in 1 MiB
// batches. Reported per stream: check/cat (wall, both ends of the pipe),
// check/cat-cpu (CPU: linesman's, which holds its server's, dd's, against
// cat's own) and check/cat-cpu-all (CPU of both ends: linesman's, dd's
// in it, against dd's and cat's).
//
//	go test -run '^$' -bench IngestUser -benchtime 5x .
func BenchmarkIngestUser(b *testing.B) {
	bin := linesmanBinary(b)
	dir := b.TempDir()
	total := benchMB() << 20
	for _, c := range []struct {
		name        string
		frame, bs   int
		frameFileOf string
	}{
		{"1KiB-batched", 1 << 10, 64 << 10, "1k"},
		{"1KiB-perframe", 1 << 10, 1 << 10, "1k"},
		{"64KiB-batched", 64 << 10, 1 << 20, "64k"},
		{"64KiB-perframe", 64 << 10, 64 << 10, "64k"},
	} {
		path := filepath.Join(dir, c.frameFileOf+".jsonl")
		if _, err := os.Stat(path); err != nil {
			benchFrames(b, path, c.frame, total)
		}
		dd := []string{"dd", "if=" + path, "bs=" + strconv.Itoa(c.bs), "status=none"}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(total))
			check := func(bin string) func(*testing.B) sample {
				return func(b *testing.B) sample {
					return runProcess(b, false, nil, bin, append([]string{"check", "--"}, dd...)...)
				}
			}
			got := interleave(b, baselineVariants([]variant{
				{"cat", func(b *testing.B) sample { return runPiped(b, dd, []string{"cat"}) }},
				{"check", check(bin)},
			}, check))
			reportRatio(b, got, "check", "cat")
			reportRatio(b, got, "base", "cat")
			reportRatio(b, got, "check", "base")
		})
	}
}

// BenchmarkCheckFromUser: linesman check --from reading a capture of 1 KiB
// frames (recorded here by check --capture), against cat reading the same
// file. Reported: from/cat, wall and CPU.
//
//	go test -run '^$' -bench CheckFromUser -benchtime 5x .
func BenchmarkCheckFromUser(b *testing.B) {
	bin := linesmanBinary(b)
	dir := b.TempDir()
	frames := filepath.Join(dir, "frames.jsonl")
	benchFrames(b, frames, 1<<10, benchMB()<<20)
	capture := filepath.Join(dir, "capture.jsonl")
	runProcess(b, false, nil, bin, "check", "--capture", capture, "--", "cat", frames)
	st, err := os.Stat(capture)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	from := func(bin string) func(*testing.B) sample {
		return func(b *testing.B) sample { return runProcess(b, false, nil, bin, "check", "--from", capture) }
	}
	got := interleave(b, baselineVariants([]variant{
		{"cat", func(b *testing.B) sample { return runProcess(b, true, nil, "cat", capture) }},
		{"from", from(bin)},
	}, from))
	reportMedian(b, got, "from")
	reportRatio(b, got, "from", "cat")
	reportRatio(b, got, "base", "cat")
	reportRatio(b, got, "from", "base")
}
