package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"linesman/wire"
)

// The harness of the end-to-end tests: build the real linesman binary once,
// run it, decode its JSON reports, and watch the processes it leaves.

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

// jReport is the JSON report as a consumer decodes it, by the field names of
// the schema in issue 5 (a rename breaks this decoding, and the tests).
type jReport struct {
	Linesman        string          `json:"linesman"`
	Command         []string        `json:"command"`
	Era             string          `json:"era"`
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Process         struct {
		Pid        int      `json:"pid"`
		ExitCode   *int     `json:"exitCode"`
		Signal     *string  `json:"signal"`
		EndedBy    *string  `json:"endedBy"`
		ShutdownMs *float64 `json:"shutdownMs"`
	} `json:"process"`
	Stderr []string `json:"stderr"`
	Frames []jFrame `json:"frames"`
	// Requests keep their raw form too, to check that ms is a number.
	Requests []struct {
		Dir         string          `json:"dir"`
		ID          json.RawMessage `json:"id"`
		Method      string          `json:"method"`
		State       string          `json:"state"`
		Ms          *float64        `json:"ms"`
		Seq         uint64          `json:"seq"`
		ResponseSeq *uint64         `json:"responseSeq"`
	} `json:"requests"`
	Findings []jFinding `json:"findings"`
	Summary  struct {
		Errors   *int `json:"errors"`
		Warnings *int `json:"warnings"`
		Notes    *int `json:"notes"`
	} `json:"summary"`
	Error string `json:"error"`
}

type jFrame struct {
	Seq           uint64          `json:"seq"`
	Time          string          `json:"time"`
	Dir           string          `json:"dir"`
	Kind          string          `json:"kind"`
	ID            json.RawMessage `json:"id"`
	Method        *string         `json:"method"`
	Bytes         int64           `json:"bytes"`
	Lines         int             `json:"lines"`
	Findings      []string        `json:"findings"`
	Text          *string         `json:"text"`
	TextTruncated bool            `json:"textTruncated"`
	// InReplyTo is an addition to the schema.
	InReplyTo *struct {
		Seq    uint64 `json:"seq"`
		Method string `json:"method"`
	} `json:"inReplyTo"`
}

type jFinding struct {
	Code     string  `json:"code"`
	Severity string  `json:"severity"`
	Seq      *uint64 `json:"seq"`
	Dir      *string `json:"dir"`
	Message  string  `json:"message"`
	Fix      string  `json:"fix"`
}

// hangGuard only stops a hung linesman so that the test fails instead of
// the whole run timing out; no assertion depends on it.
const hangGuard = 2 * time.Minute

// runBinary runs the real linesman with args and stdin, and returns its exit
// status, stdout and stderr.
func runBinary(t *testing.T, stdin []byte, args ...string) (status int, stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, linesmanBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("linesman %s hung; stderr:\n%s", strings.Join(args, " "), errb.Bytes())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		status = ee.ExitCode()
	default:
		t.Fatalf("running linesman: %v", err)
	}
	return status, out.Bytes(), errb.Bytes()
}

// checkJSON runs `linesman check --json [flags] <fake server>` and decodes
// the report.
func checkJSON(t *testing.T, fake string, flags ...string) (jReport, int) {
	t.Helper()
	args := append(append([]string{"check", "--json"}, flags...), fakeServerArgs(fake)...)
	return decodeRun(t, nil, args...)
}

func decodeRun(t *testing.T, stdin []byte, args ...string) (jReport, int) {
	t.Helper()
	status, out, errOut := runBinary(t, stdin, args...)
	var r jReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("status %d, report is not JSON (%v):\n%s\nstderr:\n%s", status, err, out, errOut)
	}
	if r.Summary.Errors == nil || r.Summary.Warnings == nil || r.Summary.Notes == nil {
		t.Fatalf("summary lacks a count: %s", out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("report:\n%s\nstderr:\n%s", out, errOut)
		}
	})
	return r, status
}

// findings returns the report's findings with code, checking each one's
// severity against the registry's.
func (r *jReport) findings(t *testing.T, code string) []jFinding {
	t.Helper()
	var out []jFinding
	for _, f := range r.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s finding; codes: %v", code, r.codes())
	}
	return out
}

func (r *jReport) codes() []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Code)
	}
	return out
}

func (r *jReport) frame(t *testing.T, seq *uint64) jFrame {
	t.Helper()
	if seq == nil {
		t.Fatal("the finding points at no frame")
	}
	for _, f := range r.Frames {
		if f.Seq == *seq {
			return f
		}
	}
	t.Fatalf("no frame #%d in the report", *seq)
	return jFrame{}
}

// request returns the first client request with the given method.
func (r *jReport) request(t *testing.T, method string) (seq uint64, state string, responseSeq uint64) {
	t.Helper()
	for _, q := range r.Requests {
		if q.Dir == "c2s" && q.Method == method {
			if q.ResponseSeq != nil {
				responseSeq = *q.ResponseSeq
			}
			return q.Seq, q.State, responseSeq
		}
	}
	t.Fatalf("no %s request in the report", method)
	return 0, "", 0
}

func registrySeverity(t *testing.T, code string) string {
	t.Helper()
	info, ok := wire.Lookup(code)
	if !ok {
		t.Fatalf("%s is not in the registry", code)
	}
	return info.Severity.String()
}

// demoReport is the part of the JSON report (issue 5) these tests read.
type demoReport struct {
	Era     string `json:"era"`
	Process struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
		EndedBy  *string `json:"endedBy"`
	} `json:"process"`
	Stderr []string `json:"stderr"`
	Frames []struct {
		Seq      uint64          `json:"seq"`
		Dir      string          `json:"dir"`
		Kind     string          `json:"kind"`
		ID       json.RawMessage `json:"id"`
		Method   *string         `json:"method"`
		Findings []string        `json:"findings"`
	} `json:"frames"`
	Findings []struct {
		Code     string  `json:"code"`
		Severity string  `json:"severity"`
		Seq      *uint64 `json:"seq"`
		Message  string  `json:"message"`
	} `json:"findings"`
}

// codes returns the distinct finding codes of the report, sorted.
func (r *demoReport) codes() []string {
	var out []string
	for _, f := range r.Findings {
		if !slices.Contains(out, f.Code) {
			out = append(out, f.Code)
		}
	}
	slices.Sort(out)
	return out
}

// runLinesmanJSON runs the real binary with args, feeding stdin, and decodes
// its --json report.
func runLinesmanJSON(t *testing.T, stdin string, args ...string) (demoReport, int, string) {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("linesman %s did not finish; stderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var r demoReport
	if jerr := json.Unmarshal(stdout.Bytes(), &r); jerr != nil {
		t.Fatalf("linesman %s: report is not JSON (%v), exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), jerr, code, stdout.String(), stderr.String())
	}
	return r, code, stdout.String()
}

func stderrHas(s string) func(t *testing.T, r demoReport) {
	return func(t *testing.T, r demoReport) {
		t.Helper()
		if !strings.Contains(strings.Join(r.Stderr, "\n"), s) {
			t.Errorf("stderr lacks %q:\n%s", s, strings.Join(r.Stderr, "\n"))
		}
	}
}

func sendJSON(t *testing.T, fake string, input string, flags ...string) (jReport, int) {
	t.Helper()
	args := append(append([]string{"send", "--json"}, flags...), fakeServerArgs(fake)...)
	return decodeRun(t, []byte(input), args...)
}

func (r *jReport) c2s() []jFrame {
	var out []jFrame
	for _, f := range r.Frames {
		if f.Dir == "c2s" {
			out = append(out, f)
		}
	}
	return out
}

func frameMethod(f jFrame) string {
	if f.Method == nil {
		return ""
	}
	return *f.Method
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

var testBinary = os.Args[0]

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// linesmanBinary builds the real linesman binary once per test run and
// returns its path.
func linesmanBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "linesman-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "linesman")
		out, err := exec.Command("go", "build", "-o", builtPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

func errorsAs(err error, target any) bool { return err != nil && errors.As(err, target) }

// lockedBuffer is a bytes.Buffer that a child's output can be copied into
// while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitForPid waits until the fake server has written its helper's pid to
// mark; ended reports linesman's early exit.
func waitForPid(t *testing.T, mark string, ended <-chan error) int {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		if b, err := os.ReadFile(mark); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			// Whatever the outcome, the helper must not outlive the test.
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			return pid
		}
		select {
		case err := <-ended:
			t.Fatalf("linesman ended before the server was ready: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never wrote its helper's pid")
		}
	}
}

// alive reports whether pid is a process that has not exited (a zombie
// waiting for its parent counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) STATE ...: comm may hold spaces, so look after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitGone waits, bounded, for pid to exit.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) outlived linesman", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pollUntil polls cond every few milliseconds until it holds or bound
// passes; the bound only turns a hang into a failure.
func pollUntil(bound time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}
