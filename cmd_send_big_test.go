package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveSendSink is headless-good for lines up to 1 MiB; a longer line it
// reads to its end and drops, holding none of it (a server's own memory is
// not what TestSendHoldsALineOnce measures).
func serveSendSink() {
	s := newFake("send-sink")
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		var line []byte
		chunk, err := in.ReadSlice('\n')
		for ; err == bufio.ErrBufferFull; chunk, err = in.ReadSlice('\n') {
			if len(line) < 1<<20 {
				line = append(line, chunk...)
			}
		}
		if line = append(line, chunk...); len(line) <= 1<<20 && len(bytes.TrimSpace(line)) > 0 {
			var m fakeMsg
			if json.Unmarshal(line, &m) == nil {
				s.handle(m)
			}
		}
		if err != nil {
			return
		}
	}
}

// TestSendHoldsALineOnce: send reads a line of 128 MiB from a file,
// completes it ("jsonrpc" inserted) and sends it holding it once, and the
// report counts every byte of it. linesman's peak resident memory stays
// under 2.5 times the line — the line, and the collector's headroom of as
// much again before the report reuses its memory — where it was 3.4 times
// (432 MiB): read twice over, decoded into a map three times to complete
// it, copied to complete it, to frame it and to queue it.
func TestSendHoldsALineOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a line of 128 MiB")
	}
	const size = 128 << 20
	input := filepath.Join(t.TempDir(), "big.jsonl")
	line := `{"method":"notifications/big","params":{"pad":"` + strings.Repeat("x", size) + `"}}` + "\n"
	if err := os.WriteFile(input, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	line = ""
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, linesmanBinary(t), append([]string{"send", "--json", "--file", input}, fakeServerArgs("send-sink")...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	peak, _ := runPeakRSS(t, cmd) // the status is the report's; what matters is the memory
	t.Logf("peak RSS %d MiB for a line of %d MiB", peak>>20, size>>20)
	if peak > 5*size/2 {
		t.Errorf("linesman send peaked at %d MiB for a line of %d MiB: the line is held more than once", peak>>20, size>>20)
	}
	var r jReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("report: %v\n%.2000s\nstderr:\n%s", err, out.Bytes(), errb.Bytes())
	}
	sent := false
	for _, f := range r.c2s() {
		sent = sent || f.Bytes > size
	}
	if !sent {
		t.Errorf("no frame of the report counts the big line's bytes:\n%.3000s", out.Bytes())
	}
}

// runPeakRSS runs cmd to its end and returns the peak resident memory of
// its own process (VmHWM, read until it exits: wait4's would be the
// largest of it and every process it waited for) and Wait's error.
func runPeakRSS(tb testing.TB, cmd *exec.Cmd) (peak int64, err error) {
	peak, _, err = runPeakMemory(tb, cmd)
	return peak, err
}

// runPeakMemory is runPeakRSS that also returns the largest anonymous
// resident memory seen (RssAnon, sampled every 5 ms): what the Go runtime
// holds (heap, stacks, its own), which its soft memory limit bounds, and
// not the pages of the executable that VmHWM counts too.
func runPeakMemory(tb testing.TB, cmd *exec.Cmd) (peak, anon int64, err error) {
	tb.Helper()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		field := func(b []byte, name string) int64 {
			_, rest, ok := strings.Cut(string(b), name)
			if !ok {
				return 0
			}
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
			if err != nil || bytes.Contains(b, []byte("State:\tZ")) {
				return
			}
			peak, anon = max(peak, field(b, "VmHWM:")), max(anon, field(b, "RssAnon:"))
			time.Sleep(5 * time.Millisecond)
		}
	}()
	err = cmd.Wait()
	<-polled
	return peak, anon, err
}
