package demo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests start the demo server as a real child process by re-running this
// test binary with LINESMAN_DEMO_CHILD set; TestMain then plays the child.
const (
	childEnv     = "LINESMAN_DEMO_CHILD"
	childArgsEnv = "LINESMAN_DEMO_ARGS"
)

var children = map[string]func() int{
	// server: `linesman demo-server` with the args in LINESMAN_DEMO_ARGS.
	"server": func() int {
		var args []string
		if a := os.Getenv(childArgsEnv); a != "" {
			args = strings.Fields(a)
		}
		return Run(args, os.Stdin, os.Stdout, os.Stderr)
	},
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		child, ok := children[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no child %q\n", name)
			os.Exit(97)
		}
		os.Exit(child())
	}
	os.Exit(m.Run())
}

// guard bounds every wait of a test: it is a failure deadline for a server
// that hangs, never a timing assertion.
const guard = 60 * time.Second

// proc is a demo server running as a child process, driven over pipes.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, one physical line each (with its "\n")
	exited chan struct{}
	err    error // of Wait, once exited is closed

	mu       sync.Mutex
	stderr   bytes.Buffer
	stderrCh chan struct{} // signalled (coalescing) when stderr grows
}

// startDemo starts `demo-server args...` as a child process.
func startDemo(t testing.TB, args ...string) *proc {
	t.Helper()
	return startChild(t, "server", args...)
}

func startChild(t testing.TB, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// Under -race every child would sleep a second at exit (the race
	// runtime's atexit_sleep_ms); the children need not.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), childEnv+"="+name, childArgsEnv+"="+strings.Join(args, " "), "GORACE="+gorace)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1024), exited: make(chan struct{}), stderrCh: make(chan struct{}, 1)}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		defer close(p.lines)
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer readers.Done()
		buf := make([]byte, 64<<10)
		for {
			n, err := stderr.Read(buf)
			if n > 0 {
				p.mu.Lock()
				p.stderr.Write(buf[:n])
				p.mu.Unlock()
				select {
				case p.stderrCh <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		readers.Wait() // Wait must not run before the pipes are drained
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			stdin.Close()
			// Drain stdout so the reader goroutine can finish.
			for range p.lines {
			}
			<-p.exited
		}
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", tail(p.Stderr(), 3000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Stderr returns everything the server wrote to stderr so far.
func (p *proc) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// waitStderr waits until stderr contains s.
func (p *proc) waitStderr(s string) {
	p.t.Helper()
	deadline := time.NewTimer(guard)
	defer deadline.Stop()
	for !strings.Contains(p.Stderr(), s) {
		select {
		case <-p.stderrCh:
		case <-p.exited:
			if !strings.Contains(p.Stderr(), s) {
				p.t.Fatalf("server exited (%v) before writing %q to stderr", p.err, s)
			}
		case <-deadline.C:
			p.t.Fatalf("no %q on stderr within %s", s, guard)
		}
	}
}

// send writes v as one JSON line to the server's stdin.
func (p *proc) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	p.sendRaw(string(b) + "\n")
}

func (p *proc) sendRaw(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatalf("write to server: %v", err)
	}
}

func (p *proc) closeStdin() { p.stdin.Close() }

// nextLine returns the next physical line of stdout, or nil at EOF.
func (p *proc) nextLine() []byte {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			return nil
		}
		return l
	case <-time.After(guard):
		p.t.Fatalf("no line on stdout within %s", guard)
		return nil
	}
}

// frame is a decoded server message.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	raw []byte
}

// next returns the next stdout line decoded; it fails on anything that is
// not one JSON message on one line.
func (p *proc) next() frame {
	p.t.Helper()
	l := p.nextLine()
	if l == nil {
		p.t.Fatalf("stdout ended; stderr:\n%s", tail(p.Stderr(), 2000))
	}
	var f frame
	if err := json.Unmarshal(l, &f); err != nil {
		p.t.Fatalf("stdout line is not a JSON message (%v): %q", err, truncate(l))
	}
	f.raw = l
	return f
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// wait waits for the server to exit after its stdin was closed and returns
// Wait's error.
func (p *proc) wait() error {
	p.t.Helper()
	// Drain stdout: the process cannot finish while it is blocked on it.
	deadline := time.After(guard)
	for {
		select {
		case _, ok := <-p.lines:
			if ok {
				continue
			}
			select {
			case <-p.exited:
				return p.err
			case <-deadline:
				p.t.Fatalf("server did not exit within %s", guard)
			}
		case <-deadline:
			p.t.Fatalf("server did not exit within %s", guard)
		}
	}
}

// exitCode returns the exit status in err (0 for nil, -1 for a signal).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -2
	}
	return 0
}

// signalOf returns the signal that killed the process, or 0.
func signalOf(err error) syscall.Signal {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return ws.Signal()
		}
	}
	return 0
}

// modernMeta is the _meta of a 2026-07-28 request.
func modernMeta(extra map[string]any) map[string]any {
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    ModernVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func req(id any, method string, params any) map[string]any {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	return m
}

// initialize makes the legacy handshake and returns the initialize result.
func (p *proc) initialize(version string) map[string]any {
	p.t.Helper()
	p.send(req(0, "initialize", map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "demo-test", "version": "1"},
	}))
	f := p.next()
	if string(f.ID) != "0" || f.Result == nil {
		p.t.Fatalf("initialize answer: %s", f.raw)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return decode(p.t, f.Result)
}

// callTool sends a legacy tools/call.
func (p *proc) callTool(id int, name string, args map[string]any) {
	p.t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	p.send(req(id, "tools/call", params))
}

func decode(t testing.TB, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", truncate(raw), err)
	}
	return m
}

// toolText returns the first text item of a tools/call result.
func resultText(t testing.TB, f frame) string {
	t.Helper()
	if f.Result == nil {
		t.Fatalf("not a result: %s", truncate(f.raw))
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(f.Result, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("no text content in %s", truncate(f.raw))
	}
	return r.Content[0].Text
}
