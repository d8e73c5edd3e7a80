package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"linesman/capture"
	"linesman/session"
	"linesman/wire"
)

// floodFrame is the i-th notification the capture-flood server writes;
// about 8 KiB, so that records are big enough for a kill to land while one
// is being written.
func floodFrame(i int) string {
	return fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":{\"i\":%d,\"pad\":\"%s\"}}}\n",
		i, strings.Repeat(string(rune('a'+i%26)), 8<<10+i%512))
}

func init() {
	// capture-flood writes notifications as fast as its stdout takes them
	// and never answers anything; it dies when linesman does (the parent
	// death signal of the session), or at the latest when its stdout breaks.
	registerFake("capture-flood", func() {
		go func() { // keep reading stdin, as a server does
			s := bufio.NewScanner(os.Stdin)
			for s.Scan() {
			}
		}()
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for i := 1; ; i++ {
			if _, err := w.WriteString(floodFrame(i)); err != nil {
				os.Exit(0)
			}
		}
	})
}

// TestCaptureSurvivesSIGKILL runs the real binary, `linesman send --capture
// F` against a server flooding frames, kills linesman with SIGKILL in the
// middle of the flood, and opens F: every record before the torn one (if
// the kill cut one) is there, in order and byte for byte; the torn one is
// reported and skipped; and the server did not outlive linesman.
func TestCaptureSurvivesSIGKILL(t *testing.T) {
	bin := linesmanBinary(t)
	for round := range 2 {
		path := filepath.Join(t.TempDir(), "killed.jsonl")
		args := append([]string{"send", "--raw", "--timeout", "10m", "--capture", path}, fakeServerArgs("capture-flood")...)
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood"}}` + "\n")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the capture grow well into the flood (a guard, not a timing
		// assertion: the deadline only stops a hung test).
		deadline := time.Now().Add(time.Minute)
		for {
			if fi, err := os.Stat(path); err == nil && fi.Size() > int64(4+round*8)<<20 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the capture did not grow past a few MiB in a minute")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("linesman ended with %v, not by SIGKILL", err)
		}

		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := capture.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		complete := strings.Count(string(raw), "\n") - 1 // less the header
		if int(c.Records) != complete || c.Log.Len() != complete {
			t.Fatalf("%d records read back, %d events; the file has %d complete records", c.Records, c.Log.Len(), complete)
		}
		if torn := len(raw) - (strings.LastIndexByte(string(raw), '\n') + 1); c.Torn != torn {
			t.Errorf("torn %d, want %d", c.Torn, torn)
		}
		if fmt.Sprint(c.Header.Command) != fmt.Sprint([]string{testBinary, "-test.run=^$"}) {
			t.Errorf("header command %q", c.Header.Command)
		}

		// Every server frame, in order, exactly as the server wrote it.
		next, pid := 1, 0
		for _, ev := range c.Log.Range(1, uint64(complete)+1) {
			switch {
			case ev.Type == session.EventProcess && ev.Process.Pid != 0:
				pid = ev.Process.Pid
			case ev.Type == session.EventFrame && ev.Dir == wire.ServerToClient:
				if got := string(ev.Frame.Raw()); got != floodFrame(next) {
					t.Fatalf("server frame %d (seq %d): %.80q, want %.80q", next, ev.Seq, got, floodFrame(next))
				}
				next++
			}
		}
		if next < 100 {
			t.Fatalf("only %d server frames in the capture", next-1)
		}
		t.Logf("round %d: %d records intact (%d server frames), torn last record: %d bytes", round, complete, next-1, c.Torn)

		// The server must not outlive linesman (parent-death signal).
		if pid == 0 {
			t.Fatal("no process event with the server's pid")
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if gone(pid) {
				break
			}
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the server (pid %d) outlived linesman by 30 s", pid)
			}
		}
	}
}

// gone reports whether the process has exited (a zombie that nobody reaped
// yet counts as gone: it runs no more code).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name in parentheses.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}
