package main

// Fake MCP servers for the headless end-to-end tests: a small legacy-era
// server with hooks, and one variant per way a real server misbehaves on
// stdio. Each runs as a real child process (this test binary re-run with
// LINESMAN_FAKE_SERVER=<name>); none of them imports linesman's own packages,
// so they cannot share its mistakes.

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
	"strings"
	"sync"
	"syscall"
	"time"

	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

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

func init() {
	registerFake("headless-good", func() { newFake("headless-good").serve() })

	registerFake("headless-stray-start", func() {
		fmt.Println("Starting weather server v1.0 ...")
		newFake("stray-start").serve()
	})

	registerFake("headless-stray-call", func() {
		s := newFake("stray-call")
		s.on = func(s *fakeMCP, m fakeMsg) bool {
			if m.Method == "tools/list" || m.Method == "tools/call" {
				s.writeLine([]byte("DEBUG: handling " + m.Method))
			}
			return false
		}
		s.serve()
	})

	registerFake("headless-pretty", func() {
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
	})

	registerFake("headless-child-stdout", func() {
		// A helper process inherits stdout and writes a banner to it.
		cmd := exec.Command("sh", "-c", "echo 'child process: ready'")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		cmd.Run()
		newFake("child-stdout").serve()
	})

	registerFake("headless-exit-at-once", func() {
		fmt.Fprintln(os.Stderr, "fatal: WEATHER_API_KEY is not set")
		os.Exit(1)
	})

	registerFake("headless-crash-mid-call", func() {
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
	})

	registerFake("headless-reused-ids", func() {
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
	})

	registerFake("headless-duplicate-response", func() {
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
	})

	registerFake("headless-unknown-id", func() {
		s := newFake("unknown-id")
		s.afterInit = func(s *fakeMCP) {
			s.reply(json.RawMessage("999"), map[string]any{})
		}
		s.serve()
	})

	registerFake("headless-string-id", func() {
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
	})

	registerFake("headless-invalid-utf8", func() {
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
	})

	registerFake("headless-crlf", func() {
		s := newFake("crlf")
		s.eol = "\r\n"
		s.serve()
	})

	registerFake("headless-batch", func() {
		s := newFake("batch")
		s.afterInit = func(s *fakeMCP) {
			s.writeLine([]byte(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}}]`))
		}
		s.serve()
	})

	registerFake("headless-big-reply", func() {
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
	})

	registerFake("headless-ignore-sigterm", func() {
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
	})

	registerFake("headless-grandchild", func() {
		// A background helper inherits stdout and outlives the server.
		cmd := exec.Command("sleep", "30")
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "cannot start the grandchild:", err)
			os.Exit(1)
		}
		newFake("grandchild").serve()
	})

	registerFake("headless-stderr-escapes", func() {
		fmt.Fprint(os.Stderr, "\x1b[31mERROR\x1b[0m coloured log line\n\x1b]0;pwned\x07title change\n\x1b[2Jclear screen\n")
		newFake("stderr-escapes").serve()
	})

	registerFake("headless-unflushed", func() {
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
	})

	registerFake("headless-no-answer", func() {
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
	})

	registerFake("headless-go-sdk", func() {
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
	})

	registerFake("headless-mcp-go", func() {
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
	})
}
