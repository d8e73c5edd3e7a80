package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// The tap is judged the way a host would judge it: the official Go SDK's
// client drives a server directly and through `linesman tap`, and every
// byte each side saw must be the same.

// teeRC copies what is read through it into a buffer.
type teeRC struct {
	r   io.ReadCloser
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (t teeRC) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.mu.Lock()
	t.buf.Write(p[:n])
	t.mu.Unlock()
	return n, err
}

// Close leaves the pipe open, as CommandTransport does: the host reads on
// to EOF, so the server's last words are not met by a closed pipe.
func (t teeRC) Close() error { return nil }

// teeWC copies what is written through it into a buffer.
type teeWC struct {
	w   io.WriteCloser
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (t teeWC) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf.Write(p)
	t.mu.Unlock()
	return t.w.Write(p)
}
func (t teeWC) Close() error { return t.w.Close() }

// hostRun is what a host and its server saw in one session.
type hostRun struct {
	sent, received, stderr, serverGot []byte
	exit                              int
	tool                              string // the text the tool call returned
}

// serverStdinLog wraps a server command so that its stdin is also written
// to file: what the server got, byte for byte.
func serverStdinLog(file string, argv ...string) []string {
	return append([]string{"sh", "-c", `tee "$0" | exec "$@"`, file}, argv...)
}

// runHost runs argv (with env added) as the Go SDK client's server over
// IOTransport (the connection CommandTransport makes, with the pipes in our
// hands): initialize, tools/list, one tools/call, close stdin, wait.
func runHost(t *testing.T, env []string, tool string, argv ...string) hostRun {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent, received bytes.Buffer
	tr := &sdk.IOTransport{
		Reader:        teeRC{stdout, &mu, &received},
		Writer:        teeWC{stdin, &mu, &sent},
		MaxLineLength: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "tap-test-host", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr %q)", err, errBuf.String())
	}
	var run hostRun
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hello through the tap"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			run.tool += tc.Text
		}
	}
	cs.Close()
	io.Copy(io.Discard, teeRC{stdout, &mu, &received})
	err = cmd.Wait()
	run.exit = cmd.ProcessState.ExitCode()
	if err != nil && run.exit < 0 {
		t.Fatalf("wait: %v", err)
	}
	mu.Lock()
	run.sent, run.received = bytes.Clone(sent.Bytes()), bytes.Clone(received.Bytes())
	mu.Unlock()
	run.stderr = errBuf.Bytes()
	return run
}

// tapCapture returns the one capture in dir.
func tapCapture(t *testing.T, dir string) *capture.Capture {
	t.Helper()
	taps, err := capture.ListTaps(dir)
	if err != nil || len(taps) != 1 {
		t.Fatalf("taps in %s: %v, %v", dir, taps, err)
	}
	c, err := capture.Open(taps[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(taps[0].Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("capture mode: %v, %v; want 0600", fi.Mode(), err)
	}
	return c
}

// captured returns the bytes each way and of stderr, as the capture holds them.
func captured(c *capture.Capture) (c2s, s2c, stderr []byte) {
	first, next := c.Log.Bounds()
	for _, ev := range c.Log.Range(first, next) {
		switch ev.Type {
		case eventlog.EventFrame:
			if ev.Dir == wire.ClientToServer {
				c2s = append(c2s, ev.Frame.Raw()...)
			} else {
				s2c = append(s2c, ev.Frame.Raw()...)
			}
		case eventlog.EventStderr:
			stderr = append(stderr, ev.Stderr.Content...)
			stderr = append(stderr, ev.Stderr.Term.Bytes()...)
		}
	}
	return c2s, s2c, stderr
}

func TestTapIsTransparentToTheGoSDKClient(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	cases := []struct {
		name, tool, want string
		env              []string
		server           []string
		exit             int
	}{
		{"demo-server", "echo", "hello through the tap", nil, []string{bin, "demo-server"}, 0},
		{"tap-messy", "echo", "xxxx\ufffd\ufffd", []string{"LINESMAN_FAKE_SERVER=tap-messy"}, []string{testBinary, "-test.run=^$"}, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			dirLog, tapLog := filepath.Join(tmp, "direct.in"), filepath.Join(tmp, "tap.in")
			taps := filepath.Join(tmp, "taps")
			direct := runHost(t, tc.env, tc.tool, serverStdinLog(dirLog, tc.server...)...)
			tapArgs := append([]string{bin, "tap", "--dir", taps, "--name", tc.name, "--"}, serverStdinLog(tapLog, tc.server...)...)
			tapped := runHost(t, tc.env, tc.tool, tapArgs...)

			if direct.exit != tc.exit || tapped.exit != tc.exit {
				t.Errorf("exit status: direct %d, tapped %d; want %d", direct.exit, tapped.exit, tc.exit)
			}
			if direct.tool != tapped.tool || !strings.Contains(tapped.tool, tc.want) {
				t.Errorf("tool result: direct %.80q, tapped %.80q", direct.tool, tapped.tool)
			}
			sameBytes(t, "what the host sent", direct.sent, tapped.sent)
			sameBytes(t, "what the host received", direct.received, tapped.received)
			sameBytes(t, "what the host read on stderr", direct.stderr, tapped.stderr)
			got, _ := os.ReadFile(dirLog)
			sameBytes(t, "direct: what the server got vs what the host sent", direct.sent, got)
			got, _ = os.ReadFile(tapLog)
			sameBytes(t, "tapped: what the server got vs what the host sent", tapped.sent, got)

			c2s, s2c, stderr := captured(tapCapture(t, taps))
			sameBytes(t, "capture: client to server", tapped.sent, c2s)
			sameBytes(t, "capture: server to client", tapped.received, s2c)
			sameBytes(t, "capture: stderr", tapped.stderr, stderr)
		})
	}
}

// sameBytes fails when a and b differ, saying where.
func sameBytes(t *testing.T, what string, want, got []byte) {
	t.Helper()
	if bytes.Equal(want, got) {
		if len(want) == 0 {
			t.Errorf("%s: nothing at all", what)
		}
		return
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	t.Errorf("%s: %d bytes vs %d, first difference at %d: want %.60q, got %.60q",
		what, len(want), len(got), i, want[i:], got[i:])
}

// TestTapUnderCommandTransport is the host as the SDK ships it: the
// CommandTransport starts the tap, talks, closes stdin and waits.
func TestTapUnderCommandTransport(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	taps := t.TempDir()
	cmd := exec.Command(bin, "tap", "--dir", taps, "--name", "demo", "--", bin, "demo-server")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "tap-test-host", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "via CommandTransport"}})
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "via CommandTransport") {
		t.Fatalf("tools/call: %v %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("tap ended %v; want exit 0 after stdin EOF", cmd.ProcessState)
	}
	c := tapCapture(t, taps)
	tl, _ := capture.ListTaps(taps)
	tl[0].Describe()
	if tl[0].Live || tl[0].State != "exit 0" || tl[0].Name != "demo" {
		t.Errorf("tap listed as %+v; want demo, ended, exit 0", tl[0])
	}
	if c.Tracker.Era() == eventlog.EraUnknown {
		t.Errorf("the judge did not learn the era from the host's traffic")
	}
}

// TestTapPassesSignalsAndStatus: SIGTERM, SIGINT and SIGHUP reach the
// server's group; the tap ends with the server's status, a death by signal
// reported as 128+n.
func TestTapPassesSignalsAndStatus(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	cases := []struct {
		sig  syscall.Signal
		want int
	}{
		{syscall.SIGTERM, 7}, // the server handles it and exits 7
		{syscall.SIGINT, 128 + int(syscall.SIGINT)},
		{syscall.SIGHUP, 128 + int(syscall.SIGHUP)},
	}
	for _, tc := range cases {
		t.Run(tc.sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "tap", "--dir", t.TempDir(), "--", testBinary, "-test.run=^$")
			cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=tap-signal")
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			stdin, _ := cmd.StdinPipe() // kept open: only the signal ends it
			defer stdin.Close()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitText(t, stderr, "tap-signal: ready")
			cmd.Process.Signal(tc.sig)
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != tc.want {
				t.Errorf("exit status %d, want %d (stderr %q)", got, tc.want, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q; want nothing", stdout.String())
			}
		})
	}
}

// TestTapNeverWritesItsOwnBytes: a command that cannot start, and a tap
// directory that cannot be written, are said on stderr only.
func TestTapNeverWritesItsOwnBytes(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	t.Run("not found", func(t *testing.T) {
		cmd := exec.Command(bin, "tap", "--dir", t.TempDir(), "--", "no-such-server-anywhere")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		if cmd.ProcessState.ExitCode() != 127 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "no-such-server-anywhere") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 127, nothing, the reason", cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
		}
	})
	t.Run("unwritable dir", func(t *testing.T) {
		ro := filepath.Join(t.TempDir(), "file-not-dir")
		os.WriteFile(ro, nil, 0o600)
		cmd := exec.Command(bin, "tap", "--dir", filepath.Join(ro, "taps"), "--", bin, "demo-server")
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		if cmd.ProcessState.ExitCode() != 0 || !strings.HasPrefix(stdout.String(), `{"jsonrpc":"2.0","id":1,"result"`) {
			t.Errorf("exit %d, stdout %q: want the server's answer passed on", cmd.ProcessState.ExitCode(), stdout.String())
		}
		if n := strings.Count(stderr.String(), "linesman tap:"); n != 1 {
			t.Errorf("stderr has %d lines of linesman's, want 1: %q", n, stderr.String())
		}
	})
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitText waits until s holds want (bounded, so that a broken tap fails
// rather than hangs).
func waitText(t *testing.T, s *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %q; got %q", want, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTapHostClosesStdout: a host that stops reading (closes its end of
// the tap's stdout) is met as a direct pipe would meet it: the server's
// next write fails, here killing it by SIGPIPE, and the tap ends with that
// status instead of hanging or dying first.
func TestTapHostClosesStdout(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(linesmanBinary(t), "tap", "--dir", t.TempDir(), "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=tap-flood")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(out, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	out.Close()
	waitEnded(t, cmd, "the tap did not end after its host closed stdout")
	if got := cmd.ProcessState.ExitCode(); got != 128+int(syscall.SIGPIPE) {
		t.Errorf("exit status %d, want %d (the server's death by SIGPIPE)", got, 128+int(syscall.SIGPIPE))
	}
}

// TestTapCaptureLimit: past --max-capture the tap stops recording, with a
// note closing the capture and one line on stderr, and passes every byte
// on as before.
func TestTapCaptureLimit(t *testing.T) {
	t.Parallel()
	bin, dir := linesmanBinary(t), t.TempDir()
	cmd := exec.Command(bin, "tap", "--dir", dir, "--max-capture", "64KiB", "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=tap-echo")
	const n = 2000
	req := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("p", 1000) + `"}}` + "\n"
	cmd.Stdin = strings.NewReader(strings.Repeat(req, n))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr %q", err, stderr.String())
	}
	if got := strings.Count(stdout.String(), `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"); got != n {
		t.Errorf("%d answers passed on, want %d", got, n)
	}
	if lines := strings.Count(stderr.String(), "linesman tap:"); lines != 1 || !strings.Contains(stderr.String(), "size limit of 65536 bytes") {
		t.Errorf("stderr %q: want one line saying the capture reached its limit", stderr.String())
	}
	taps, err := capture.ListTaps(dir)
	if err != nil || len(taps) != 1 {
		t.Fatalf("taps: %v, %v", taps, err)
	}
	if fi, err := os.Stat(taps[0].Path); err != nil || fi.Size() > 64<<10+1024 {
		t.Errorf("capture size %v (%v), want at most the limit and its note", fi.Size(), err)
	}
	c, err := capture.Open(taps[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	_, next := c.Log.Bounds()
	if last, _ := c.Log.Get(next - 1); !strings.Contains(last.Note, "the capture stops here") {
		t.Errorf("the capture ends with %+v, want the note that it stops", last)
	}
}

// TestTapCaptureHoldsEveryFrame: a server floods a tap with more than its
// scribe's budget (16 MiB) and exits; whether or not the tap fell behind
// on this machine, the capture holds every frame the tap passed on, byte
// for byte in count, and reading it back judges them all.
func TestTapCaptureHoldsEveryFrame(t *testing.T) {
	t.Parallel()
	const n = 48 << 10 // 48 MiB of 1 KiB frames
	bin, dir := linesmanBinary(t), t.TempDir()
	cmd := exec.Command(bin, "tap", "--dir", dir, "--max-capture", "0", "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=tap-flood-n", "TAP_FLOOD_N="+strconv.Itoa(n))
	var host countingWriter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &host, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v; stderr %q", err, stderr.String())
	}
	if host.n != n<<10 {
		t.Fatalf("the host got %d bytes, want the %d the server wrote", host.n, n<<10)
	}
	taps, err := capture.ListTaps(dir)
	if err != nil || len(taps) != 1 {
		t.Fatalf("taps: %v, %v", taps, err)
	}
	// A small budget for the log read back: Totals count past it.
	c, err := capture.OpenWith(taps[0].Path, capture.OpenOptions{Retention: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	tot := c.Log.Totals()
	if s2c := tot.Frames[wire.ServerToClient]; s2c != n || tot.Bytes[wire.ServerToClient] != n<<10 || c.Dropped != 0 {
		t.Errorf("the capture holds %d frames (%d bytes) of the %d passed on; %d events dropped", s2c, tot.Bytes[wire.ServerToClient], n, c.Dropped)
	}
	notes, _ := c.Log.Notes()
	for _, ev := range notes {
		if strings.Contains(ev.Note, "tap fell behind") {
			t.Logf("(the tap fell behind: %s)", ev.Note)
		}
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

// TestTapCaptureKeepsNoSecret: a server started with secrets on its
// command line (the shapes hosts' configs hold) is tapped; the capture
// file, 'taps', 'export --format transcript' and the replay script hold
// none of them (the script names a variable to supply each), while the
// traffic is recorded whole; --keep-secrets keeps them.
func TestTapCaptureKeepsNoSecret(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	secrets := []string{"sk-live-0123456789abcdef", "--token=tok-in-a-flag-value", "https://me:pw-in-url@example.com/db"}
	for _, keep := range []bool{false, true} {
		taps := t.TempDir()
		argv := []string{"tap", "--dir", taps, "--name", "greeter"}
		if keep {
			argv = append(argv, "--keep-secrets")
		}
		argv = append(append(argv, "--", testBinary, "-test.run=^$", "--", "--api-key"), secrets...)
		cmd := exec.Command(bin, argv...)
		cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=headless-go-sdk")
		if got := greetThrough(t, cmd); got != "Hi host" {
			t.Fatalf("the host got %q", got)
		}
		l, _ := capture.ListTaps(taps)
		if len(l) != 1 {
			t.Fatalf("taps: %+v", l)
		}
		raw, _ := os.ReadFile(l[0].Path)
		_, listing, _ := runBinary(t, nil, "taps", "--dir", taps)
		_, transcript, _ := runBinary(t, nil, "export", l[0].Path, "--format", "transcript")
		_, script, _ := runBinary(t, nil, "export", l[0].Path, "--format", "replay")
		if !bytes.Contains(raw, []byte("Hi host")) || !bytes.Contains(transcript, []byte("Hi host")) {
			t.Errorf("the traffic was not recorded whole:\n%s", transcript)
		}
		for _, s := range secrets {
			for what, out := range map[string][]byte{"capture": raw, "transcript": transcript, "replay": script} {
				if bytes.Contains(out, []byte(s)) != keep {
					t.Errorf("keep-secrets %v: %s holds %q: %v\n%s", keep, what, s, !keep, out)
				}
			}
			if bytes.Contains(listing, []byte(s)) {
				t.Errorf("taps shows %q:\n%s", s, listing)
			}
		}
		if keep {
			continue
		}
		sh := exec.Command("sh", "-c", string(script))
		sh.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=headless-go-sdk")
		if out, err := sh.CombinedOutput(); err == nil || !bytes.Contains(out, []byte("set LINESMAN_SECRET_4")) {
			t.Errorf("the replay script ran without its secret (%v), or did not say which to set:\n%s\n%s", err, out, script)
		}
	}
}

// TestTapEndsAStoppedServer: a server that stopped itself (SIGSTOP) holds
// a SIGTERM pending until it is continued; the host's SIGTERM, passed on
// with a SIGCONT as a shell does for a stopped job, ends it and the tap —
// before, only SIGKILL ended the tap.
func TestTapEndsAStoppedServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(linesmanBinary(t), "tap", "--dir", t.TempDir(), "--", "sh", "-c", `touch "$D/ready"; kill -STOP $$; exit 0`)
	cmd.Env = append(os.Environ(), "D="+dir)
	stdin, _ := cmd.StdinPipe() // kept open: only the signal ends it
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if !pollUntil(time.Minute, func() bool {
		_, err := os.Stat(filepath.Join(dir, "ready"))
		return err == nil
	}) {
		t.Fatal("the server never started")
	}
	time.Sleep(100 * time.Millisecond) // let it stop itself
	cmd.Process.Signal(syscall.SIGTERM)
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	select {
	case <-ended:
	case <-time.After(hangGuard):
		t.Fatal("the tap of a stopped server did not end on SIGTERM")
	}
	if got := cmd.ProcessState.ExitCode(); got != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status %d, want %d (killed by the SIGTERM passed on)", got, 128+int(syscall.SIGTERM))
	}
}
