package main

// End-to-end tests of `linesman check`: the real binary against real child
// servers that misbehave one way each (headless_fakes_test.go), asserting the
// JSON report a CI job would read.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHeadlessCheckFrameFindings: each misbehaviour that shows on a frame is
// reported with its code and severity, pointing at the frame that shows it,
// and sets the exit status.
func TestHeadlessCheckFrameFindings(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fake, code, severity string
		dir, kind            string // the frame pointed at
		status               int
		more                 func(t *testing.T, r jReport, f jFinding, fr jFrame)
	}{
		{fake: "headless-stray-start", code: "non-json-line", severity: "error", dir: "s2c", kind: "non-json", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				// It is the server's very first frame, before any answer.
				for _, x := range r.Frames {
					if x.Dir == "s2c" && x.Seq < fr.Seq {
						t.Errorf("frame #%d came before the stray print #%d", x.Seq, fr.Seq)
					}
				}
				if r.Era != "legacy" || !strings.Contains(string(r.ServerInfo), "stray-start") {
					t.Errorf("the handshake should still succeed: era %s serverInfo %s", r.Era, r.ServerInfo)
				}
			}},
		{fake: "headless-stray-call", code: "non-json-line", severity: "error", dir: "s2c", kind: "non-json", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				// Printed while tools/list was being handled: between the
				// request and its answer.
				req, state, resp := r.request(t, "tools/list")
				if !(req < fr.Seq && fr.Seq < resp) || state != "answered" {
					t.Errorf("stray #%d not between tools/list #%d and its answer #%d (%s)", fr.Seq, req, resp, state)
				}
			}},
		{fake: "headless-pretty", code: "multi-line-frame", severity: "error", dir: "s2c", kind: "result", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				if fr.Lines < 5 {
					t.Errorf("pretty frame has %d lines", fr.Lines)
				}
				if _, _, resp := r.request(t, "initialize"); resp != fr.Seq {
					t.Errorf("the pretty frame #%d should answer initialize (answered by #%d)", fr.Seq, resp)
				}
				if fr.InReplyTo == nil || fr.InReplyTo.Method != "initialize" {
					t.Errorf("inReplyTo = %+v", fr.InReplyTo)
				}
			}},
		{fake: "headless-child-stdout", code: "non-json-line", severity: "error", dir: "s2c", kind: "non-json", status: 1},
		{fake: "headless-duplicate-response", code: "duplicate-response", severity: "error", dir: "s2c", kind: "result", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				_, state, resp := r.request(t, "ping")
				if state != "answered" || resp >= fr.Seq {
					t.Errorf("ping %s by #%d; duplicate at #%d", state, resp, fr.Seq)
				}
			}},
		{fake: "headless-unknown-id", code: "unknown-response-id", severity: "error", dir: "s2c", kind: "result", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				if string(fr.ID) != "999" {
					t.Errorf("frame id = %s, want 999", fr.ID)
				}
			}},
		{fake: "headless-string-id", code: "id-type-mismatch", severity: "warning", dir: "s2c", kind: "result", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				var s string
				if json.Unmarshal(fr.ID, &s) != nil {
					t.Errorf("frame id %s is not a string", fr.ID)
				}
				for _, q := range r.Requests {
					if q.Method == "ping" && string(q.ID) != s {
						t.Errorf("ping id %s, answered by %s", q.ID, fr.ID)
					}
				}
			}},
		{fake: "headless-reused-ids", code: "reused-id", severity: "warning", dir: "s2c", kind: "request", status: 0,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				if string(fr.ID) != "7" || fr.Method == nil || *fr.Method != "ping" {
					t.Errorf("reused frame = %+v", fr)
				}
				first := 0
				for _, x := range r.Frames {
					if x.Dir == "s2c" && x.Kind == "request" && string(x.ID) == "7" && x.Seq < fr.Seq {
						first++
					}
				}
				if first != 1 {
					t.Errorf("%d earlier server requests with id 7, want 1", first)
				}
			}},
		{fake: "headless-invalid-utf8", code: "invalid-utf8", severity: "error", dir: "s2c", status: 1,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				if _, _, resp := r.request(t, "tools/list"); resp != fr.Seq {
					t.Errorf("invalid UTF-8 at #%d, tools/list answered by #%d", fr.Seq, resp)
				}
			}},
		{fake: "headless-crlf", code: "crlf-line-ending", severity: "note", dir: "s2c", status: 0,
			more: func(t *testing.T, r jReport, f jFinding, fr jFrame) {
				for _, x := range r.Frames {
					if x.Dir == "s2c" && !slices.Contains(x.Findings, "crlf-line-ending") {
						t.Errorf("s2c frame #%d lacks crlf-line-ending", x.Seq)
					}
				}
			}},
		{fake: "headless-batch", code: "batch-array", severity: "error", dir: "s2c", kind: "invalid", status: 1},
	} {
		t.Run(strings.TrimPrefix(c.fake, "headless-"), func(t *testing.T) {
			r, status := checkJSON(t, c.fake)
			if status != c.status {
				t.Errorf("exit status %d, want %d (findings %v)", status, c.status, r.codes())
			}
			if want := registrySeverity(t, c.code); c.severity != want {
				t.Fatalf("test wants %s for %s, the registry says %s", c.severity, c.code, want)
			}
			f := r.findings(t, c.code)[0]
			if f.Severity != c.severity {
				t.Errorf("%s severity %s, want %s", c.code, f.Severity, c.severity)
			}
			if f.Dir == nil || *f.Dir != c.dir || f.Message == "" {
				t.Errorf("finding = %+v", f)
			}
			fr := r.frame(t, f.Seq)
			if fr.Dir != c.dir || (c.kind != "" && fr.Kind != c.kind) || !slices.Contains(fr.Findings, c.code) {
				t.Errorf("frame pointed at = %+v, want dir %s kind %s with %s", fr, c.dir, c.kind, c.code)
			}
			if (*r.Summary.Errors > 0) != (status == 1) {
				t.Errorf("summary %d errors but status %d", *r.Summary.Errors, status)
			}
			if r.Process.ExitCode == nil || *r.Process.ExitCode != 0 || r.Process.EndedBy == nil || *r.Process.EndedBy != "stdin-close" {
				t.Errorf("a server that stops at EOF: process = %+v", r.Process)
			}
			if c.more != nil {
				c.more(t, r, f, fr)
			}
		})
	}
}

// TestHeadlessCheckExitAtOnce: a server that dies before speaking.
func TestHeadlessCheckExitAtOnce(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-exit-at-once")
	if status != 1 {
		t.Errorf("exit status %d, want 1", status)
	}
	f := r.findings(t, "exit-at-start")[0]
	if f.Severity != "error" || f.Seq != nil {
		t.Errorf("exit-at-start = %+v (want error, seq null)", f)
	}
	p := r.Process
	if p.ExitCode == nil || *p.ExitCode != 1 || p.Signal != nil || p.EndedBy == nil || *p.EndedBy != "exit" || p.Pid == 0 {
		t.Errorf("process = %+v", p)
	}
	if !slices.ContainsFunc(r.Stderr, func(l string) bool { return strings.Contains(l, "WEATHER_API_KEY is not set") }) {
		t.Errorf("stderr = %q", r.Stderr)
	}
	if r.Era != "unknown" {
		t.Errorf("era = %s, want unknown (no handshake happened)", r.Era)
	}
}

// TestHeadlessCheckShellExit3 is the issue's own example.
func TestHeadlessCheckShellExit3(t *testing.T) {
	t.Parallel()
	r, status := decodeRun(t, nil, "check", "--json", "--", "sh", "-c", "echo boom >&2; exit 3")
	if status != 1 {
		t.Errorf("exit status %d, want 1", status)
	}
	r.findings(t, "exit-at-start")
	if p := r.Process; p.ExitCode == nil || *p.ExitCode != 3 || p.EndedBy == nil || *p.EndedBy != "exit" {
		t.Errorf("process = %+v", p)
	}
	if !slices.Contains(r.Stderr, "boom") {
		t.Errorf("stderr = %q, want boom", r.Stderr)
	}
	if len(r.Command) != 3 || r.Command[0] != "sh" {
		t.Errorf("command = %q", r.Command)
	}

	// The human report says the same.
	status, out, _ := runBinary(t, nil, "check", "--", "sh", "-c", "echo boom >&2; exit 3")
	for _, want := range []string{"exited with code 3, on its own", "exit-at-start", "| boom", "exit status 1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("human report lacks %q:\n%s", want, out)
		}
	}
	if status != 1 {
		t.Errorf("human report: exit status %d", status)
	}
}

// TestHeadlessCheckCrashMidCall: the server dies while a request is open.
func TestHeadlessCheckCrashMidCall(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-crash-mid-call")
	if status != 1 {
		t.Errorf("exit status %d, want 1", status)
	}
	f := r.findings(t, "exited-during-request")[0]
	if f.Severity != "error" {
		t.Errorf("severity %s", f.Severity)
	}
	fr := r.frame(t, f.Seq)
	if fr.Dir != "c2s" || fr.Method == nil || *fr.Method != "tools/list" {
		t.Errorf("points at %+v, want the tools/list request", fr)
	}
	if _, state, _ := r.request(t, "tools/list"); state != "lost" {
		t.Errorf("tools/list state %s, want lost", state)
	}
	if p := r.Process; p.ExitCode == nil || *p.ExitCode != 2 || *p.EndedBy != "exit" {
		t.Errorf("process = %+v", p)
	}
	if !slices.Contains(r.Stderr, "KeyError: 'tools'") {
		t.Errorf("stderr = %q", r.Stderr)
	}
	if r.Error != "" {
		t.Errorf("the crash is the server's, not linesman's: error %q", r.Error)
	}
	if slices.Contains(r.codes(), "exit-at-start") {
		t.Errorf("the server had spoken: no exit-at-start")
	}
}

// TestHeadlessCheckIgnoresSIGTERM: the whole ladder, down to SIGKILL.
func TestHeadlessCheckIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-ignore-sigterm", "--stdin-wait", "200ms", "--sigterm-wait", "200ms")
	if status != 1 {
		t.Errorf("exit status %d, want 1", status)
	}
	for code, sev := range map[string]string{"ignored-stdin-eof": "warning", "needed-sigkill": "error"} {
		f := r.findings(t, code)[0]
		if f.Severity != sev || f.Seq != nil {
			t.Errorf("%s = %+v", code, f)
		}
	}
	p := r.Process
	if p.ExitCode != nil || p.Signal == nil || *p.Signal != "SIGKILL" || p.EndedBy == nil || *p.EndedBy != "sigkill" {
		t.Errorf("process = %+v", p)
	}
	if p.ShutdownMs == nil || *p.ShutdownMs < 400 {
		t.Errorf("shutdownMs = %v: the ladder waited 200 ms twice", p.ShutdownMs)
	}
}

// TestHeadlessCheckGrandchild: a helper process keeps stdout open after the
// server exits; the exit is still seen and linesman still ends.
func TestHeadlessCheckGrandchild(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-grandchild")
	f := r.findings(t, "pipe-held-after-exit")[0]
	if f.Severity != registrySeverity(t, "pipe-held-after-exit") || f.Seq != nil {
		t.Errorf("finding = %+v", f)
	}
	if p := r.Process; p.ExitCode == nil || *p.ExitCode != 0 {
		t.Errorf("process = %+v", p)
	}
	if status != 0 {
		t.Errorf("exit status %d, want 0 (a warning only; findings %v)", status, r.codes())
	}
}

// TestHeadlessCheckStderrEscapes: escape sequences on stderr are flagged,
// kept exact in the JSON, and never reach the terminal in the human report.
func TestHeadlessCheckStderrEscapes(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-stderr-escapes")
	f := r.findings(t, "stderr-escape-sequences")[0]
	if f.Severity != "warning" || f.Seq != nil {
		t.Errorf("finding = %+v", f)
	}
	if status != 0 {
		t.Errorf("exit status %d, want 0 (a warning)", status)
	}
	if !slices.Contains(r.Stderr, "\x1b[31mERROR\x1b[0m coloured log line") {
		t.Errorf("stderr = %q", r.Stderr)
	}

	_, out, _ := runBinary(t, nil, append([]string{"check"}, fakeServerArgs("headless-stderr-escapes")...)...)
	if i := bytes.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' }); i >= 0 {
		t.Errorf("control byte %q in the human report:\n%s", out[i], out)
	}
	for _, want := range []string{"| ␛[31mERROR␛[0m coloured log line", "| ␛]0;pwned␇title change", "stderr-escape-sequences"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("human report lacks %q:\n%s", want, out)
		}
	}
}

// TestHeadlessCheckUnflushed: answers held in a block buffer come out only
// when stdin closes; the handshake cannot finish, and the report says why.
func TestHeadlessCheckUnflushed(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-unflushed", "--timeout", "1500ms")
	if status != 1 {
		t.Errorf("exit status %d, want 1 (the handshake failed)", status)
	}
	f := r.findings(t, "unflushed-output")[0]
	if f.Severity != "warning" {
		t.Errorf("finding = %+v", f)
	}
	fr := r.frame(t, f.Seq)
	if fr.Dir != "s2c" || (fr.Kind != "result" && fr.Kind != "error") {
		t.Errorf("points at %+v, want an answer", fr)
	}
	if !strings.Contains(r.Error, "handshake") {
		t.Errorf("error = %q, want the handshake failure", r.Error)
	}
}

// TestHeadlessCheckBigReply: a 20 MiB answer is read whole when the limit
// allows, and kept truncated and flagged when it does not.
func TestHeadlessCheckBigReply(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-big-reply", "--max-frame", strconv.Itoa(64<<20))
	if status != 0 || len(r.Findings) != 0 {
		t.Errorf("status %d, findings %v", status, r.codes())
	}
	_, state, resp := r.request(t, "tools/list")
	big := r.frame(t, &resp)
	if state != "answered" || big.Bytes < 20<<20 || big.Lines != 1 {
		t.Errorf("tools/list %s by %+v", state, big)
	}

	r, status = checkJSON(t, "headless-big-reply")
	f := r.findings(t, "oversize-frame")[0]
	fr := r.frame(t, f.Seq)
	if f.Severity != "warning" || fr.Dir != "s2c" || fr.Bytes < 20<<20 {
		t.Errorf("oversize-frame %+v on %+v", f, fr)
	}
	if status != 0 {
		t.Errorf("exit status %d (a warning only)", status)
	}
}

// TestHeadlessCheckSDKServers: servers built with the official Go SDK and
// with mcp-go are conformant: exit status 0, no finding of severity error.
func TestHeadlessCheckSDKServers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ fake, name string }{
		{"headless-go-sdk", "go-sdk-greeter"},
		{"headless-mcp-go", "mcp-go-greeter"},
	} {
		t.Run(c.fake, func(t *testing.T) {
			r, status := checkJSON(t, c.fake)
			if status != 0 || *r.Summary.Errors != 0 {
				t.Errorf("exit status %d, findings %v", status, r.codes())
			}
			if !strings.Contains(string(r.ServerInfo), c.name) || r.Era == "unknown" || r.ProtocolVersion == "" {
				t.Errorf("era %s %s, serverInfo %s", r.Era, r.ProtocolVersion, r.ServerInfo)
			}
			if _, state, _ := r.request(t, "tools/list"); state != "answered" {
				t.Errorf("tools/list %s", state)
			}
			for _, q := range r.Requests {
				if q.Method == "tools/call" {
					t.Errorf("check must call no tools")
				}
			}
			if p := r.Process; p.ExitCode == nil || *p.ExitCode != 0 {
				t.Errorf("process = %+v", p)
			}
		})
	}
}

// TestHeadlessCheckSchema: the well-behaved fake, every field of the schema
// present and typed as promised.
func TestHeadlessCheckSchema(t *testing.T) {
	t.Parallel()
	status, out, _ := runBinary(t, nil, append([]string{"check", "--json"}, fakeServerArgs("headless-good")...)...)
	if status != 0 {
		t.Fatalf("status %d:\n%s", status, out)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"linesman", "command", "era", "protocolVersion", "serverInfo", "process", "stderr", "frames", "requests", "findings", "summary"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q", k)
		}
	}
	p := m["process"].(map[string]any)
	for _, k := range []string{"pid", "exitCode", "signal", "endedBy", "shutdownMs"} {
		if _, ok := p[k]; !ok {
			t.Errorf("process has no %q", k)
		}
	}
	var last time.Time
	for _, f := range m["frames"].([]any) {
		f := f.(map[string]any)
		if ts, err := time.Parse(time.RFC3339Nano, f["time"].(string)); err != nil || ts.Before(last) {
			t.Errorf("frame time %v after %v: %v", f["time"], last, err)
		} else {
			last = ts
		}
		for _, k := range []string{"seq", "time", "dir", "kind", "id", "method", "bytes", "lines", "findings"} {
			if _, ok := f[k]; !ok {
				t.Errorf("frame has no %q: %v", k, f)
			}
		}
	}
	for _, q := range m["requests"].([]any) {
		q := q.(map[string]any)
		for _, k := range []string{"dir", "id", "method", "state", "ms"} {
			if _, ok := q[k]; !ok {
				t.Errorf("request has no %q: %v", k, q)
			}
		}
		if _, ok := q["ms"].(float64); !ok {
			t.Errorf("ms of an ended request is %v", q["ms"])
		}
	}
	var r jReport
	json.Unmarshal(out, &r)
	var methods []string
	for _, q := range r.Requests {
		methods = append(methods, q.Method)
	}
	// Declared: tools and prompts (not resources); legacy era: ping.
	if want := []string{"server/discover", "initialize", "tools/list", "prompts/list", "ping"}; !slices.Equal(methods, want) {
		t.Errorf("requests %v, want %v", methods, want)
	}
}

// TestHeadlessCheckText: the human report of a misbehaving server.
func TestHeadlessCheckText(t *testing.T) {
	t.Parallel()
	status, out, _ := runBinary(t, nil, append([]string{"check"}, fakeServerArgs("headless-stray-start")...)...)
	if status != 1 {
		t.Errorf("status %d", status)
	}
	for _, want := range []string{
		"server:   stray-start 0.0.1",
		"era:      legacy, protocol version 2025-06-18",
		"errors (1):",
		"✗ non-json-line — A line on the wire that is not a JSON-RPC message",
		"s2c `Starting weather server v1.0 ...`",
		"fix: Send logs to stderr, never stdout.",
		"exited with code 0, after its stdin was closed",
		"1 error, 0 warnings, 0 notes — exit status 1",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestHeadlessCheckNotStarted: a command that cannot start is exit status 1
// with a reason, and --json still prints a report.
func TestHeadlessCheckNotStarted(t *testing.T) {
	t.Parallel()
	r, status := decodeRun(t, nil, "check", "--json", "--", "/nonexistent/mcp-server", "--stdio")
	if status != 1 || r.Error == "" || r.Process.Pid != 0 || r.Process.ExitCode != nil {
		t.Errorf("status %d, error %q, process %+v", status, r.Error, r.Process)
	}
	if len(r.Command) != 2 || r.Command[0] != "/nonexistent/mcp-server" {
		t.Errorf("command = %q", r.Command)
	}
	status, out, errOut := runBinary(t, nil, "check", "--", "/nonexistent/mcp-server")
	if status != 1 || !strings.Contains(string(errOut), "/nonexistent/mcp-server") || len(out) != 0 {
		t.Errorf("status %d, stdout %q, stderr %q", status, out, errOut)
	}
}

// TestHeadlessCheckFlags: the common flags reach the session: --era skips
// the probe, --cwd sets the server's directory, --capture records the run.
func TestHeadlessCheckFlags(t *testing.T) {
	t.Parallel()
	r, status := checkJSON(t, "headless-good", "--era", "legacy")
	if status != 0 || r.Era != "legacy" || len(r.Requests) == 0 || r.Requests[0].Method != "initialize" {
		t.Errorf("--era legacy: status %d era %s, first request %+v", status, r.Era, r.Requests)
	}
	r, status = checkJSON(t, "headless-go-sdk", "--era", "modern")
	if status != 0 || r.Era != "modern" {
		t.Errorf("--era modern: status %d era %s", status, r.Era)
	}

	dir := t.TempDir()
	r, _ = decodeRun(t, nil, "check", "--json", "--cwd", dir, "--", "sh", "-c", "pwd >&2")
	if real, _ := filepath.EvalSymlinks(dir); !slices.Contains(r.Stderr, dir) && !slices.Contains(r.Stderr, real) {
		t.Errorf("--cwd %s: the server ran in %q", dir, r.Stderr)
	}

	diag := filepath.Join(t.TempDir(), "diag.log")
	checkJSON(t, "headless-good", "--log", diag)
	if data, err := os.ReadFile(diag); err != nil || !bytes.Contains(data, []byte("linesman check: started")) ||
		!bytes.Contains(data, []byte("ended: exited, exit code 0")) {
		t.Errorf("--log: %v\n%s", err, data)
	}

	capture := filepath.Join(t.TempDir(), "run.jsonl")
	r, _ = checkJSON(t, "headless-stray-start", "--capture", capture)
	data, err := os.ReadFile(capture)
	if err != nil {
		t.Fatalf("--capture: %v", err)
	}
	if lines := bytes.Count(data, []byte("\n")); lines < len(r.Frames) || !bytes.Contains(data, []byte("Starting weather server")) {
		t.Errorf("capture has %d lines for %d frames:\n%.2000s", lines, len(r.Frames), data)
	}
}
