package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

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

// TestDemoCheckIsClean: `linesman check -- linesman demo-server` exits 0 with
// no finding, in either era.
func TestDemoCheckIsClean(t *testing.T) {
	bin := linesmanBinary(t)
	for _, era := range []string{"auto", "legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			r, code, out := runLinesmanJSON(t, "", "check", "--json", "--era", era, "--", bin, "demo-server")
			if code != 0 || len(r.Findings) != 0 {
				t.Errorf("check exit %d, findings %v; want 0 and none\n%s", code, r.codes(), out)
			}
			want := map[string]string{"auto": "modern", "legacy": "legacy", "modern": "modern"}[era]
			if r.Era != want {
				t.Errorf("era = %q, want %q", r.Era, want)
			}
		})
	}
}

// TestDemoToolsTeachTheirFinding calls each tool through `linesman send` and
// checks it produces exactly the finding it teaches, no more.
func TestDemoToolsTeachTheirFinding(t *testing.T) {
	bin := linesmanBinary(t)
	for _, tc := range []struct {
		name  string
		flags []string // linesman send flags
		demo  []string // demo-server flags
		tool  string
		args  string
		// frames, when set, is sent instead of one tools/call of tool
		frames string
		want   []string
		check  func(t *testing.T, r demoReport)
	}{
		{name: "echo", tool: "echo"},
		{name: "print_debug isolated", tool: "print_debug", check: stderrHas("DEBUG: print_debug was called")},
		{name: "print_debug unisolated", tool: "print_debug", demo: []string{"--isolate=false"}, want: []string{"non-json-line"}},
		{name: "noisy_child isolated", tool: "noisy_child", check: stderrHas("noisy_child: hello from child process")},
		{name: "noisy_child unisolated", tool: "noisy_child", demo: []string{"--isolate=false"}, want: []string{"non-json-line"}},
		{name: "pretty_reply", tool: "pretty_reply", want: []string{"multi-line-frame"}},
		{name: "slow_count", tool: "slow_count", args: `{"seconds":1}`},
		// Cancelled, it stops and sends nothing more: no late answer, and
		// the server exits as soon as its stdin closes instead of counting
		// for an hour (which would take SIGTERM: ignored-stdin-eof).
		{name: "slow_count cancelled", frames: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_count","arguments":{"seconds":3600},"_meta":{"progressToken":"t7"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}` + "\n",
			check: func(t *testing.T, r demoReport) {
				if r.Process.EndedBy == nil || *r.Process.EndedBy != "stdin-close" {
					t.Errorf("process ended by %v, want stdin-close", r.Process.EndedBy)
				}
				stderrHas("slow_count (id 7) cancelled")(t, r)
			}},
		{name: "crash", tool: "crash", want: []string{"exited-during-request"}, check: func(t *testing.T, r demoReport) {
			if r.Process.ExitCode == nil || *r.Process.ExitCode != 3 {
				t.Errorf("exit code = %v, want 3", r.Process.ExitCode)
			}
			stderrHas("panic: crash tool called")(t, r)
		}},
		{name: "stderr_flood", tool: "stderr_flood", args: `{"mib":2}`},
		{name: "big_reply", tool: "big_reply", args: `{"mib":2}`, flags: []string{"--max-frame", "1048576"}, want: []string{"oversize-frame"}},
		{name: "big_reply under max-frame", tool: "big_reply", args: `{"mib":2}`},
		{name: "reuse_id", tool: "reuse_id", flags: []string{"--era", "legacy"}, want: []string{"reused-id"}},
		// In the 2026-07-28 era sending requests at all is the bigger fault.
		{name: "reuse_id modern", tool: "reuse_id", want: []string{"reused-id", "server-request-in-modern-era"}},
		// A client cannot tell a block-buffered reply from a missing one
		// until stdin closes: the request times out first, then the reply
		// comes out in the flush and is recognised as unflushed output.
		{name: "unflushed", tool: "unflushed", flags: []string{"--timeout", "2s"}, want: []string{"request-timeout", "unflushed-output"}},
		{name: "ignore_eof", tool: "ignore_eof", want: []string{"ignored-stdin-eof"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args == "" {
				args = "{}"
			}
			frame := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + args + `}}` + "\n"
			if tc.frames != "" {
				frame = tc.frames
			}
			cmdline := append([]string{"send", "--json"}, tc.flags...)
			cmdline = append(append(cmdline, "--", bin, "demo-server"), tc.demo...)
			r, _, out := runLinesmanJSON(t, frame, cmdline...)
			got := r.codes()
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("findings %v, want exactly %v\n%s", got, want, out)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func stderrHas(s string) func(t *testing.T, r demoReport) {
	return func(t *testing.T, r demoReport) {
		t.Helper()
		if !strings.Contains(strings.Join(r.Stderr, "\n"), s) {
			t.Errorf("stderr lacks %q:\n%s", s, strings.Join(r.Stderr, "\n"))
		}
	}
}
