package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

func init() {
	// ui-flood: about 50,000 notifications a second on stdout, forever
	// (until stdin closes).
	registerFake("ui-idle", func() {
		in := bufio.NewReader(os.Stdin)
		for {
			if _, err := in.ReadString('\n'); err != nil {
				os.Exit(0)
			}
		}
	})
	registerFake("ui-flood", func() {
		go func() {
			in := bufio.NewReader(os.Stdin)
			for {
				if _, err := in.ReadString('\n'); err != nil {
					os.Exit(0)
				}
			}
		}()
		line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}` + "\n"
		batch := []byte(strings.Repeat(line, 500))
		tick := time.NewTicker(10 * time.Millisecond) // 500 per 10 ms = 50,000/s
		for range tick.C {
			if _, err := os.Stdout.Write(batch); err != nil {
				os.Exit(0)
			}
		}
	})
}

// BenchmarkUIKeyLatency measures, on the real binary in a pseudo-terminal,
// the time from a key press (? toggles the full help) to the screen showing
// its effect: with an idle server, and while the server writes 50,000 frames
// a second. The flood/idle ratio is the figure behind "a flood must not make
// keys lag" (it includes the terminal emulator's work on the flood's redraws).
func BenchmarkUIKeyLatency(b *testing.B) {
	var idle float64
	for _, server := range []string{"ui-idle", "ui-flood"} {
		b.Run(server, func(b *testing.B) {
			args := append([]string{"--era", "legacy", "--timeout", "2s", "--no-handshake"}, fakeServerArgs(server)...)
			term := startTerminal(b, 120, 40, args...)
			term.poll = time.Millisecond
			if server == "ui-flood" {
				term.waitFor("notifications/message")
			} else {
				term.waitFor("Frames 0")
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				term.send("?")
				term.waitFor("Filter syntax")
				term.send("?")
				term.waitFor("▶ Frames")
			}
			b.StopTimer()
			ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(2*b.N)
			b.ReportMetric(ms, "ms/key")
			if server == "ui-idle" {
				idle = ms
			} else if idle > 0 {
				b.ReportMetric(ms/idle, "flood/idle")
			}
			term.send("q")
			term.send("q")
			term.wait()
		})
	}
}
