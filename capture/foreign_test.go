package capture

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// frameCodes lists the direction and finding codes of every frame of a log.
func frameCodes(t *testing.T, c *Capture) (dirs []string, codes []string, stderr int) {
	t.Helper()
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		ev, ok := c.Log.Get(seq)
		if !ok {
			continue
		}
		switch ev.Type {
		case eventlog.EventFrame:
			dirs = append(dirs, ev.Dir.String())
			for _, f := range ev.Frame.Findings {
				codes = append(codes, f.Code)
			}
		case eventlog.EventStderr:
			stderr++
		}
	}
	return dirs, codes, stderr
}

func TestOpenForeignLogs(t *testing.T) {
	cases := []struct {
		file      string
		frames    []string
		stderr    int
		want, not []string // codes that must (must not) be raised
	}{
		{"claude-desktop.log", []string{"c2s", "s2c", "c2s", "c2s", "s2c", "c2s", "s2c"}, 4,
			nil, []string{"non-json-line", "invalid-jsonrpc", "initialize-not-first"}},
		{"mcpsnoop.jsonl", []string{"c2s", "s2c", "c2s", "c2s", "s2c", "s2c"}, 1,
			[]string{"non-json-line", "tool-name-invalid"}, []string{"initialize-not-first"}},
		{"plain.jsonl", []string{"c2s", "s2c"}, 0,
			[]string{"missing-result-type"}, nil},
		{"direction.jsonl", []string{"c2s", "s2c"}, 0,
			[]string{"missing-result-type"}, nil},
		{"transcript.txt", []string{"c2s", "s2c", "c2s", "c2s", "s2c", "c2s", "s2c", "c2s"}, 0,
			[]string{"tool-name-invalid", "non-json-line", "blank-line"}, []string{"initialize-not-first"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c, err := Open(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			dirs, codes, stderr := frameCodes(t, c)
			if !slices.Equal(dirs, tc.frames) {
				t.Errorf("frames %v, want %v", dirs, tc.frames)
			}
			if stderr != tc.stderr {
				t.Errorf("%d stderr lines, want %d", stderr, tc.stderr)
			}
			for _, w := range tc.want {
				if !slices.Contains(codes, w) {
					t.Errorf("no %s among %v", w, codes)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(codes, n) {
					t.Errorf("%s raised: %v", n, codes)
				}
			}
		})
	}
}

func TestOpenUnknownFormatKeepsTheCaptureError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(path, []byte("hello\nworld\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if !errors.Is(err, ErrNotCapture) {
		t.Fatalf("err = %v, want ErrNotCapture", err)
	}
	// and says which logs it would have read
	if !strings.Contains(err.Error(), "transcript") || !strings.Contains(err.Error(), "mcpsnoop") {
		t.Errorf("err = %v, want the formats linesman reads named", err)
	}
}

func TestClaudeDesktopMessageKeepsOnlyTheJSON(t *testing.T) {
	fl, err := parseForeign(ForeignClaudeDesktop, []byte(`2025-09-30T01:18:25.032Z [my server] [info] Message from server: {"jsonrpc":"2.0","id":0,"result":{}} { metadata: undefined }`))
	if err != nil || fl.dir != wire.ServerToClient || string(fl.message) != `{"jsonrpc":"2.0","id":0,"result":{}}` {
		t.Fatalf("%+v %v", fl, err)
	}
}

// TestClaudeDesktopDeepMessageIsAFrame: a message nested 100,000 deep
// (deeper than encoding/json decodes) is still the host's "Message from
// server", a frame of the server's, not a line of its stderr; read through
// the whole log, it is a frame too.
func TestClaudeDesktopDeepMessageIsAFrame(t *testing.T) {
	const depth = 100_000
	deep := `{"jsonrpc":"2.0","id":1,"result":{"x":` + strings.Repeat(`[`, depth) + `"]}"` + strings.Repeat(`]`, depth) + `}}`
	line := `2025-09-30T01:18:25.032Z [my server] [info] Message from server: ` + deep + ` { metadata: undefined }`
	fl, err := parseForeign(ForeignClaudeDesktop, []byte(line))
	if err != nil || fl.dir != wire.ServerToClient || string(fl.message) != deep {
		t.Fatalf("dir %v, text %.80q, message %.80q, %v", fl.dir, fl.text, fl.message, err)
	}
	path := filepath.Join(t.TempDir(), "mcp-server-my server.log")
	client := `2025-09-30T01:18:25.000Z [my server] [info] Message from client: {"jsonrpc":"2.0","id":1,"method":"tools/list"} { metadata: undefined }`
	if err := os.WriteFile(path, []byte(client+"\n"+line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if dirs, _, _ := frameCodes(t, c); !slices.Equal(dirs, []string{"c2s", "s2c"}) {
		t.Errorf("frames %v, want the request and its deep answer", dirs)
	}
}

// A message that is not JSON and not deep stays the host's line.
func TestClaudeDesktopShallowBadMessageIsALine(t *testing.T) {
	fl, _ := parseForeign(ForeignClaudeDesktop, []byte(`2025-09-30T01:18:25.032Z [s] [info] Message from server: {not json} { metadata: undefined }`))
	if fl.dir != 0 || fl.text == nil {
		t.Errorf("%+v", fl)
	}
}

// Claude Desktop logs each line of the server's stdout that it cannot
// parse as an [error] with V8's message, which quotes the line's start:
// the line itself never reaches the log, but the host's word for it is a
// non-json-line of the server's. Both forms of the log (the error's
// metadata on the line, or on the lines after) are recognised; "Unexpected
// end of JSON input" (an empty line, or JSON cut short) and the host's
// other errors are not findings.
func TestClaudeDesktopParseErrorsAreNonJSONLines(t *testing.T) {
	c, err := Open(filepath.Join("testdata", "claude-desktop-stdout-noise.log"))
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		ev, ok := c.Log.Get(seq)
		if ok && ev.Type == eventlog.EventFinding {
			if ev.Finding.Code != "non-json-line" || ev.Finding.Dir != wire.ServerToClient {
				t.Errorf("unexpected finding %+v", ev.Finding)
			}
			said = append(said, ev.Finding.Message)
		}
	}
	want := []string{`"Starting P"...`, `"│    13 │ "...`, `after JSON at position 4 (line 1 column 5)`}
	if len(said) != len(want) {
		t.Fatalf("%d findings, want %d: %q", len(said), len(want), said)
	}
	for i, w := range want {
		if !strings.Contains(said[i], w) || strings.Contains(said[i], "context") {
			t.Errorf("finding %d says %q; want the host's message with %q and no metadata", i, said[i], w)
		}
	}
	if dirs, _, _ := frameCodes(t, c); !slices.Equal(dirs, []string{"c2s", "s2c"}) {
		t.Errorf("frames %v: the host's errors became frames", dirs)
	}
}

// A log whose first line is the host's error (the server's noise came
// before anything else) is still told to be Claude Desktop's.
func TestClaudeDesktopLogMayStartWithAnError(t *testing.T) {
	line := []byte(`2025-03-25T22:03:57.354Z [x] [error] Unexpected token 'S', "Starting P"... is not valid JSON {"context":"connection"}`)
	if got := sniff(line); got != ForeignClaudeDesktop {
		t.Fatalf("sniff = %q, want %q", got, ForeignClaudeDesktop)
	}
	if got := sniff([]byte(`[x] [error] no time: not a host line`)); got != "" {
		t.Errorf("a line without the host's time was taken for its log: %q", got)
	}
}

// VS Code's MCP output channel (copied to a file) is read as a
// conversation: both spellings of its message lines, the host's own lines
// and the server's stderr as stderr lines.
func TestOpenVSCodeOutputLog(t *testing.T) {
	c, err := Open(filepath.Join("testdata", "vscode-mcp.log"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Format != ForeignVSCode {
		t.Errorf("format %q, want %q", c.Header.Format, ForeignVSCode)
	}
	dirs, codes, stderr := frameCodes(t, c)
	if want := []string{"c2s", "s2c", "c2s", "c2s", "s2c", "c2s", "s2c"}; !slices.Equal(dirs, want) {
		t.Errorf("frames %v, want %v", dirs, want)
	}
	if stderr != 6 {
		t.Errorf("%d stderr lines, want 6", stderr)
	}
	// The tool name with a space is a real finding of the server's
	// (2025-11-25); nothing of the host's log format is.
	if !slices.Contains(codes, "tool-name-invalid") || slices.Contains(codes, "non-json-line") {
		t.Errorf("codes %v", codes)
	}
}

// Claude Desktop's mcp.log holds every server's lines. Judged together,
// two conversations would reuse each other's ids: the first server's are
// judged, and a note names the others.
func TestClaudeDesktopLogOfSeveralServersJudgesOne(t *testing.T) {
	c, err := Open(filepath.Join("testdata", "claude-desktop-mcp.log"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, codes, _ := frameCodes(t, c)
	if want := []string{"c2s", "s2c", "c2s", "c2s", "s2c"}; !slices.Equal(dirs, want) {
		t.Errorf("frames %v, want weather's five %v", dirs, want)
	}
	for _, bad := range []string{"reused-id-in-flight", "reused-id", "duplicate-response", "unknown-response-id"} {
		if slices.Contains(codes, bad) {
			t.Errorf("%s raised: the servers' conversations were mixed (%v)", bad, codes)
		}
	}
	noted := false
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		if ev, ok := c.Log.Get(seq); ok && ev.Type == eventlog.EventNote && strings.Contains(ev.Note, "2 servers (weather, notes)") {
			noted = true
		}
	}
	if !noted {
		t.Error("no note says the log holds two servers")
	}
}

// TestClaudeDesktopLevelFirst: mid-2025 releases wrote the level before
// the server's name ("TIME [info] [NAME] Message from client: …",
// jorekai/db-timetable-mcp#4, localrivet/gocreate#5), in the combined
// mcp.log too; such a log is read as the later order is (it was refused as
// an unknown format), the first server's conversation judged, and the
// host's parse errors in that order are the server's non-json-line.
func TestClaudeDesktopLevelFirst(t *testing.T) {
	c, err := Open(filepath.Join("testdata", "claude-desktop-mcp-levelfirst.log"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Format != ForeignClaudeDesktop {
		t.Fatalf("format %q", c.Header.Format)
	}
	dirs, codes, _ := frameCodes(t, c)
	if want := []string{"c2s", "s2c", "c2s", "c2s", "s2c"}; !slices.Equal(dirs, want) {
		t.Errorf("frames %v, want %v (db-timetable's alone)", dirs, want)
	}
	if len(codes) != 0 {
		t.Errorf("findings %v on a clean conversation", codes)
	}
	if hs := c.Tracker.Handshake(); func() string { n, _ := hs.ServerName(); return n }() != "db-timetable" {
		t.Errorf("server %s", hs.ServerInfo)
	}
	log := "2025-06-27T07:58:07.774Z [info] [go] Message from client: " +
		`{"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}},"jsonrpc":"2.0","id":0}` + "\n" +
		`2025-06-27T07:58:08.067Z [error] [go] Unexpected token 'i', "time=2025-0"... is not valid JSON` + "\n"
	c, err = readForeign(strings.NewReader(log), "mcp.log", OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		if ev, ok := c.Log.Get(seq); ok && ev.Type == eventlog.EventFinding && ev.Finding.Code == "non-json-line" {
			found = true
		}
	}
	if !found {
		t.Error("the host's [error] parse line, level first, is no non-json-line")
	}
}

// TestClaudeDesktopServerExitedEarly: a per-server log where the host says
// the server's transport closed unexpectedly (modelcontextprotocol/servers#1748,
// mixelpixx/KiCAD-MCP-Server#5) has the process exit as an event, once,
// and the request in flight is lost with it.
func TestClaudeDesktopServerExitedEarly(t *testing.T) {
	c, err := Open(filepath.Join("testdata", "claude-desktop-exited-early.log"))
	if err != nil {
		t.Fatal(err)
	}
	exits := 0
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		if ev, ok := c.Log.Get(seq); ok && ev.Type == eventlog.EventProcess && ev.Process.State == eventlog.StateExited {
			exits++
			if !strings.Contains(ev.Process.Detail, "Server transport closed unexpectedly") {
				t.Errorf("exit detail %q", ev.Process.Detail)
			}
		}
	}
	if exits != 1 {
		t.Errorf("%d exits, want 1", exits)
	}
	if st := c.Tracker.Process(); st.State != eventlog.StateExited {
		t.Errorf("process %+v, want exited", st)
	}
}
