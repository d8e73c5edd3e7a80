package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// recordings lists every recording in testdata the mock can play: the
// captures, the taps' and other tools' logs, the corpus conversations.
func recordings(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("capture", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".findings.json") {
			return err
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// serverFrame is a server frame's findings, keyed by its bytes with the id
// set aside (the mock rewrites it to the live request's).
type serverFrame struct {
	key   string
	codes []string
}

// judgedServerFrames returns the server frames of a recording that drew a
// warning or an error, and the codes the process drew (findings of no
// frame that concern the server).
func judgedServerFrames(t *testing.T, path string) (frames []serverFrame, process []string, all map[string][]string) {
	t.Helper()
	c, err := capture.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	all = map[string][]string{}
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		ev, ok := c.Log.Get(seq)
		if !ok {
			continue
		}
		switch {
		case ev.Type == eventlog.EventFrame && ev.Dir == wire.ServerToClient:
			k := frameKey(ev.Frame)
			var codes []string
			for _, f := range c.Tracker.FindingsOf(&ev) {
				if f.Severity >= wire.SeverityWarning {
					codes = append(codes, f.Code)
				}
			}
			all[k] = append(all[k], codes...)
			if len(codes) > 0 {
				frames = append(frames, serverFrame{k, codes})
			}
		case ev.Type == eventlog.EventFinding && ev.Finding.FrameSeq == 0 && ev.Finding.Dir == 0 && ev.Finding.Severity >= wire.SeverityWarning &&
			wire.PartyOf(ev.Finding.Code, ev.Finding.Dir, false) == wire.PartyServer:
			// Of the process (a finding with a direction and no frame
			// stands for bytes a host's log did not keep, e.g. Claude
			// Desktop's "Unexpected token": the mock has none to write),
			// and the server's: the recorded host's shutdown is not
			// check's.
			process = append(process, ev.Finding.Code)
		}
	}
	return frames, process, all
}

func frameKey(f *wire.Frame) string {
	var m map[string]any
	if json.Unmarshal(bytes.TrimSpace(f.Raw()), &m) != nil {
		return string(f.Raw())
	}
	delete(m, "id")
	b, _ := json.Marshal(m)
	return string(b)
}

// notReproducible are the codes a recorded server frame draws only
// against what the recorded client did, which check does not do again.
var notReproducible = map[string]string{
	// The answer is judged against the recorded client's malformed
	// request; check's requests are well formed.
	"malformed-request-answered": "judged against a malformed request check does not send",
	// The recording is of the modern era because its client said so;
	// check's era probe reads -32601 to server/discover as a legacy
	// server and falls back to initialize, so the era differs.
	"discover-not-implemented": "check's probe takes -32601 to server/discover for a legacy server",
}

// TestMockReproducesRecordedFindings runs `linesman check -- linesman mock
// FILE` for every recording in testdata and holds each finding the
// recorded server drew to the run: on every recorded server frame the mock
// played (the same JSON, the id aside), the same codes, but those of
// [notReproducible]. Frames check never elicits are left out and counted:
// answers to tools/call and the other requests check does not send (it
// calls no tools), and what the server said after them.
func TestMockReproducesRecordedFindings(t *testing.T) {
	bin := linesmanBinary(t)
	var played, kept, total, excluded int
	for _, path := range recordings(t) {
		frames, process, _ := judgedServerFrames(t, path)
		out := filepath.Join(t.TempDir(), "live.jsonl")
		runBinary(t, nil, "check", "--json", "--capture", out, "--timeout", "1s", "--stdin-wait", "300ms", "--sigterm-wait", "300ms", "--", bin, "mock", "--timing", "fast", path)
		_, liveProcess, live := judgedServerFrames(t, out)
		for _, code := range process {
			if !slices.Contains(liveProcess, code) {
				t.Errorf("%s: process finding %s not reproduced (live: %v)", path, code, liveProcess)
			}
		}
		for _, f := range frames {
			total += len(f.codes)
			got, ok := live[f.key]
			if !ok {
				continue
			}
			played++
			for _, code := range f.codes {
				switch {
				case notReproducible[code] != "":
					excluded++
				case slices.Contains(got, code):
					kept++
				default:
					t.Errorf("%s: %s not reproduced (live: %v)", path, code, got)
				}
			}
		}
	}
	t.Logf("%d recorded findings on server frames; %d on frames check elicited: %d reproduced, %d excluded", total, kept+excluded, kept, excluded)
	if kept < 30 {
		t.Errorf("only %d findings reproduced; the round trip proves little", kept)
	}
}

// recordedToolAnswers returns the text of each recorded tools/call's
// answer, by the tool's name and arguments as JSON.
func recordedToolAnswers(t *testing.T, path string) map[string]string {
	t.Helper()
	c, err := capture.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		ev, ok := c.Log.Get(seq)
		if !ok || ev.Type != eventlog.EventFrame || ev.Frame.Msg.Method != "tools/call" {
			continue
		}
		p, _ := c.Tracker.PairOf(seq)
		ans, ok := c.Log.Get(p.Response)
		if !ok {
			continue
		}
		var req struct {
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		var res struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		json.Unmarshal(ev.Frame.Raw(), &req)
		json.Unmarshal(ans.Frame.Raw(), &res)
		if len(res.Result.Content) > 0 {
			out[req.Params.Name+" "+canonicalJSON(req.Params.Arguments)] = res.Result.Content[0].Text
		}
	}
	return out
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	json.Unmarshal(raw, &v)
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMockUnderGoSDKHost is a host as the Go SDK ships it driving a mock
// of a real server's recorded session (@modelcontextprotocol/server-memory):
// its own initialize (another client's params), then the recorded tool
// calls, each answered as the real server answered.
func TestMockUnderGoSDKHost(t *testing.T) {
	path := filepath.Join("capture", "testdata", "interop", "npm-server-memory.capture")
	want := recordedToolAnswers(t, path)
	if len(want) < 3 {
		t.Fatalf("the recording has %d tool answers; want 3", len(want))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.Command(linesmanBinary(t), "mock", path)
	client := sdk.NewClient(&sdk.Implementation{Name: "mock-test-host", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "memory-server" {
		t.Errorf("server name %q; want the recorded memory-server", got)
	}
	for key, text := range want {
		name, args, _ := strings.Cut(key, " ")
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: a})
		if err != nil || len(res.Content) == 0 {
			t.Fatalf("tools/call %s: %v %v", name, res, err)
		}
		if got := res.Content[0].(*sdk.TextContent).Text; got != text {
			t.Errorf("tools/call %s: %q; want the recorded %q", name, got, text)
		}
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("mock ended %v; want exit 0 after stdin EOF, as recorded", cmd.ProcessState)
	}
}

// TestMockUnmatchedRequest: a request the recording has no match for gets
// a JSON-RPC error (-32602 for a recorded method with other params, -32601
// for a method never recorded) and a stderr line naming the closest
// recorded request.
func TestMockUnmatchedRequest(t *testing.T) {
	path := filepath.Join("capture", "testdata", "interop", "npm-server-memory.capture")
	in := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_nodes","arguments":{"query":"other"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"x","method":"prompts/get","params":{"name":"p"}}` + "\n"
	status, out, errOut := runBinary(t, []byte(in), "mock", "--timing", "fast", path)
	if status != 0 {
		t.Errorf("exit %d; want the recorded 0", status)
	}
	var answers []struct {
		ID    json.RawMessage
		Error struct {
			Code    int
			Message string
		}
	}
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var a struct {
			ID    json.RawMessage
			Error struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal(l, &a); err != nil {
			t.Fatalf("stdout line %q: %v", l, err)
		}
		answers = append(answers, a)
	}
	if len(answers) != 2 || string(answers[0].ID) != "7" || answers[0].Error.Code != -32602 ||
		string(answers[1].ID) != `"x"` || answers[1].Error.Code != -32601 {
		t.Fatalf("answers %+v; want -32602 to 7 and -32601 to \"x\"", answers)
	}
	for _, want := range []string{
		`closest recorded: tools/call {"arguments":{"query":"linesman"},"name":"search_nodes"}`,
		"no recorded answer to prompts/get",
	} {
		if !strings.Contains(string(errOut), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(answers[0].Error.Message, `closest recorded: tools/call`) {
		t.Errorf("the error does not name the closest request: %q", answers[0].Error.Message)
	}
}

// writeRecording writes a capture of records (each after the header, seq
// and at filled in) to a file and returns its path.
func writeRecording(t *testing.T, records ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"header","format":"linesman-capture","version":3,"linesman":"test","command":["server"],"cwd":"/","env":[],"start":"2026-01-01T00:00:00Z"}` + "\n")
	for i, r := range records {
		fmt.Fprintf(&b, `{"seq":%d,"at":%d,%s}`+"\n", i+1, (i+1)*1000, r)
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func frameRecord(dir, msg string) string {
	return fmt.Sprintf(`"type":"frame","dir":%q,"lines":[{"json":%s,"term":"lf","len":%d}]`, dir, msg, len(msg))
}

func processRecord(state, step string, code int, signal string) string {
	return fmt.Sprintf(`"type":"process","state":%q,"step":%q,"pid":9,"exitCode":%d,"signal":%q,"shutdownTookNs":0,"detail":""`, state, step, code, signal)
}

// TestMockEndsAsRecorded: a server that crashed on a call crashes there
// (its stderr, its code, stdin still open); one that held on past its
// stdin until SIGTERM does so too, and dies of it.
func TestMockEndsAsRecorded(t *testing.T) {
	bin := linesmanBinary(t)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","arguments":{}}}`
	crash := writeRecording(t,
		processRecord("running", "exit", 0, ""),
		frameRecord("c2s", call),
		`"type":"stderr","text":"Traceback: boom","term":"lf","len":15`,
		processRecord("exited", "exit", 3, ""))
	cmd := exec.Command(bin, "mock", crash)
	stdin, _ := cmd.StdinPipe()
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	fmt.Fprintln(stdin, strings.Replace(call, `"id":1`, `"id":42`, 1))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the mock did not crash on the call")
	}
	if cmd.ProcessState.ExitCode() != 3 || !strings.Contains(errOut.String(), "Traceback: boom") {
		t.Errorf("ended %v with stderr %q; want exit 3 after the recorded traceback", cmd.ProcessState, errOut.String())
	}

	hold := writeRecording(t,
		processRecord("running", "exit", 0, ""),
		processRecord("exiting", "stdin-close", 0, ""),
		processRecord("exiting", "sigterm", 0, ""),
		processRecord("exited", "sigterm", -1, "SIGTERM"))
	cmd = exec.Command(bin, "mock", hold)
	cmd.Stdin = strings.NewReader("") // EOF at once
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		t.Fatalf("the mock ended at EOF (%v); the recorded server held on until SIGTERM", cmd.ProcessState)
	case <-time.After(500 * time.Millisecond):
	}
	cmd.Process.Signal(syscall.SIGTERM)
	<-done
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("ended %v; want killed by SIGTERM", cmd.ProcessState)
	}
}
