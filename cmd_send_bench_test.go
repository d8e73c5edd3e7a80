package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkOneShotSend measures one tools/list against the go-sdk server,
// interleaved in one run so that load on the machine falls on every
// variant alike, and reports ratios:
//
//   - send/minclient: `linesman send` (handshake as a user runs it, probe
//     included; report to a pipe) to a minimal go-sdk client doing the same
//     handshake and waiting for the server's exit (testdata/minclient);
//   - legacy/minclient: the same with --era legacy (the handshake the
//     minimal client makes, no probe);
//   - noop/send: linesman doing nothing but start (explain blank-line):
//     process start-up and package initialisation, the share of a one-shot
//     run that is not the conversation or the report.
//
// With LINESMAN_BENCH_BASELINE=/path/to/another/linesman (an older build),
// that binary's send runs interleaved too: base/minclient and send/base.
// With LINESMAN_BENCH_STATIC=1, linesman and the minimal client are both
// built with CGO_ENABLED=0 (static: no dynamic loader at each exec; see
// README, "Install").
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
	if os.Getenv("LINESMAN_BENCH_STATIC") == "1" {
		bin = filepath.Join(b.TempDir(), "linesman")
		build(bin, ".")
	}
	server := fakeServers.Command("headless-go-sdk")
	env := append(os.Environ(), fakeServers.Env("headless-go-sdk"))
	input := `{"jsonrpc":"2.0","method":"tools/list"}` + "\n"
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(input)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil && !strings.HasPrefix(filepath.Base(name), "linesman") {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return d
	}
	sendArgs := append([]string{"send", "--"}, server...)
	legacyArgs := append([]string{"send", "--era", "legacy", "--"}, server...)
	base := os.Getenv("LINESMAN_BENCH_BASELINE")
	var tMin, tSend, tLegacy, tNoop, tBase time.Duration
	b.ResetTimer()
	for range b.N {
		tMin += run(minclient, server...)
		tSend += run(bin, sendArgs...)
		tLegacy += run(bin, legacyArgs...)
		tNoop += run(bin, "explain", "blank-line")
		if base != "" {
			tBase += run(base, sendArgs...)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(tMin.Microseconds())/n/1000, "minclient-ms")
	b.ReportMetric(float64(tSend.Microseconds())/n/1000, "send-ms")
	b.ReportMetric(float64(tSend)/float64(tMin), "send/minclient")
	b.ReportMetric(float64(tLegacy)/float64(tMin), "legacy/minclient")
	b.ReportMetric(float64(tNoop)/float64(tSend), "noop/send")
	if base != "" {
		b.ReportMetric(float64(tBase)/float64(tMin), "base/minclient")
		b.ReportMetric(float64(tSend)/float64(tBase), "send/base")
	}
}
