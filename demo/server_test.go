package demo

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"linesman/wire"
)

// modes are the two isolation settings every tool is driven in.
var modes = []struct {
	name string
	args []string
}{
	{"isolated", nil},
	{"unisolated", []string{"--isolate=false"}},
}

func TestLegacyEraHandshake(t *testing.T) {
	for _, tc := range []struct{ ask, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2024-11-05", "2024-11-05"},
		{"1999-01-01", LatestLegacyVersion}, // unknown: the server offers its newest
	} {
		t.Run(tc.ask, func(t *testing.T) {
			p := startDemo(t)
			res := p.initialize(tc.ask)
			if res["protocolVersion"] != tc.want {
				t.Errorf("protocolVersion = %v, want %s", res["protocolVersion"], tc.want)
			}
			if _, ok := res["resultType"]; ok {
				t.Errorf("legacy initialize result carries resultType: %v", res)
			}
			if info, _ := res["serverInfo"].(map[string]any); info["name"] != Name {
				t.Errorf("serverInfo = %v", res["serverInfo"])
			}
			if _, ok := res["capabilities"].(map[string]any)["tools"]; !ok {
				t.Errorf("capabilities lack tools: %v", res["capabilities"])
			}
			p.send(req(1, "ping", nil))
			if f := p.next(); string(f.ID) != "1" || string(f.Result) != "{}" {
				t.Errorf("ping answer: %s", f.raw)
			}
			p.send(req(2, "tools/list", nil))
			f := p.next()
			list := decode(t, f.Result)
			if _, ok := list["resultType"]; ok {
				t.Errorf("legacy tools/list result carries resultType")
			}
			checkToolList(t, list)
			p.closeStdin()
			if err := p.wait(); err != nil {
				t.Errorf("exit after stdin closed: %v", err)
			}
		})
	}
}

func checkToolList(t *testing.T, list map[string]any) {
	t.Helper()
	tools, _ := list["tools"].([]any)
	var names []string
	for _, x := range tools {
		tool := x.(map[string]any)
		names = append(names, tool["name"].(string))
		if d, _ := tool["description"].(string); len(d) < 40 {
			t.Errorf("tool %v has no real description: %q", tool["name"], d)
		}
		if s, _ := tool["inputSchema"].(map[string]any); s["type"] != "object" {
			t.Errorf("tool %v inputSchema = %v", tool["name"], tool["inputSchema"])
		}
	}
	want := []string{"echo", "print_debug", "pretty_reply", "noisy_child", "slow_count", "crash", "stderr_flood", "big_reply", "reuse_id", "unflushed", "ignore_eof"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
}

func TestModernEra(t *testing.T) {
	p := startDemo(t)
	// server/discover, as the era probe sends it.
	p.send(req("discover-1", "server/discover", map[string]any{"_meta": modernMeta(nil)}))
	f := p.next()
	res := decode(t, f.Result)
	if string(f.ID) != `"discover-1"` || res["resultType"] != "complete" {
		t.Fatalf("discover answer: %s", f.raw)
	}
	if v, _ := res["supportedVersions"].([]any); len(v) != 1 || v[0] != ModernVersion {
		t.Errorf("supportedVersions = %v", res["supportedVersions"])
	}
	if info, _ := res["serverInfo"].(map[string]any); info["name"] != Name {
		t.Errorf("serverInfo = %v", res["serverInfo"])
	}
	if _, ok := res["capabilities"].(map[string]any)["tools"]; !ok {
		t.Errorf("capabilities = %v", res["capabilities"])
	}

	// No handshake: tools/list and tools/call straight away, resultType on each.
	p.send(req(1, "tools/list", map[string]any{"_meta": modernMeta(nil)}))
	list := decode(t, p.next().Result)
	if list["resultType"] != "complete" {
		t.Errorf("modern tools/list: resultType = %v", list["resultType"])
	}
	checkToolList(t, list)
	p.send(req(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "<modern & stateless>"}, "_meta": modernMeta(nil)}))
	f = p.next()
	if decode(t, f.Result)["resultType"] != "complete" || resultText(t, f) != "<modern & stateless>" {
		t.Errorf("modern echo: %s", f.raw)
	}
	// resultType comes first, so that it survives when only the start of a
	// big result is kept; and HTML is not escaped.
	if !bytes.Contains(f.raw, []byte(`"result":{"resultType":"complete","content"`)) || bytes.Contains(f.raw, []byte(`\u003c`)) {
		t.Errorf("modern result is not shaped as expected: %s", f.raw)
	}

	// A request that forgot _meta, with no handshake either, still gets the
	// 2026-07-28 shape.
	p.send(req(3, "tools/list", nil))
	if r := decode(t, p.next().Result); r["resultType"] != "complete" {
		t.Errorf("tools/list without _meta or handshake: resultType = %v", r["resultType"])
	}

	// A version the server does not speak per request: -32022 with the list.
	for i, v := range []string{"2099-01-01", "2025-11-25"} {
		p.send(req(10+i, "tools/list", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": v}}))
		f = p.next()
		if f.Error == nil || f.Error.Code != -32022 {
			t.Fatalf("version %s: want error -32022, got %s", v, f.raw)
		}
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		json.Unmarshal(f.Error.Data, &data)
		if !slices.Equal(data.Supported, ModernVersions) || data.Requested != v {
			t.Errorf("version %s: error data = %s", v, f.Error.Data)
		}
	}
	p.send(req(12, "server/discover", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}))
	if f = p.next(); f.Error == nil || f.Error.Code != -32022 {
		t.Errorf("discover with an unknown version: %s", f.raw)
	}
	p.closeStdin()
	if err := p.wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
}

func TestProtocolErrors(t *testing.T) {
	p := startDemo(t)
	p.initialize(LatestLegacyVersion)
	for _, tc := range []struct {
		send string
		id   string
		code int
	}{
		{"this is not json\n", "null", -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n", "null", -32600},
		{`{"jsonrpc":"2.0","id":2,"method":"no/such"}` + "\n", "2", -32601},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such"}}` + "\n", "3", -32602},
	} {
		p.sendRaw(tc.send)
		f := p.next()
		if f.Error == nil || f.Error.Code != tc.code || string(f.ID) != tc.id {
			t.Errorf("%q: got %s, want error %d with id %s", tc.send, f.raw, tc.code, tc.id)
		}
	}
	// Bad arguments are a tool error, not a protocol error.
	p.callTool(4, "slow_count", map[string]any{"seconds": 0})
	f := p.next()
	if r := decode(t, f.Result); r["isError"] != true {
		t.Errorf("slow_count seconds=0: %s", f.raw)
	}
}

// TestTools drives every tool in both isolation modes and checks it does
// what its description says.
func TestTools(t *testing.T) {
	for _, mode := range modes {
		isolated := mode.args == nil
		t.Run(mode.name, func(t *testing.T) {
			t.Run("echo", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "echo", map[string]any{"text": "héllo <&> wörld"})
				f := p.next()
				if got := resultText(t, f); got != "héllo <&> wörld" {
					t.Errorf("echo = %q", got)
				}
				if bytes.Contains(f.raw, []byte(`\u003c`)) {
					t.Errorf("reply escapes HTML: %s", f.raw)
				}
			})
			t.Run("print_debug", func(t *testing.T) {
				testStrayWrite(t, mode.args, isolated, "print_debug", "DEBUG: print_debug was called")
			})
			t.Run("noisy_child", func(t *testing.T) {
				testStrayWrite(t, mode.args, isolated, "noisy_child", "noisy_child: hello from child process")
			})
			t.Run("pretty_reply", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "pretty_reply", nil)
				var lines []byte
				n := 0
				for {
					l := p.nextLine()
					if l == nil {
						t.Fatal("stdout ended inside the pretty reply")
					}
					lines = append(lines, l...)
					n++
					if json.Valid(lines) {
						break
					}
				}
				if n < 5 {
					t.Errorf("pretty reply has %d lines, want many", n)
				}
				var f frame
				json.Unmarshal(lines, &f)
				f.raw = lines
				if string(f.ID) != "1" || !strings.Contains(resultText(t, f), "pretty-printed") {
					t.Errorf("pretty reply: %s", lines)
				}
			})
			t.Run("slow_count", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.send(req(1, "tools/call", map[string]any{"name": "slow_count", "arguments": map[string]any{"seconds": 2}, "_meta": map[string]any{"progressToken": "tok"}}))
				for i := 1; i <= 2; i++ {
					f := p.next()
					var pr struct {
						ProgressToken string  `json:"progressToken"`
						Progress      float64 `json:"progress"`
						Total         float64 `json:"total"`
					}
					json.Unmarshal(f.Params, &pr)
					if f.Method != "notifications/progress" || pr.ProgressToken != "tok" || pr.Progress != float64(i) || pr.Total != 2 {
						t.Fatalf("progress %d: %s", i, f.raw)
					}
				}
				if f := p.next(); resultText(t, f) != "counted to 2" {
					t.Errorf("slow_count reply: %s", f.raw)
				}
			})
			t.Run("slow_count_cancel", func(t *testing.T) { testSlowCountCancel(t, mode.args) })
			t.Run("crash", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "crash", nil)
				if l := p.nextLine(); l != nil {
					t.Errorf("crash answered: %q", truncate(l))
				}
				err := p.wait()
				if exitCode(err) != 3 {
					t.Errorf("exit = %v, want status 3", err)
				}
				if s := p.Stderr(); !strings.Contains(s, "panic: crash tool called") || !strings.Contains(s, "goroutine ") {
					t.Errorf("no traceback on stderr:\n%s", s)
				}
			})
			t.Run("stderr_flood", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				before := len(p.Stderr())
				p.callTool(1, "stderr_flood", map[string]any{"mib": 1.5})
				if f := p.next(); !strings.Contains(resultText(t, f), "lines to stderr") {
					t.Errorf("stderr_flood reply: %s", f.raw)
				}
				p.closeStdin()
				p.wait()
				if got := len(p.Stderr()) - before; got < 3<<19 || !strings.Contains(p.Stderr(), "stderr_flood line") {
					t.Errorf("stderr_flood wrote %d bytes to stderr, want 1.5 MiB of log lines", got)
				}
			})
			t.Run("big_reply", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "big_reply", map[string]any{"mib": 2})
				f := p.next() // one line, valid JSON
				if text := resultText(t, f); len(text) != 2<<20 || strings.Contains(text, "\n") {
					t.Errorf("big reply text is %d bytes, want %d on one line", len(text), 2<<20)
				}
			})
			t.Run("reuse_id", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "reuse_id", nil)
				for i := 0; i < 2; i++ {
					f := p.next()
					if f.Method != "ping" || string(f.ID) != `"demo-reuse"` {
						t.Fatalf("server request %d: %s", i+1, f.raw)
					}
					p.send(map[string]any{"jsonrpc": "2.0", "id": "demo-reuse", "result": map[string]any{}})
				}
				if f := p.next(); !strings.Contains(resultText(t, f), "(2 answered)") {
					t.Errorf("reuse_id reply: %s", f.raw)
				}
			})
			t.Run("unflushed", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "unflushed", nil)
				p.waitStderr("stdout is now block-buffered")
				p.callTool(2, "echo", map[string]any{"text": "held back"})
				p.waitStderr("tool echo (id 2)")
				p.closeStdin()
				// Both replies arrive only now, flushed at exit; stderr says
				// how much the buffer held. The server answers requests
				// concurrently, so the two replies may enter the buffer in
				// either order.
				got := map[string]frame{}
				for range 2 {
					f := p.next()
					got[string(f.ID)] = f
				}
				if f, ok := got["1"]; !ok || !strings.Contains(resultText(t, f), "block-buffered") {
					t.Errorf("unflushed reply: %s", f.raw)
				}
				if f, ok := got["2"]; !ok {
					t.Errorf("no echo after unflushed: %v", got)
				} else if !strings.Contains(resultText(t, f), "held back") {
					t.Errorf("echo after unflushed: %s", f.raw)
				}
				if err := p.wait(); err != nil {
					t.Errorf("exit: %v", err)
				}
				if !strings.Contains(p.Stderr(), "flushed ") {
					t.Errorf("nothing was held in the buffer until exit:\n%s", p.Stderr())
				}
			})
			t.Run("ignore_eof", func(t *testing.T) {
				p := startDemo(t, mode.args...)
				p.initialize(LatestLegacyVersion)
				p.callTool(1, "ignore_eof", nil)
				if f := p.next(); string(f.ID) != "1" {
					t.Fatalf("ignore_eof reply: %s", f.raw)
				}
				p.closeStdin()
				p.waitStderr("still running until SIGTERM")
				select {
				case <-p.exited:
					t.Fatalf("exited after stdin closed (%v); it should have ignored EOF", p.err)
				default:
				}
				p.cmd.Process.Signal(syscall.SIGTERM)
				if err := p.wait(); signalOf(err) != syscall.SIGTERM {
					t.Errorf("exit = %v, want killed by SIGTERM", err)
				}
			})
		})
	}
}

// testStrayWrite checks a tool that writes a line to the process's stdout:
// isolated, the line lands on stderr and stdout carries only the reply;
// unisolated, the line is on the wire just before the reply.
func testStrayWrite(t *testing.T, args []string, isolated bool, tool, line string) {
	p := startDemo(t, args...)
	p.initialize(LatestLegacyVersion)
	p.callTool(1, tool, nil)
	if isolated {
		f := p.next() // fails on a non-JSON line
		if string(f.ID) != "1" || !strings.Contains(resultText(t, f), "stderr") {
			t.Errorf("%s reply: %s", tool, f.raw)
		}
		p.closeStdin()
		p.wait()
		if !strings.Contains(p.Stderr(), line) {
			t.Errorf("the stray line %q is not in stderr:\n%s", line, p.Stderr())
		}
		return
	}
	if l := string(p.nextLine()); !strings.HasPrefix(l, line) {
		t.Errorf("first stdout line = %q, want the stray %q", l, line)
	}
	if f := p.next(); string(f.ID) != "1" || !strings.Contains(resultText(t, f), "non-json-line") {
		t.Errorf("%s reply: %s", tool, f.raw)
	}
	p.closeStdin()
	p.wait()
	if strings.Contains(p.Stderr(), line) {
		t.Errorf("the stray line went to stderr with isolation off")
	}
}

// testSlowCountCancel cancels a slow_count mid-count and checks nothing more
// is sent for it. The server reads its stdin in order, so once the answer to
// an echo sent after the cancel has arrived, the cancel has been processed:
// from then on no frame may mention the cancelled id or its token — and the
// server must exit once stdin closes instead of counting for an hour.
func testSlowCountCancel(t *testing.T, args []string) {
	p := startDemo(t, args...)
	p.send(req(7, "tools/call", map[string]any{"name": "slow_count", "arguments": map[string]any{"seconds": 3600}, "_meta": modernMeta(map[string]any{"progressToken": 77})}))
	if f := p.next(); f.Method != "notifications/progress" {
		t.Fatalf("want a progress notification first, got %s", f.raw)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 7, "reason": "test"}})
	p.send(req(8, "tools/call", map[string]any{"name": "echo", "_meta": modernMeta(nil)}))
	for {
		f := p.next()
		if string(f.ID) == "8" {
			break
		}
		// Progress written before the cancel was read is legitimate.
		if f.Method != "notifications/progress" {
			t.Fatalf("unexpected frame before the echo reply: %s", f.raw)
		}
	}
	p.closeStdin()
	for l := p.nextLine(); l != nil; l = p.nextLine() {
		t.Errorf("frame after the cancel was processed: %s", truncate(l))
	}
	if err := p.wait(); err != nil {
		t.Errorf("exit: %v", err)
	}
	if !strings.Contains(p.Stderr(), "slow_count (id 7) cancelled") {
		t.Errorf("stderr does not say slow_count stopped:\n%s", p.Stderr())
	}
}

// TestToolsTeachRegisteredFindings keeps the tool descriptions honest: every
// finding a tool claims to teach is in linesman's registry and named in its
// description, and every tool has a description that says what it shows.
func TestToolsTeachRegisteredFindings(t *testing.T) {
	for _, tool := range Tools() {
		if tool.Teaches != "" {
			if _, ok := wire.Lookup(tool.Teaches); !ok {
				t.Errorf("%s teaches %q, which is not in the wire registry", tool.Name, tool.Teaches)
			}
			if !strings.Contains(tool.Description, tool.Teaches) {
				t.Errorf("%s: description does not name the finding %q", tool.Name, tool.Teaches)
			}
		}
		if tool.Summary == "" || tool.Title == "" || tool.schema == nil {
			t.Errorf("%s: incomplete definition", tool.Name)
		}
		if !strings.Contains(Usage(), tool.Name) {
			t.Errorf("--help does not list %s", tool.Name)
		}
	}
}

// TestDocsToolsTable keeps the tools table of docs/demo.md in step with
// the tools: each tool has a row that names the finding it teaches.
func TestDocsToolsTable(t *testing.T) {
	b, err := os.ReadFile("../docs/demo.md")
	if err != nil {
		t.Skip("no docs/demo.md beside the package:", err)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(l, "| `"); ok {
			if n, _, ok := strings.Cut(name, "`"); ok {
				rows[n] = l
			}
		}
	}
	for _, tool := range Tools() {
		row, ok := rows[tool.Name]
		switch {
		case !ok:
			t.Errorf("docs/demo.md has no row for %s", tool.Name)
		case tool.Teaches != "" && !strings.Contains(row, "`"+tool.Teaches+"`"):
			t.Errorf("docs/demo.md's row for %s does not name %s: %s", tool.Name, tool.Teaches, row)
		}
	}
}
