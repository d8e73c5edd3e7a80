package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkOneShotSend measures one tools/list against a minimal go-sdk
// server (testdata/echoserver, built here: the server of issue #12's
// measurement, which answers in a few milliseconds, so that linesman's own
// cost is not hidden behind a slow server's), interleaved in one run so that
// load on the machine falls on every variant alike, and reports ratios:
//
//   - send/minclient: `linesman send` (handshake as a user runs it, probe
//     included; report to a pipe) to a minimal go-sdk client doing the same
//     handshake and waiting for the server's exit (testdata/minclient);
//   - legacy/minclient: the same with --era legacy (the handshake the
//     minimal client makes, no probe);
//   - late-helper/minclient: send with LINESMAN_PRESPAWN=0 (the reaper
//     helper started when the server is, not at linesman's init);
//   - noop/send: linesman doing nothing but start (explain blank-line):
//     process start-up and package initialisation, the share of a one-shot
//     run that is not the conversation or the report.
//
// With LINESMAN_BENCH_BASELINE=/path/to/another/linesman (an older build),
// that binary's send runs interleaved too: base/minclient and send/base.
// With LINESMAN_BENCH_STATIC=1, linesman and the minimal client are both
// built with CGO_ENABLED=0 (static: no dynamic loader at each exec; see
// the README, "Install and first run").
//
// go test -run '^$' -bench OneShotSend -benchtime 20x .
func BenchmarkOneShotSend(b *testing.B) {
	bin := linesmanBinary(b)
	minclient := filepath.Join(b.TempDir(), "minclient")
	build := func(out, pkg string) {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		if os.Getenv("LINESMAN_BENCH_STATIC") == "1" {
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		}
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	build(minclient, "./testdata/minclient")
	echoserver := filepath.Join(b.TempDir(), "echoserver")
	build(echoserver, "./testdata/echoserver")
	if os.Getenv("LINESMAN_BENCH_STATIC") == "1" {
		bin = filepath.Join(b.TempDir(), "linesman")
		build(bin, ".")
	}
	input := `{"jsonrpc":"2.0","method":"tools/list"}` + "\n"
	run := func(env []string, name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(input)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil && !strings.HasPrefix(filepath.Base(name), "linesman") {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return d
	}
	sendArgs := []string{"send", "--", echoserver}
	legacyArgs := []string{"send", "--era", "legacy", "--", echoserver}
	late := []string{"LINESMAN_PRESPAWN=0"}
	base := os.Getenv("LINESMAN_BENCH_BASELINE")
	var tMin, tSend, tLegacy, tLate, tNoop, tBase []time.Duration
	b.ResetTimer()
	for range b.N {
		tMin = append(tMin, run(nil, minclient, echoserver))
		tSend = append(tSend, run(nil, bin, sendArgs...))
		tLegacy = append(tLegacy, run(nil, bin, legacyArgs...))
		tLate = append(tLate, run(late, bin, sendArgs...))
		tNoop = append(tNoop, run(nil, bin, "explain", "blank-line"))
		if base != "" {
			tBase = append(tBase, run(nil, base, sendArgs...))
		}
	}
	b.StopTimer()
	// Medians: one run slowed by the machine's other work moves a mean,
	// not a median.
	mMin, mSend := median(tMin), median(tSend)
	ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
	b.ReportMetric(float64(mMin.Microseconds())/1000, "minclient-ms")
	b.ReportMetric(float64(mSend.Microseconds())/1000, "send-ms")
	b.ReportMetric(ratio(mSend, mMin), "send/minclient")
	b.ReportMetric(ratio(median(tLegacy), mMin), "legacy/minclient")
	b.ReportMetric(ratio(median(tLate), mMin), "late-helper/minclient")
	b.ReportMetric(ratio(median(tNoop), mSend), "noop/send")
	if base != "" {
		b.ReportMetric(ratio(median(tBase), mMin), "base/minclient")
		b.ReportMetric(ratio(mSend, median(tBase)), "send/base")
	}
}
