package main

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// faultHost is a host on raw pipes: it talks to `linesman tap --fault
// SPEC -- linesman demo-server` and keeps every line it is given.
type faultHost struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
}

func startFaultHost(t *testing.T, dir, spec string) *faultHost {
	t.Helper()
	bin := linesmanBinary(t)
	cmd := exec.Command(bin, "tap", "--dir", dir, "--name", "fault", "--fault", spec, "--", bin, "demo-server")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &faultHost{cmd: cmd, in: in, lines: make(chan []byte, 64)}
	go func() {
		br := bufio.NewReader(out)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				h.lines <- l
			}
			if err != nil {
				close(h.lines)
				return
			}
		}
	}()
	return h
}

// answer waits up to d for the line that answers id (or any line that is
// not a message, when id is ""); nil when none came.
func (h *faultHost) answer(id string, d time.Duration) []byte {
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-h.lines:
			if !ok {
				return nil
			}
			m, _ := wire.Classify(bytes.TrimRight(l, "\n"))
			if (id == "" && m.Kind != wire.KindResult) || (id != "" && m.ID.String() == id) {
				return l
			}
		case <-timeout:
			return nil
		}
	}
}

const (
	faultInit   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}` + "\n"
	faultInited = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	faultCall   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}` + "\n"
	faultWaitUp = 20 * time.Second
)

// TestTapFaults injects each kind of fault through the tap between a host
// and the demo server, and checks what the host saw, that the capture
// logs the fault as linesman's, and that the judge charges the server for
// none of it: no warning or error, and the server's answer tracked as it
// really came.
func TestTapFaults(t *testing.T) {
	for _, tc := range []struct {
		spec string
		saw  func(answer []byte, took time.Duration) bool // what the host saw of the call
		kind eventlog.FaultKind
	}{
		{"delay:800ms@tools/call:echo", func(a []byte, took time.Duration) bool {
			return bytes.Contains(a, []byte("hi")) && took >= 800*time.Millisecond
		}, eventlog.FaultDelay},
		{"drop@tools/call", func(a []byte, _ time.Duration) bool { return a == nil }, eventlog.FaultDrop},
		{"error:-32000:busy@tools/call", func(a []byte, _ time.Duration) bool {
			return bytes.Contains(a, []byte(`"code":-32000,"message":"busy"`))
		}, eventlog.FaultError},
		{"truncate@tools/call", func(a []byte, _ time.Duration) bool {
			return a != nil && !bytes.HasSuffix(bytes.TrimSpace(a), []byte("}"))
		}, eventlog.FaultTruncate},
		{"corrupt@tools/call", func(a []byte, _ time.Duration) bool { return bytes.Contains(a, []byte{0xff, 0xfe}) }, eventlog.FaultCorrupt},
		{"stray@tools/call#1", func(a []byte, _ time.Duration) bool {
			return strings.HasPrefix(string(a), "linesman: an injected stray line")
		}, eventlog.FaultStray},
		{"close-stdout@tools/call", func(a []byte, _ time.Duration) bool { return a == nil }, eventlog.FaultCloseStdout},
		{"kill:SIGKILL@tools/call", func(a []byte, _ time.Duration) bool { return a == nil }, eventlog.FaultKill},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			dir := t.TempDir()
			h := startFaultHost(t, dir, tc.spec)
			io.WriteString(h.in, faultInit)
			if h.answer("1", faultWaitUp) == nil {
				t.Fatal("no answer to initialize")
			}
			start := time.Now()
			io.WriteString(h.in, faultInited+faultCall)
			want := "2"
			if tc.kind == eventlog.FaultStray || tc.kind == eventlog.FaultTruncate || tc.kind == eventlog.FaultCorrupt {
				want = "" // the line as it came, not a message
			}
			wait := 5 * time.Second
			if tc.kind == eventlog.FaultDrop || tc.kind == eventlog.FaultCloseStdout || tc.kind == eventlog.FaultKill {
				wait = 1500 * time.Millisecond
			}
			a := h.answer(want, wait)
			if !tc.saw(a, time.Since(start)) {
				t.Errorf("the host saw %q after %v", a, time.Since(start))
			}
			h.in.Close()
			h.cmd.Wait()
			c := tapCapture(t, dir)
			var faults int
			first, next := c.Log.Bounds()
			for seq := first; seq < next; seq++ {
				ev, _ := c.Log.Get(seq)
				if ev.Type == eventlog.EventFault && ev.Fault.Kind == tc.kind && strings.HasPrefix(ev.Note, "injected: ") {
					faults++
				}
				for _, f := range findingsOfEvent(c.Tracker, &ev) {
					if f.Severity >= wire.SeverityWarning {
						t.Errorf("the server was charged with %s: %s", f.Code, f.Message)
					}
				}
			}
			if faults != 1 || c.Tracker.Faults() != 1 {
				t.Errorf("%d %s fault records (tracker: %d); want 1", faults, tc.kind, c.Tracker.Faults())
			}
			if tc.kind != eventlog.FaultKill && tc.kind != eventlog.FaultCloseStdout {
				if _, state, _ := jRequestState(c.Tracker, "tools/call"); state != eventlog.ReqAnswered {
					t.Errorf("tools/call %v; want the server's real answer tracked", state)
				}
			}
		})
	}
}

func findingsOfEvent(tr *eventlog.Tracker, ev *eventlog.Event) []wire.Finding {
	if ev.Type == eventlog.EventFinding {
		return []wire.Finding{ev.Finding.Finding}
	}
	if ev.Type == eventlog.EventFrame {
		return tr.FindingsOf(ev)
	}
	return nil
}

// jRequestState returns the tracked request of method and how it stands.
func jRequestState(c interface{ Requests() []eventlog.Request }, method string) (uint64, eventlog.RequestState, bool) {
	for _, r := range c.Requests() {
		if r.Method == method {
			return r.Seq, r.State, true
		}
	}
	return 0, 0, false
}
