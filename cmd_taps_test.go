package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"testing"
)

// liveTap is a `linesman tap` a test drives as its host.
type liveTap struct {
	in  io.WriteCloser
	out *syncBuffer
}

func startTap(t *testing.T, dir, name, fake string) *liveTap {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), "tap", "--dir", dir, "--name", name, "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER="+fake)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	tp := &liveTap{in: in, out: &syncBuffer{}}
	cmd.Stdout = tp.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close() // EOF ends the server, and the tap with it
		cmd.Wait()
	})
	return tp
}

// request sends one line and waits for the answer with its id.
func (tp *liveTap) request(t *testing.T, line, answerID string) {
	t.Helper()
	if _, err := io.WriteString(tp.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	waitText(t, tp.out, `"id":`+answerID)
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tap-test","version":"1"}}}`

// TestTwoTapsLiveAndViewFollow: two tapped servers at once are both listed
// live; view --follow NAME opens one in the inspector (a pty) and shows its
// frames as the host sends them; the composer is read-only and says why;
// T switches to the other tap, live too.
func TestTwoTapsLiveAndViewFollow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alpha := startTap(t, dir, "alpha", "headless-good")
	beta := startTap(t, dir, "beta", "headless-good")
	alpha.request(t, initLine, "1")
	beta.request(t, initLine, "1")

	status, stdout, _ := runBinaryEnv(t, []string{"LINESMAN_TAP_DIR=" + dir}, "taps")
	for _, name := range []string{"alpha", "beta"} {
		line := lineWith(stdout, name+" ")
		if status != exitOK || !bytes.Contains(line, []byte("live, running")) {
			t.Errorf("taps: %s not listed live:\n%s", name, stdout)
		}
	}

	term := startTerminalEnv(t, 120, 30, []string{"LINESMAN_TAP_DIR=" + dir}, "view", "--follow", "alpha")
	term.waitFor("tap alpha", "initialize")
	alpha.request(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "2")
	term.waitFor("tools/list")
	beta.request(t, `{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`, "2")
	if s := term.screen(); bytes.Contains([]byte(s), []byte("prompts/list")) {
		t.Errorf("alpha's view shows beta's traffic:\n%s", s)
	}
	// The composer is off, and says why.
	term.send("c")
	term.waitFor("its host drives the server")
	// T switches to the other live tap.
	term.send("T")
	term.waitFor("tap beta", "prompts/list")
	beta.request(t, `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`, "3")
	term.waitFor("resources/list")
}

// lineWith returns the first line of b that contains s.
func lineWith(b []byte, s string) []byte {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(l, []byte(s)) {
			return l
		}
	}
	return nil
}

// TestNewModesHelp: each mode of the tap has a --help on stdout, and
// usage errors say how to get it.
func TestNewModesHelp(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"tap", "taps", "wrap", "unwrap"} {
		status, stdout, stderr := runBinary(t, nil, mode, "--help")
		if status != exitOK || !bytes.Contains(stdout, []byte("Usage:")) || len(stderr) != 0 {
			t.Errorf("%s --help: %d, stdout %q, stderr %q", mode, status, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"tap"}, {"taps", "extra"}, {"wrap"}, {"unwrap", "--host", "nope"}} {
		status, stdout, stderr := runBinary(t, nil, args...)
		if status != exitUsage || len(stdout) != 0 || len(stderr) == 0 {
			t.Errorf("%q: %d, stdout %q, stderr %q; want a usage error on stderr only", args, status, stdout, stderr)
		}
	}
}

// TestViewFollowSwitchesToATapStartedLater: T reaches a tap that started
// after the view opened (a host starts its servers when it likes).
func TestViewFollowSwitchesToATapStartedLater(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alpha := startTap(t, dir, "alpha", "headless-good")
	alpha.request(t, initLine, "1")
	term := startTerminalEnv(t, 120, 30, []string{"LINESMAN_TAP_DIR=" + dir}, "view", "--follow", "alpha")
	term.waitFor("tap alpha", "initialize")
	beta := startTap(t, dir, "beta", "headless-good")
	beta.request(t, initLine, "1")
	beta.request(t, `{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`, "2")
	term.send("T")
	term.waitFor("tap beta", "prompts/list")
}
