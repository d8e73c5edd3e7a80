package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/session/tapctl"
	"linesman/wire"
)

// TestTapInterceptByController: a host (the Go SDK's client) drives the
// demo server through `linesman tap --intercept`; a controller on the
// tap's socket (view --follow's client) arms tool:echo, and the host's
// tools/call is held until the controller, reading the hold from the
// capture as a follower does, edits it and releases it; the server's
// answer is held in turn and released: the host gets the answer to the
// edited call, and the capture records every step and the edited frame
// as what crossed the wire (never the original).
// The socket is the owner's (0600) and gone after the tap; a line over
// the bound ends its connection.
func TestTapInterceptByController(t *testing.T) {
	bin := linesmanBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "tap", "--intercept", "--dir", dir, "--name", "icpt", "--", bin, "demo-server")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var errBuf lockedBuffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var capPath string
	if !pollUntil(10*time.Second, func() bool {
		taps, _ := capture.ListTaps(dir)
		if len(taps) == 1 {
			capPath = taps[0].Path
		}
		_, err := os.Stat(tapctl.SocketPath(capPath))
		return capPath != "" && err == nil
	}) {
		t.Fatalf("no controller socket in %s (stderr %q)", dir, errBuf.String())
	}
	if fi, _ := os.Stat(tapctl.SocketPath(capPath)); fi.Mode().Perm() != 0o600 {
		t.Errorf("the socket's mode is %v, want 0600", fi.Mode().Perm())
	}
	ctl, err := tapctl.Dial(capPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	if err := ctl.Arm("tool:echo"); err != nil {
		t.Fatal(err)
	}
	if err := ctl.Arm("dir:up"); err == nil {
		t.Error("the tap took a filter it cannot read")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "icpt-host", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, errBuf.String())
	}
	answer := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "original words"}})
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text += tc.Text
			}
		}
		answer <- text
	}()

	held := waitCaptureHeld(t, capPath, wire.ClientToServer)
	edited := strings.Replace(string(held.Frame.Raw()), "original words", "edited words", 1)
	if err := ctl.Release(held.Hold, []byte(edited)); err != nil {
		t.Fatal(err)
	}
	// The answer matches tool:echo too (its request is judged before the
	// filter is asked about it): held before the host, then released.
	answerHeld := waitCaptureHeld(t, capPath, wire.ServerToClient)
	if err := ctl.Release(answerHeld.Hold, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answer:
		if !strings.Contains(got, "edited words") {
			t.Fatalf("the host got %q, want the answer to the edited call", got)
		}
	case <-ctx.Done():
		raw, _ := os.ReadFile(capPath)
		t.Fatalf("the host got no answer (stderr %q)\n%s", errBuf.String(), raw)
	}
	if err := ctl.Release(held.Hold, nil); err == nil {
		t.Error("a second release of the same hold was taken")
	}
	tooLong(t, capPath)
	cs.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tap: %v (stderr %q)", err, errBuf.String())
	}
	if _, err := os.Stat(tapctl.SocketPath(capPath)); !os.IsNotExist(err) {
		t.Errorf("the socket outlived the tap: %v", err)
	}
	checkCaptureSteps(t, capPath)
}

// waitCaptureHeld reads the capture, as a follower does, until it holds a
// frame, and returns it.
func waitCaptureHeld(t *testing.T, path string, dir wire.Dir) eventlog.Hold {
	t.Helper()
	var held []eventlog.Hold
	if !pollUntil(20*time.Second, func() bool {
		c, err := capture.Open(path)
		if err == nil {
			held = c.Tracker.Held()
		}
		return len(held) == 1 && held[0].Dir == dir
	}) {
		raw, _ := os.ReadFile(path)
		t.Fatalf("the capture shows no held %s frame:\n%s", dir, raw)
	}
	if held[0].Frame == nil {
		t.Fatalf("held %+v", held[0])
	}
	return held[0]
}

// tooLong sends the controller socket a line over its bound: the tap says
// so and hangs up.
func tooLong(t *testing.T, capPath string) {
	t.Helper()
	conn, err := net.Dial("unix", tapctl.SocketPath(capPath))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	go conn.Write([]byte("edit 1 " + strings.Repeat("x", 17<<20) + "\n"))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	if !strings.Contains(line, "too long") {
		t.Errorf("a line over the bound was answered %q", line)
	}
}

// checkCaptureSteps: the capture has the hold and the edit, and the
// edited call (never the original) as a frame the host sent.
func checkCaptureSteps(t *testing.T, path string) {
	t.Helper()
	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	var crossed []string
	first, end := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, end) {
		switch {
		case ev.Type == eventlog.EventIntercept:
			steps = append(steps, string(ev.Intercept.Action))
		case ev.Type == eventlog.EventFrame && ev.Dir == wire.ClientToServer && ev.Frame.Msg.Method == "tools/call":
			crossed = append(crossed, string(ev.Frame.Raw()))
		}
	}
	if strings.Join(steps, ",") != "held,edited,held,released" {
		t.Errorf("intercept steps %v, want held, edited, held, released", steps)
	}
	if len(crossed) != 1 || !strings.Contains(crossed[0], "edited words") {
		t.Errorf("tools/call frames that crossed: %q", crossed)
	}
}
