package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkCheckAllParallel: check --config … --all over 16 entries of the
// demo server, --parallel 4 against --parallel 1, interleaved in one run
// and reported as the ratio of their times (p1/p4: the speed-up the pool
// gives on this machine; a check mostly waits on pipes and process
// start-up, so the ratio can exceed the core count a little, or fall
// below it on a loaded machine).
func BenchmarkCheckAllParallel(b *testing.B) {
	bin := linesmanBinary(b)
	var entries []string
	for i := range 16 {
		entries = append(entries, fmt.Sprintf(`"demo%02d": {"command": %s, "args": ["demo-server"]}`, i, quoteJSON(bin)))
	}
	config := filepath.Join(b.TempDir(), ".mcp.json")
	if err := os.WriteFile(config, []byte(`{"mcpServers": {`+strings.Join(entries, ",\n")+`}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	run := func(parallel string) time.Duration {
		start := time.Now()
		out, err := exec.Command(bin, "check", "--config", config, "--all", "--parallel", parallel).CombinedOutput()
		d := time.Since(start)
		if err != nil || !strings.Contains(string(out), "16 passed") {
			b.Fatalf("--parallel %s: %v\n%s", parallel, err, out)
		}
		return d
	}
	var t1, t4 time.Duration
	b.ResetTimer()
	for range b.N {
		t1 += run("1")
		t4 += run("4")
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(t1.Seconds()/n, "s/parallel1")
	b.ReportMetric(t4.Seconds()/n, "s/parallel4")
	b.ReportMetric(float64(t1)/float64(t4), "p1/p4")
}
