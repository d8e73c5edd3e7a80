package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/session/fakeserver"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeServers is the one registry of the misbehaving (or well-behaved)
// servers that tests start as real child processes by re-running this test
// binary with LINESMAN_FAKE_SERVER=<name> (see [fakeserver.Registry]); every fake server
// of the package is defined in this file. It is filled by init rather than
// declared as a literal because a server may start another one by name
// ([fakeCommand]), which a literal would make an initialization cycle.
var fakeServers fakeserver.Registry

func init() {
	fakeServers = fakeserver.Registry{
		"transport-ingest":            serveTransportIngest,
		"proto-gosdk":                 serveProtoGosdk,
		"proto-gosdk-keepalive":       serveProtoGosdkKeepalive,
		"proto-gosdk-legacy":          serveProtoGosdkLegacy,
		"proto-mcpgo":                 serveMCPGo,
		"transport-exit3":             serveTransportExit3,
		"transport-ignore-eof":        serveTransportIgnoreEof,
		"transport-ignore-term":       serveTransportIgnoreTerm,
		"transport-grandchild":        serveTransportGrandchild,
		"transport-grandchild-answer": serveTransportGrandchildAnswer,
		"transport-daemon":            serveTransportDaemon,
		"transport-holder":            serveTransportHolder,
		"transport-no-read":           serveTransportNoRead,
		"transport-flood":             serveTransportFlood,
		"transport-bigline":           serveTransportBigline,
		"transport-crash":             serveTransportCrash,
		"transport-middle":            serveTransportMiddle,
		"transport-close-stdin":       serveTransportCloseStdin,
		"transport-ident":             serveTransportIdent,
		"proto-legacy":                protoFake{discover: "-32601"}.serve,
		"proto-legacy-list":           protoFake{discover: "legacy-result"}.serve,
		"proto-silent":                protoFake{discover: "silent"}.serve,
		"proto-modern":                protoFake{discover: "result", modern: true, requireMeta: true}.serve,
		"proto-modern-other":          protoFake{discover: "-32022", modern: true, requireMeta: true, supportedV: "2026-12-01"}.serve,
		"proto-asks":                  protoFake{discover: "-32601", ask: true}.serve,
		"proto-buffered":              protoFake{discover: "-32601", buffered: true}.serve,
		"proto-mute":                  protoFake{discover: "-32601", muteTools: true}.serve,
		"proto-deaf":                  protoFake{deaf: true}.serve,
		"proto-legacy-empty":          protoFake{discover: "empty-result"}.serve,
		"proto-stringy":               protoFake{discover: "-32601", stringIDs: true}.serve,
		"proto-exit-burst":            serveProtoExitBurst,
	}
}

// fakeCommand returns the argv that starts the named fake server.
func fakeCommand(name string) []string { return fakeServers.Command(name) }

// fakeEnv returns the environment override that selects the named fake server.
func fakeEnv(name string) []string { return []string{fakeServers.Env(name)} }

func TestMain(m *testing.M) { os.Exit(fakeServers.Run(m)) }

// Writes LINESMAN_INGEST_FRAMES notifications of 1 KiB as fast as it can.
func serveTransportIngest() {
	n, _ := strconv.Atoi(os.Getenv("LINESMAN_INGEST_FRAMES"))
	writeIngestFrames(os.Stdout, n)
	os.Exit(0)
}

func serveProtoGosdk() { serveGoSDK(nil, 0) }

// serveProtoGosdkKeepalive pings its client every second. go-sdk gives each
// keepalive ping half the interval to be answered (mcp/shared.go,
// startKeepalive, v1.8.0) and, at its default failure threshold of 1,
// closes the session at the first miss: at 20 ms (10 ms for linesman's
// whole path: read, log, fold, answer, write, and the scheduling of a
// loaded machine) the race detector lost the session in 2 runs of 4 — the
// log showed the server's exit before its ping was even read. 200 ms
// (53f9c2c) leaves 100 ms; a second leaves 500 ms, far above any real
// host's answer, and real servers use seconds to minutes.
func serveProtoGosdkKeepalive() { serveGoSDK(nil, time.Second) }

func serveProtoGosdkLegacy() {
	// A go-sdk server that speaks only the legacy revisions.
	serveGoSDK([]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}, 0)
}

func serveTransportExit3() {
	fmt.Fprintln(os.Stderr, "fatal: config file missing")
	os.Exit(3)
}

// Answers what it reads, ignores stdin EOF, dies of SIGTERM.
func serveTransportIgnoreEof() {
	echoLines()
	sleepForever()
}

// Ignores stdin EOF and SIGTERM: only SIGKILL ends it.
func serveTransportIgnoreTerm() {
	signal.Ignore(syscall.SIGTERM)
	fmt.Fprintf(os.Stderr, "server pid %d\n", os.Getpid())
	echoLines()
	sleepForever()
}

// Starts a grandchild that inherits stdout, then exits.
func serveTransportGrandchild() {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=transport-holder")
	cmd.Stdout = os.Stdout // the holder keeps the server's stdout open
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "holder %d\n", cmd.Process.Pid)
	fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"from":"server"}}`)
	os.Exit(0)
}

// Starts a holder of stdout, answers one request with 12 MiB, exits: the
// answer is still in the pipe or being framed when the exit is seen.
func serveTransportGrandchildAnswer() {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// A quiet holder: its lines would tear the big answer.
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=transport-holder", "LINESMAN_T_QUIET=1")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bufio.NewReader(os.Stdin).ReadBytes('\n')
	w := bufio.NewWriter(os.Stdout)
	w.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"pad":"`)
	w.Write(bytes.Repeat([]byte("p"), 12<<20))
	w.WriteString("\"}}\n")
	w.Flush()
	os.Exit(0)
}

// Like transport-grandchild, but the holder escapes into a session of
// its own, out of reach of the group's signals.
func serveTransportDaemon() {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=transport-holder")
	cmd.Stdout = os.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "holder %d\n", cmd.Process.Pid)
	os.Exit(0)
}

// The grandchild: holds the inherited stdout; says it is ready, then
// writes one more frame when the test sends SIGUSR1 (after it saw the
// server exit), then holds on.
func serveTransportHolder() {
	if os.Getenv("LINESMAN_T_QUIET") != "" {
		sleepForever()
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"from":"holder-ready"}}`)
	<-c
	fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"from":"holder"}}`)
	sleepForever()
}

// Never reads stdin.
func serveTransportNoRead() {
	fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"ready":true}}`)
	sleepForever()
}

// 100 MiB of stderr lines (some with escape sequences), then a frame.
func serveTransportFlood() {
	line := bytes.Repeat([]byte("x"), 1024)
	line[1023] = '\n'
	chunk := bytes.Repeat(line, 1024) // 1 MiB
	// Escape sequences only in the last MiB, so that the finding is
	// still within the test's retention when it looks.
	colored := bytes.Clone(line)
	copy(colored, "\x1b[31mERROR\x1b[0m ")
	last := bytes.Repeat(colored, 1024)
	w := os.Stderr
	for i := range 100 {
		if i == 99 {
			chunk = last
		}
		if _, err := w.Write(chunk); err != nil {
			os.Exit(1)
		}
	}
	fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"flood":"done"}}`)
	os.Exit(0)
}

// A 20 MiB line, then a normal frame; exits at stdin EOF.
func serveTransportBigline() {
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`)
	w.Write(bytes.Repeat([]byte("a"), 20<<20))
	w.WriteString("\"}}\n")
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"after":"big"}}` + "\n")
	w.Flush()
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// Answers the first request, crashes on the second.
func serveTransportCrash() {
	sc := bufio.NewScanner(os.Stdin)
	n := 0
	for sc.Scan() {
		n++
		if n == 2 {
			fmt.Fprintln(os.Stderr, "panic: boom")
			fmt.Fprintln(os.Stderr, "goroutine 1 [running]:")
			os.Exit(2)
		}
		fmt.Println(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	}
}

// Starts its own server through a Session, says its pid, and waits to
// be killed: the server must die with it (parent-death signal).
func serveTransportMiddle() {
	s, err := Start(Config{Command: fakeCommand("transport-ignore-term"), Env: fakeEnv("transport-ignore-term")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Say the pid only once the server has written all it will write:
	// a later write to our dead pipes would kill it by SIGPIPE and hide
	// whether the parent-death signal works.
	sig, _ := s.Log().Subscribe()
	for {
		_, end := s.Log().Bounds()
		if slices.ContainsFunc(s.Log().Range(1, end), func(ev eventlog.Event) bool { return ev.Type == eventlog.EventStderr }) {
			break
		}
		<-sig
	}
	fmt.Printf("%d\n", s.Info().Pid)
	sleepForever()
}

// Closes its stdin and goes on running.
func serveTransportCloseStdin() {
	os.Stdin.Close()
	fmt.Fprintln(os.Stderr, "stdin closed")
	sleepForever()
}

// Reports what it was given: environment, directory, process group.
func serveTransportIdent() {
	wd, _ := os.Getwd()
	fmt.Fprintf(os.Stderr, "env=%s\n", os.Getenv("LINESMAN_T_VALUE"))
	fmt.Fprintf(os.Stderr, "removed=%q\n", os.Getenv("LINESMAN_T_REMOVED"))
	fmt.Fprintf(os.Stderr, "cwd=%s\n", wd)
	fmt.Fprintf(os.Stderr, "pgid=%d pid=%d\n", syscall.Getpgrp(), os.Getpid())
	os.Exit(0)
}

// Answers its first request only as it exits, on its own: what a
// block-buffered stdout does when the program ends.
func serveProtoExitBurst() {
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return
	}
	var m fakeMsg
	_ = json.Unmarshal(in.Bytes(), &m)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": []any{}}})
	os.Stdout.Write(append(b, '\n'))
	os.Exit(3)
}

// protoFake describes a fake server for the client tests. One function
// serves them all; each registered name picks a behaviour.
type protoFake struct {
	discover    string // how to answer server/discover: "result", "legacy-result", "-32601", "-32022", "silent"
	modern      bool   // answer like a 2026-07-28 server (resultType, require _meta)
	ask         bool   // after notifications/initialized, send requests to the client
	buffered    bool   // hold every reply until stdin closes (block-buffered stdout)
	muteTools   bool   // never answer tools/call
	deaf        bool   // answer nothing at all
	stringIDs   bool   // answer integer ids as strings ("2" for 2)
	supportedV  string // the version a -32022 server supports
	requireMeta bool   // modern: reject requests without the three _meta keys
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// serve is a small, strict MCP server over stdio.
func (fk protoFake) serve() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	var mu sync.Mutex
	var held []byte
	write := func(v any) {
		b, _ := json.Marshal(v)
		b = append(b, '\n')
		mu.Lock()
		defer mu.Unlock()
		if fk.buffered {
			held = append(held, b...)
			return
		}
		os.Stdout.Write(b)
	}
	result := func(id json.RawMessage, r map[string]any) {
		if fk.stringIDs && len(id) > 0 && id[0] != '"' {
			id = json.RawMessage(strconv.Quote(string(id)))
		}
		if fk.modern {
			if _, ok := r["resultType"]; !ok {
				r["resultType"] = "complete"
			}
		}
		write(map[string]any{"jsonrpc": "2.0", "id": id, "result": r})
	}
	fail := func(id json.RawMessage, code int, msg string, data any) {
		e := map[string]any{"code": code, "message": msg}
		if data != nil {
			e["data"] = data
		}
		write(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	}
	var slowID json.RawMessage
	for in.Scan() {
		var m fakeMsg
		if fk.deaf || json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "" {
			// An answer to one of our requests: report it on stderr.
			fmt.Fprintf(os.Stderr, "answer %s\n", in.Bytes())
			continue
		}
		var p struct {
			Name           string          `json:"name"`
			InputResponses json.RawMessage `json:"inputResponses"`
			RequestState   string          `json:"requestState"`
			RequestID      json.RawMessage `json:"requestId"`
			Meta           map[string]any  `json:"_meta"`
			Version        string          `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if fk.modern && fk.requireMeta && m.ID != nil && m.Method != "server/discover" {
			v, _ := p.Meta[eventlog.MetaProtocolVersion].(string)
			_, caps := p.Meta[eventlog.MetaClientCapabilities]
			_, info := p.Meta[eventlog.MetaClientInfo]
			want := eventlog.ModernProtocolVersion
			if fk.supportedV != "" {
				want = fk.supportedV
			}
			if v != want || !caps || !info {
				fail(m.ID, -32602, fmt.Sprintf("missing or wrong _meta: %v", p.Meta), nil)
				continue
			}
		}
		switch m.Method {
		case "server/discover":
			switch fk.discover {
			case "result":
				result(m.ID, map[string]any{"supportedVersions": []string{eventlog.ModernProtocolVersion}, "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "proto-modern", "version": "1"}, "cacheScope": "private", "ttlMs": 0})
			case "empty-result":
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			case "legacy-result":
				write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"supportedVersions": []string{"2025-11-25", "2025-06-18"}, "capabilities": map[string]any{}}})
			case "-32022":
				v, _ := p.Meta[eventlog.MetaProtocolVersion].(string)
				if v == fk.supportedV {
					result(m.ID, map[string]any{"supportedVersions": []string{fk.supportedV}, "capabilities": map[string]any{},
						"serverInfo": map[string]any{"name": "proto-modern-other", "version": "1"}, "cacheScope": "private", "ttlMs": 0})
				} else {
					fail(m.ID, -32022, "Unsupported protocol version", map[string]any{"supported": []string{fk.supportedV}, "requested": v})
				}
			case "-32601":
				fail(m.ID, -32601, "Method not found", nil)
			}
		case "initialize":
			result(m.ID, map[string]any{"protocolVersion": p.Version, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "proto-legacy", "version": "1"}})
		case "notifications/initialized":
			if fk.ask {
				params := map[string]map[string]any{
					"sampling/createMessage": {"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}, "maxTokens": 10},
					"elicitation/create":     {"message": "your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
				}
				for i, method := range []string{"ping", "roots/list", "sampling/createMessage", "elicitation/create", "foo/bar"} {
					ps := params[method]
					if ps == nil {
						ps = map[string]any{}
					}
					write(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": method, "params": ps})
				}
			}
		case "tools/list":
			result(m.ID, map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}})
		case "tools/call":
			switch {
			case fk.muteTools:
			case p.Name == "needs-input" && p.InputResponses == nil:
				result(m.ID, map[string]any{"resultType": "input_required", "requestState": "s1",
					"inputRequests": map[string]any{"q1": map[string]any{"method": "elicitation/create",
						"params": map[string]any{"message": "your name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}}})
			case p.Name == "needs-input":
				result(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "got " + p.RequestState + " " + string(p.InputResponses)}}})
			case p.Name == "slow":
				slowID = m.ID // answered only once cancelled: a late answer
			default:
				v, _ := p.Meta[eventlog.MetaProtocolVersion].(string)
				result(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo " + v}}})
			}
		case "notifications/cancelled":
			if slowID != nil && string(p.RequestID) == string(slowID) {
				result(slowID, map[string]any{"content": []any{}})
				slowID = nil
			}
		default:
			if m.ID != nil {
				fail(m.ID, -32601, "Method not found", nil)
			}
		}
	}
	mu.Lock()
	os.Stdout.Write(held)
	mu.Unlock()
}

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

func serveGoSDK(versions []string, keepAlive time.Duration) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gosdk-fake", Version: "1.0.0"},
		&mcp.ServerOptions{SupportedProtocolVersions: versions, KeepAlive: keepAlive})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes its text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk-fake:", err)
	}
}

func serveMCPGo() {
	srv := mcpgoserver.NewMCPServer("mcpgo-fake", "1.0.0", mcpgoserver.WithToolCapabilities(false))
	srv.AddTool(mcpgo.NewTool("echo", mcpgo.WithDescription("echoes its text"), mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(req.GetString("text", "")), nil
		})
	if err := mcpgoserver.ServeStdio(srv); err != nil {
		fmt.Fprintln(os.Stderr, "mcpgo-fake:", err)
	}
}

// echoLines answers every ping (as id 1) until stdin's EOF; other
// requests stay unanswered.
func echoLines() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"method":"ping"`)) {
			fmt.Println(`{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
	}
}

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}
