package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"linesman/session/fakeserver"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeServers is the one registry of the servers that end-to-end tests
// start as real child processes by re-running this test binary with
// LINESMAN_FAKE_SERVER=<name> (see [fakeserver.Registry]). Every fake server of the
// package is defined in this file: a small legacy-era server with hooks
// ([fakeMCP]) and one variant per way a real server misbehaves on stdio.
// None of them imports linesman's own packages, so they cannot share its
// mistakes.
var fakeServers = fakeserver.Registry{
	"capture-messy":               serveCaptureMessy,
	"capture-sink":                serveCaptureSink,
	"capture-flood":               serveCaptureFlood,
	"capture-roundtrip":           serveCaptureRoundtrip,
	"headless-good":               serveHeadlessGood,
	"send-sink":                   serveSendSink,
	"headless-parent-argv":        serveParentArgv,
	"headless-asks-roots":         serveAsksRoots,
	"headless-silent-list":        serveSilentList,
	"headless-stdout-closed":      serveStdoutClosed,
	"headless-deep-init":          serveDeepInit,
	"headless-self-stop":          serveSelfStop,
	"send-pinged":                 servePinged,
	"headless-stray-start":        serveHeadlessStrayStart,
	"headless-stray-call":         serveHeadlessStrayCall,
	"headless-pretty":             serveHeadlessPretty,
	"headless-child-stdout":       serveHeadlessChildStdout,
	"headless-exit-at-once":       serveHeadlessExitAtOnce,
	"headless-crash-mid-call":     serveHeadlessCrashMidCall,
	"headless-reused-ids":         serveHeadlessReusedIDs,
	"headless-duplicate-response": serveHeadlessDuplicateResponse,
	"headless-unknown-id":         serveHeadlessUnknownID,
	"headless-string-id":          serveHeadlessStringID,
	"headless-invalid-utf8":       serveHeadlessInvalidUTF8,
	"headless-crlf":               serveHeadlessCRLF,
	"headless-batch":              serveHeadlessBatch,
	"headless-big-reply":          serveHeadlessBigReply,
	"headless-ignore-sigterm":     serveHeadlessIgnoreSigterm,
	"headless-grandchild":         serveHeadlessGrandchild,
	"headless-stderr-escapes":     serveHeadlessStderrEscapes,
	"hostile":                     serveHostile,
	"headless-unflushed":          serveHeadlessUnflushed,
	"headless-no-answer":          serveHeadlessNoAnswer,
	"headless-go-sdk":             serveHeadlessGoSDK,
	"headless-mcp-go":             serveHeadlessMCPGo,
	"qa-helper-child":             serveHelperChild,
	"qa-deaf":                     serveDeaf,
	"tty-open":                    serveTTYOpen,
	"ui-misbehave":                serveUIMisbehave,
	"ui-idle":                     serveUIIdle,
	"ui-flood":                    serveUIFlood,
	"tap-messy":                   serveTapMessy,
	"tap-signal":                  serveTapSignal,
	"signal-default":              serveSignalDefault,
	"tap-echo":                    serveTapEcho,
	"tap-answer-all":              serveTapAnswerAll,
	"tap-flood":                   serveTapFlood,
	"tap-flood-n":                 serveTapFloodN,
	"tap-proxy":                   serveTapProxy,
	"drift":                       serveDrift,
	"slow-start":                  serveSlowStart,
	"slow-answer":                 serveSlowAnswer,
	"probe-held":                  serveProbeHeld,
	"latency-delays":              serveLatencyDelays,
}

// fakeServerArgs returns "-e LINESMAN_FAKE_SERVER=<name> -- <this test binary>",
// the tail of a linesman command line that inspects the named fake server.
func fakeServerArgs(name string) []string {
	return append([]string{"-e", fakeServers.Env(name), "--"}, fakeServers.Command(name)...)
}

func TestMain(m *testing.M) {
	code := fakeServers.Run(m)
	if builtPath != "" {
		os.RemoveAll(filepath.Dir(builtPath))
	}
	os.Exit(code)
}

// capture-messy answers request 1 with a pretty-printed result after a
// stray print, writes invalid UTF-8 and CRLF on stdout and escape
// sequences on stderr, then waits for stdin to close.
func serveCaptureMessy() {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		os.Exit(1)
	}
	os.Stderr.WriteString("\x1b[31mstarting\x1b[0m \x1b]0;title\x07\n")
	os.Stdout.WriteString("DEBUG: stray print\n")
	os.Stdout.WriteString("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"content\": []}\n}\n")
	os.Stdout.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"caf\xe9\"}}\r\n")
	io.Copy(io.Discard, in)
}

// capture-sink saves its stdin to $CAPTURE_SINK: the server a replay
// script is tested against.
func serveCaptureSink() {
	b, _ := io.ReadAll(os.Stdin)
	os.WriteFile(os.Getenv("CAPTURE_SINK"), b, 0o600)
}

// capture-flood writes notifications as fast as its stdout takes them
// and never answers anything; it dies when linesman does (the parent
// death signal of the session), or at the latest when its stdout breaks.
func serveCaptureFlood() {
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
}

// capture-roundtrip answers the first line it reads with everything a
// capture must keep byte for byte: escape sequences on stderr, invalid
// UTF-8, CRLF, a pretty-printed (multi-line) reply, an unterminated
// stderr line and a 20 MiB frame; then it waits for stdin to close.
func serveCaptureRoundtrip() {
	in := bufio.NewReader(os.Stdin)
	if _, err := in.ReadString('\n'); err != nil {
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	os.Stderr.WriteString("\x1b[1;31mERROR\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 \xc2\x9b\xff\r\n")
	out.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"caf\xe9 \xed\xa0\x80\"}}\n")
	out.WriteString("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\r\n")
	out.WriteString("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\n    \"content\": []\n  }\n}\n")
	out.WriteString("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"blob\":\"")
	for i := 0; i < roundTripBig/64; i++ {
		out.WriteString("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	}
	out.WriteString("\"}}\n")
	out.Flush()
	os.Stderr.WriteString("bye, no newline")
	io.Copy(io.Discard, in)
}

func serveHeadlessGood() { newFake("headless-good").serve() }

// serveParentArgv says on stderr who started it (its parent's argv, NULs as
// spaces), then serves as headless-good: which reaper helper started it.
func serveParentArgv() {
	argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", os.Getppid()))
	if err != nil {
		argv = []byte(err.Error())
	}
	fmt.Fprintf(os.Stderr, "parent argv: %s\n", strings.TrimSpace(strings.ReplaceAll(string(argv), "\x00", " ")))
	newFake("headless-good").serve()
}

// servePinged asks the client a ping as soon as it has answered initialize
// (a server checking that its client is alive), before initialized.
func servePinged() {
	s := newFake("pinged")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "initialize" {
			return false
		}
		s.reply(m.ID, s.initResult())
		s.send(map[string]any{"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
		return true
	}
	s.serve()
}

func serveHeadlessStrayStart() {
	fmt.Println("Starting weather server v1.0 ...")
	newFake("stray-start").serve()
}

func serveHeadlessStrayCall() {
	s := newFake("stray-call")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method == "tools/list" || m.Method == "tools/call" {
			s.writeLine([]byte("DEBUG: handling " + m.Method))
		}
		return false
	}
	s.serve()
}

func serveHeadlessPretty() {
	s := newFake("pretty")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "initialize" {
			return false
		}
		b, _ := json.MarshalIndent(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": s.initResult()}, "", "  ")
		s.writeLine(b)
		return true
	}
	s.serve()
}

func serveHeadlessChildStdout() {
	// A helper process inherits stdout and writes a banner to it.
	cmd := exec.Command("sh", "-c", "echo 'child process: ready'")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Run()
	newFake("child-stdout").serve()
}

func serveHeadlessExitAtOnce() {
	fmt.Fprintln(os.Stderr, "fatal: WEATHER_API_KEY is not set")
	os.Exit(1)
}

func serveHeadlessCrashMidCall() {
	s := newFake("crash")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method == "tools/list" {
			fmt.Fprintln(os.Stderr, "Traceback (most recent call last):")
			fmt.Fprintln(os.Stderr, "  File \"server.py\", line 12, in list_tools")
			fmt.Fprintln(os.Stderr, "KeyError: 'tools'")
			os.Exit(2)
		}
		return false
	}
	s.serve()
}

func serveHeadlessReusedIDs() {
	s := newFake("reused-ids")
	pings := 0
	s.afterInit = func(s *fakeMCP) {
		s.send(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "ping"})
	}
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method == "" && string(m.ID) == "7" {
			pings++
			if pings == 1 {
				// The same id again, for a new request.
				s.send(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "ping"})
			}
			return true
		}
		return false
	}
	s.serve()
}

func serveHeadlessDuplicateResponse() {
	s := newFake("duplicate")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method == "ping" {
			s.reply(m.ID, map[string]any{})
			s.reply(m.ID, map[string]any{})
			return true
		}
		return false
	}
	s.serve()
}

func serveHeadlessUnknownID() {
	s := newFake("unknown-id")
	s.afterInit = func(s *fakeMCP) {
		s.reply(json.RawMessage("999"), map[string]any{})
	}
	s.serve()
}

func serveHeadlessStringID() {
	s := newFake("string-id")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method == "ping" {
			s.reply(idText(m.ID), map[string]any{}) // "5" answering 5
			s.reply(m.ID, map[string]any{})
			return true
		}
		return false
	}
	s.serve()
}

func serveHeadlessInvalidUTF8() {
	s := newFake("invalid-utf8")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "tools/list" {
			return false
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": []any{
			map[string]any{"name": "cafe", "description": "CAFE-MARKER", "inputSchema": map[string]any{"type": "object"}}}}})
		// Latin-1 "café": the byte 0xE9 is not UTF-8.
		s.writeLine(bytes.Replace(b, []byte("CAFE-MARKER"), []byte("caf\xe9"), 1))
		return true
	}
	s.serve()
}

func serveHeadlessCRLF() {
	s := newFake("crlf")
	s.eol = "\r\n"
	s.serve()
}

func serveHeadlessBatch() {
	s := newFake("batch")
	s.afterInit = func(s *fakeMCP) {
		s.writeLine([]byte(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}}]`))
	}
	s.serve()
}

func serveHeadlessBigReply() {
	s := newFake("big-reply")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "tools/list" {
			return false
		}
		s.reply(m.ID, map[string]any{"tools": []any{map[string]any{
			"name": "big", "description": strings.Repeat("x", 20<<20), "inputSchema": map[string]any{"type": "object"}}}})
		return true
	}
	s.serve()
}

func serveHeadlessIgnoreSigterm() {
	signal.Ignore(syscall.SIGTERM)
	s := newFake("stubborn")
	s.atEOF = func(*fakeMCP) {
		fmt.Fprintln(os.Stderr, "stdin closed; staying up anyway")
		if mark := os.Getenv("HEADLESS_MARK"); mark != "" {
			os.WriteFile(mark, nil, 0o600)
		}
		for {
			time.Sleep(time.Hour)
		}
	}
	s.serve()
}

func serveHeadlessGrandchild() {
	// A background helper inherits stdout and outlives the server.
	cmd := exec.Command("sleep", "30")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot start the grandchild:", err)
		os.Exit(1)
	}
	newFake("grandchild").serve()
}

func serveHeadlessStderrEscapes() {
	fmt.Fprint(os.Stderr, "\x1b[31mERROR\x1b[0m coloured log line\n\x1b]0;pwned\x07title change\n\x1b[2Jclear screen\n")
	newFake("stderr-escapes").serve()
}

// hostile puts hostileText (see hostile_test.go) in every field a server
// controls: its name, version and protocol version, a tool's name,
// description and schema, error messages, a request of its own (method and
// id), a stray line on stdout with raw escape bytes, and stderr.
func serveHostile() {
	fmt.Fprintf(os.Stderr, "stderr: %s\n", hostileText)
	s := newFake(hostileText)
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		switch m.Method {
		case "initialize":
			s.writeLine([]byte("stray: " + hostileText))
			s.reply(m.ID, map[string]any{
				"protocolVersion": hostileText,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": hostileText, "version": hostileText},
				"instructions":    hostileText,
			})
			return true
		case "tools/list":
			s.send(map[string]any{"jsonrpc": "2.0", "id": hostileText, "method": hostileText})
			s.reply(m.ID, map[string]any{"tools": []any{map[string]any{
				"name": hostileText, "description": hostileText,
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					hostileText: map[string]any{"type": "string", "default": hostileText}}},
			}}})
			return true
		case "notifications/initialized", "":
			return false
		}
		s.fail(m.ID, -32000, hostileText)
		return true
	}
	s.serve()
}

func serveHeadlessUnflushed() {
	// Like Python writing to a pipe without -u: the answers sit in a
	// buffer until the process exits.
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	s := newFake("unflushed")
	s.out = w
	s.atEOF = func(*fakeMCP) {
		// The buffer goes out the moment stdin reaches EOF: linesman
		// must still see the burst as the answer to the close.
		w.Flush()
	}
	s.serve()
}

func serveHeadlessNoAnswer() {
	s := newFake("no-answer")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "tools/call" {
			return false
		}
		// Swallowed. Tell a waiting test that the request got here.
		if mark := os.Getenv("HEADLESS_MARK"); mark != "" {
			os.WriteFile(mark, nil, 0o600)
		}
		return true
	}
	s.serve()
}

func serveHeadlessGoSDK() {
	server := sdk.NewServer(&sdk.Implementation{Name: "go-sdk-greeter", Version: "v1.0.0"}, nil)
	type args struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	sdk.AddTool(server, &sdk.Tool{Name: "greet", Description: "say hi"},
		func(ctx context.Context, req *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Hi " + a.Name}}}, nil, nil
		})
	if err := server.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
	}
}

func serveHeadlessMCPGo() {
	s := mcpgoserver.NewMCPServer("mcp-go-greeter", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(mcpgomcp.NewTool("greet", mcpgomcp.WithDescription("say hi"),
		mcpgomcp.WithString("name", mcpgomcp.Required(), mcpgomcp.Description("who to greet"))),
		func(ctx context.Context, req mcpgomcp.CallToolRequest) (*mcpgomcp.CallToolResult, error) {
			name, _ := req.RequireString("name")
			return mcpgomcp.NewToolResultText("Hi " + name), nil
		})
	if err := mcpgoserver.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
	}
}

// qa-helper-child: a server that starts a helper in its own process
// group (stdout not inherited, so nothing holds the wire), writes the
// helper's pid to HEADLESS_MARK once the handshake is done, and then
// ignores both stdin EOF and SIGTERM.
func serveHelperChild() {
	signal.Ignore(syscall.SIGTERM)
	helper := exec.Command("sleep", "300")
	if err := helper.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot start the helper:", err)
		os.Exit(1)
	}
	s := newFake("helper-child")
	s.afterInit = func(*fakeMCP) {
		if mark := os.Getenv("HEADLESS_MARK"); mark != "" {
			os.WriteFile(mark, []byte(strconv.Itoa(helper.Process.Pid)), 0o600)
		}
	}
	s.atEOF = func(*fakeMCP) {
		for {
			time.Sleep(time.Hour)
		}
	}
	s.serve()
}

// qa-deaf: reads everything, answers nothing.
func serveDeaf() {
	io.Copy(io.Discard, os.Stdin)
}

// A server that tries to reach the user's terminal behind linesman's
// back, through /dev/tty, as ssh, sudo or a stray library might.
func serveTTYOpen() {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tty-open-failed: %v\n", err)
	} else {
		tty.WriteString("\x1b]0;TTYPWN\x07\x1b[2J\x1b[HHELLO-FROM-TTY")
		tty.Close()
		fmt.Fprintln(os.Stderr, "tty-open-ok")
	}
	io.Copy(io.Discard, os.Stdin)
}

// ui-misbehave: a legacy-era server that refuses server/discover,
// answers ping after a stray print on stdout (with escape sequences in
// it), and writes escape sequences to stderr.
func serveUIMisbehave() {
	os.Stderr.WriteString(hostileStderr)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch req.Method {
		case "initialize":
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"ui-fake","version":"9.9"}}}`+"\n", req.ID)
		case "ping":
			fmt.Print("oops \x1b]0;PWNED-STDOUT\x07\x1b[2J stray print\n")
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"pong":"REPLY-MARKER"}}`+"\n", req.ID)
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`+"\n", req.ID)
		}
	}
}

// ui-flood: about 50,000 notifications a second on stdout, forever
// (until stdin closes).
func serveUIIdle() {
	in := bufio.NewReader(os.Stdin)
	for {
		if _, err := in.ReadString('\n'); err != nil {
			os.Exit(0)
		}
	}
}

func serveUIFlood() {
	go func() {
		in := bufio.NewReader(os.Stdin)
		for {
			if _, err := in.ReadString('\n'); err != nil {
				os.Exit(0)
			}
		}
	}()
	line := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}` + "\n"
	batch := []byte(strings.Repeat(line, 500))
	tick := time.NewTicker(10 * time.Millisecond) // 500 per 10 ms = 50,000/s
	for range tick.C {
		if _, err := os.Stdout.Write(batch); err != nil {
			os.Exit(0)
		}
	}
}

// captureMessyInput is what the tests send with `send --raw`: a request, a
// CRLF line, invalid UTF-8, printf's metacharacters, a multi-line frame.
const captureMessyInput = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"s\":\"100% \\\\ 'q'\"}}\n" +
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\r\n" +
	"bad \xff\xfe bytes\n" +
	"{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/initialized\"\n}\n"

// floodFrame is the i-th notification the capture-flood server writes;
// about 8 KiB, so that records are big enough for a kill to land while one
// is being written.
func floodFrame(i int) string {
	return fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":{\"i\":%d,\"pad\":\"%s\"}}}\n",
		i, strings.Repeat(string(rune('a'+i%26)), 8<<10+i%512))
}

// roundTripBig is the size of the one-line reply of capture-roundtrip.
const roundTripBig = 20 << 20

// fakeMsg is any JSON-RPC message, loosely decoded.
type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// fakeMCP is a minimal legacy-era MCP server over stdin/stdout. Hooks change
// one behaviour each; everything else is well-behaved.
type fakeMCP struct {
	name string
	out  io.Writer
	eol  string // line terminator ("\n" unless a test wants CRLF)
	mu   sync.Mutex
	// on handles a message first; it returns true when it answered it.
	on func(s *fakeMCP, m fakeMsg) bool
	// afterInit runs when notifications/initialized arrives.
	afterInit func(s *fakeMCP)
	// atEOF runs when stdin reaches EOF, before serve returns.
	atEOF func(s *fakeMCP)
}

func newFake(name string) *fakeMCP { return &fakeMCP{name: name, out: os.Stdout, eol: "\n"} }

// writeLine writes raw bytes and the terminator, in one write.
func (s *fakeMCP) writeLine(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(append(append([]byte(nil), b...), s.eol...))
}

func (s *fakeMCP) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.writeLine(b)
}

func (s *fakeMCP) reply(id json.RawMessage, result any) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *fakeMCP) fail(id json.RawMessage, code int, msg string) {
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (s *fakeMCP) initResult() map[string]any {
	return map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}},
		"serverInfo":      map[string]any{"name": s.name, "version": "0.0.1"},
	}
}

func (s *fakeMCP) toolsResult() map[string]any {
	return map[string]any{"tools": []any{map[string]any{
		"name": "echo", "description": "echoes its text",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
	}}}
}

// handle answers a message the way a well-behaved legacy server does.
func (s *fakeMCP) handle(m fakeMsg) {
	if s.on != nil && s.on(s, m) {
		return
	}
	switch {
	case m.Method == "":
		// A response to one of our requests: nothing to do.
	case m.Method == "notifications/initialized":
		if s.afterInit != nil {
			s.afterInit(s)
		}
	case strings.HasPrefix(m.Method, "notifications/"):
	case m.Method == "initialize":
		s.reply(m.ID, s.initResult())
	case m.Method == "ping":
		s.reply(m.ID, map[string]any{})
	case m.Method == "tools/list":
		s.reply(m.ID, s.toolsResult())
	case m.Method == "prompts/list":
		s.reply(m.ID, map[string]any{"prompts": []any{}})
	case m.Method == "resources/list":
		s.reply(m.ID, map[string]any{"resources": []any{}})
	case m.Method == "tools/call":
		var p struct {
			Arguments struct {
				Text string `json:"text"`
			} `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		s.reply(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": p.Arguments.Text}}})
	default:
		s.fail(m.ID, -32601, "Method not found: "+m.Method)
	}
}

// serve reads stdin line by line until EOF.
func (s *fakeMCP) serve() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m fakeMsg
			if json.Unmarshal(line, &m) == nil {
				s.handle(m)
			} else {
				s.fail(json.RawMessage("null"), -32700, "Parse error")
			}
		}
		if err != nil {
			break
		}
	}
	if s.atEOF != nil {
		s.atEOF(s)
	}
}

// idText is an id as a JSON string: 5 -> "5".
func idText(id json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(strings.Trim(string(id), `"`))
	return b
}

// hostileStderr is what the ui-misbehave server writes to stderr at start:
// clear screen, cursor home, an OSC 0 title, an OSC 52 clipboard write and a
// CSI with huge parameters.
const hostileStderr = "\x1b[2J\x1b[H\x1b]0;PWNED-TITLE\x07\x1b]52;c;UFdORUQtQ0xJUA==\x07\x1b[99999999999;99999999999HESC-MARKER\n"

// serveTapMessy: a legacy server that a tolerant client (the Go SDK decodes
// a stream of JSON values, not lines) can talk to, but whose stdout breaks
// every framing rule that leaves it readable: CRLF terminators, a reply
// pretty-printed over several lines, a 1 MiB line with invalid UTF-8 in it,
// a last message with no newline; stderr with escape sequences and no final
// newline; and exit status 3.
func serveTapMessy() {
	s := newFake("tap-messy")
	s.eol = "\r\n"
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		if m.Method != "tools/call" {
			return false
		}
		fmt.Fprint(os.Stderr, "tap-messy: \x1b[31mcalled\x1b[0m\n")
		big := strings.Repeat("x", 1<<20)
		s.writeLine([]byte(fmt.Sprintf("{\r\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": %s,\r\n  \"result\": {\"content\": [{\"type\": \"text\", \"text\": \"%s\xff\xfe\"}]}\r\n}", m.ID, big)))
		return true
	}
	s.atEOF = func(*fakeMCP) {
		os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}`)
		os.Stderr.WriteString("tap-messy: exiting with 3, no newline")
		os.Exit(3)
	}
	s.serve()
}

// serveTapSignal waits; on SIGTERM it says so on stderr and exits 7;
// SIGINT and SIGHUP keep their default action (death by the signal).
func serveTapSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM)
	fmt.Fprintln(os.Stderr, "tap-signal: ready")
	<-c
	fmt.Fprintln(os.Stderr, "tap-signal: got SIGTERM")
	os.Exit(7)
}

// serveSignalDefault says it is ready on stderr, then reads stdin until it
// ends; every signal keeps its default action (death by the signal).
func serveSignalDefault() {
	fmt.Fprintln(os.Stderr, "signal-default: ready")
	io.Copy(io.Discard, os.Stdin)
}

// serveTapEcho answers every line on stdin at once with one short line:
// the server side of the tap's latency benchmark.
func serveTapEcho() {
	defer reportSelfCPU()()
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriter(os.Stdout)
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	for {
		if _, err := in.ReadSlice('\n'); err != nil {
			return
		}
		out.Write(reply)
		out.Flush()
	}
}

// serveTapFlood writes 1 KiB frames to stdout until the pipe breaks, one
// write per frame as the SDKs' stdio transports send a message (go-sdk's
// ioConn.Write, the TypeScript StdioServerTransport.send): the server side
// of the tap's throughput benchmark. TAP_FLOOD_BATCH=1 batches them in
// 64 KiB writes instead, the most a server can spare its reader.
func serveTapFlood() {
	frame := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("f", 1024-87) + `"}}` + "\n")
	defer reportSelfCPU()()
	var out io.Writer = os.Stdout
	if os.Getenv("TAP_FLOOD_BATCH") == "1" {
		out = bufio.NewWriterSize(os.Stdout, 64<<10)
	}
	for {
		if _, err := out.Write(frame); err != nil {
			return
		}
	}
}

// tap-flood-n writes TAP_FLOOD_N notifications of 1 KiB as fast as its
// stdout takes them, each with a write of its own, then exits.
func serveTapFloodN() {
	n, _ := strconv.Atoi(os.Getenv("TAP_FLOOD_N"))
	for i := range n {
		if _, err := os.Stdout.WriteString(tapFloodFrame(i)); err != nil {
			os.Exit(1)
		}
	}
}

// tapFloodFrame is the i-th notification of tap-flood-n: 1 KiB.
func tapFloodFrame(i int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%09d`, i)
	return head + strings.Repeat("f", 1024-len(head)-len("\"}}\n")) + "\"}}\n"
}

// serveTapProxy is the least a process in the middle can do: it starts the
// fake named by TAP_PROXIED (tap-echo by default) and copies bytes both
// ways, judging nothing. The benchmarks measure it beside the tap, as the
// floor of any tap. SIGTERM is passed on and the server waited for, so
// that the proxy's rusage holds its server's, as the tap's does.
//
// By default it is the plainest Go proxy: io.Copy each way (32 KiB reads).
// TAP_PROXY_SAME=1 gives it the tap's pipes instead: the server's stdout
// grown to 1 MiB and read 64 KiB at a time, as `linesman tap` has it.
func serveTapProxy() {
	same := os.Getenv("TAP_PROXY_SAME") == "1"
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER="+cmp.Or(os.Getenv("TAP_PROXIED"), "tap-echo"))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGPIPE)
	if err := cmd.Start(); err != nil {
		os.Exit(1)
	}
	go func() {
		for sig := range sigs {
			if sig == syscall.SIGTERM {
				cmd.Process.Signal(sig)
			}
		}
	}()
	if same {
		growPipe(out)
	}
	go func() {
		io.Copy(in, onlyReader{os.Stdin})
		in.Close()
	}()
	if same {
		buf := make([]byte, 64<<10)
		io.CopyBuffer(os.Stdout, onlyReader{out}, buf)
	} else {
		io.Copy(os.Stdout, out)
	}
	// Our reader went away (or the server ended): the server, blocked on
	// a full pipe nobody reads, ends too, as a host's would: its stdout
	// closed, it fails its next write (and says what it spent). Killed
	// only if it does not end (a SIGTERM passed on was once seen not to
	// end it, and the benchmark waited).
	out.(io.Closer).Close()
	kill := time.AfterFunc(2*time.Second, func() { cmd.Process.Kill() })
	cmd.Wait()
	kill.Stop()
}

// growPipe grows the pipe whose read end is r to 1 MiB, as
// session.growPipe grows a server's stdout (TAP_PROXY_SAME).
func growPipe(r io.Reader) {
	if f, ok := r.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { syscall.Syscall(syscall.SYS_FCNTL, fd, 1031 /* F_SETPIPE_SZ */, 1<<20) })
		}
	}
}

// onlyReader hides every method but Read, so that io.Copy uses its buffer
// (no WriterTo or ReaderFrom path).
type onlyReader struct{ io.Reader }

// reportSelfCPU, when TAP_SELF_CPU names a file, arranges for the CPU
// time this process spent (user and system, in µs, of its own getrusage)
// to be written there as it ends: when the returned function is called, or
// on SIGTERM. The tap's benchmarks take it from the rusage of the process
// in the middle (which holds its server's) to leave the middle's own.
// A broken stdout becomes an error of the write (SIGPIPE is caught), so
// that a flood ends through the returned function too.
func reportSelfCPU() func() {
	path := os.Getenv("TAP_SELF_CPU")
	if path == "" {
		return func() {}
	}
	var once sync.Once
	write := func() {
		once.Do(func() {
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			us := (ru.Utime.Nano() + ru.Stime.Nano()) / 1000
			os.WriteFile(path, []byte(strconv.FormatInt(us, 10)), 0o644)
		})
	}
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		<-term
		write()
		os.Exit(128 + int(syscall.SIGTERM))
	}()
	return write
}

// drift lists the tools and prompts given as JSON arrays in DRIFT_TOOLS and
// DRIFT_PROMPTS (the drift tests change them between two runs).
func serveDrift() {
	s := newFake("drift")
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		switch m.Method {
		case "tools/list":
			s.reply(m.ID, map[string]any{"tools": json.RawMessage(os.Getenv("DRIFT_TOOLS"))})
		case "prompts/list":
			s.reply(m.ID, map[string]any{"prompts": json.RawMessage(os.Getenv("DRIFT_PROMPTS"))})
		default:
			return false
		}
		return true
	}
	s.serve()
}

// slowFor is how long the slow fake servers take: SLOW_MS, or 4 s, past
// the 3 s the era probe once waited (a Python server under load took
// 3.6-6 s to answer its first request).
func slowFor() time.Duration {
	if ms, err := strconv.Atoi(os.Getenv("SLOW_MS")); err == nil {
		return time.Duration(ms) * time.Millisecond
	}
	return 4 * time.Second
}

// serveSlowStart is a legacy server that starts slowly: it sleeps before
// it reads stdin at all, as an interpreter importing its libraries does.
func serveSlowStart() {
	time.Sleep(slowFor())
	newFake("slow-start").serve()
}

// serveSlowAnswer reads stdin at once but takes its time over the first
// request it answers (the era probe), as a server warming up does.
func serveSlowAnswer() {
	s := newFake("slow-answer")
	var once sync.Once
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		once.Do(func() { time.Sleep(slowFor()) })
		return false
	}
	s.serve()
}

// serveProbeHeld holds its answer to server/discover until initialize
// comes: linesman's probe is answered only after linesman gave up on it,
// whatever the machine's speed.
func serveProbeHeld() {
	s := newFake("probe-held")
	var held json.RawMessage
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		switch m.Method {
		case "server/discover":
			held = m.ID
			return true
		case "initialize":
			if held != nil {
				s.fail(held, -32601, "Method not found: server/discover")
			}
		}
		return false
	}
	s.serve()
}

// Delays of latency-delays, large enough that no scheduler makes one pass
// for another.
const (
	delaySlow     = 300 * time.Millisecond
	delayList     = 150 * time.Millisecond
	delayAskFirst = 200 * time.Millisecond
	delayAskRetry = 400 * time.Millisecond
)

// latency-delays is a 2026-07-28 server of known delays, answering each
// request on a goroutine of its own: tools/call of "fast" at once, of
// "slow" after delaySlow (a progress notification on the way when the
// request offers a token), tools/list after delayList, and "ask" in two
// rounds: input_required after delayAskFirst, then, on the retry that
// echoes its requestState, the result after delayAskRetry; "broken" with
// a JSON-RPC error.
func serveLatencyDelays() {
	var mu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		os.Stdout.Write(append(b, '\n'))
		mu.Unlock()
	}
	answer := func(id json.RawMessage, result map[string]any) {
		result["resultType"] = "complete"
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name         string `json:"name"`
				RequestState string `json:"requestState"`
				Meta         struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		go func() {
			text := map[string]any{"content": []any{map[string]any{"type": "text", "text": m.Params.Name}}}
			switch {
			case m.Method == "tools/list":
				time.Sleep(delayList)
				answer(m.ID, map[string]any{"tools": []any{}})
			case m.Params.Name == "slow":
				if m.Params.Meta.ProgressToken != nil {
					send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": m.Params.Meta.ProgressToken, "progress": 1, "total": 2}})
				}
				time.Sleep(delaySlow)
				answer(m.ID, text)
			case m.Params.Name == "ask" && m.Params.RequestState == "":
				time.Sleep(delayAskFirst)
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"resultType": "input_required", "requestState": "s1",
					"inputRequests": map[string]any{"confirm": map[string]any{"method": "elicitation/create", "params": map[string]any{"message": "sure?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}}}})
			case m.Params.Name == "ask":
				time.Sleep(delayAskRetry)
				answer(m.ID, text)
			case m.Params.Name == "broken":
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32000, "message": "broken on purpose"}})
			default:
				answer(m.ID, text)
			}
		}()
	}
}
