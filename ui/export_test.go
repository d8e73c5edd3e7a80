package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// exportTo drives the export prompt with keys: X, the format key, the file
// name typed over the offered one, enter. It returns the bottom line after
// the write's result came back.
func exportTo(t *testing.T, m *Model, formatKey, path string) string {
	t.Helper()
	press(m, "X")
	if got := ansi.Strip(m.bottomLine()); !strings.Contains(got, "export as:") || !strings.Contains(got, "r replay script") {
		t.Fatalf("X: bottom line is not the format prompt: %q", got)
	}
	press(m, formatKey)
	if m.exp.step != exportName {
		t.Fatalf("%s: the prompt did not move to the file name", formatKey)
	}
	format := m.exp.format
	offered := m.exp.in.Value()
	if !strings.HasPrefix(filepath.Base(offered), "linesman-"+format+"-") || filepath.Dir(offered) != exportDir() {
		t.Fatalf("offered name %q: want linesman-%s-<time> in %s", offered, format, exportDir())
	}
	if hint := ansi.Strip(m.exportHint()); !strings.Contains(hint, "the path is editable") {
		t.Fatalf("the prompt does not say the path is editable: %q", hint)
	}
	if got := ansi.Strip(m.bottomLine()); !strings.Contains(got, "export "+format+" to: "+offered) {
		t.Fatalf("name prompt: %q", got)
	}
	press(m, "ctrl+u") // clear the offered name
	typeText(m, path)
	press(m, "enter")
	if m.exp.step != exportOff {
		t.Fatal("enter left the export prompt open")
	}
	return ansi.Strip(m.bottomLine())
}

// TestExportFromTheUI writes each format from a read-only model (as in
// `linesman view`) and checks what the files hold: the replay script, run
// with sh into cat, gives back the client frames byte for byte; the findings
// parse as the check --json report with the session's findings; the
// transcript is inert text.
func TestExportFromTheUI(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(120, 30, nil)
	m.opts.Header = capture.Header{Command: []string{"cat"}, Cwd: "/srv/weather"}
	dir := t.TempDir()

	// The client frames, in log order, as they were on the wire.
	var want []byte
	clientFrames := 0
	codes := map[string]bool{}
	for _, ev := range f.log.Range(0, 1<<62) {
		if ev.Type == eventlog.EventFrame {
			if ev.Dir == wire.ClientToServer {
				want = append(want, ev.Frame.Raw()...)
				clientFrames++
			}
			for _, x := range ev.Frame.Findings {
				codes[x.Code] = true
			}
		}
		if ev.Type == eventlog.EventFinding {
			codes[ev.Finding.Code] = true
		}
	}

	t.Run("replay", func(t *testing.T) {
		path := filepath.Join(dir, "replay.sh")
		line := exportTo(t, m, "r", path)
		if m.messageBad || !strings.Contains(line, fmt.Sprintf("wrote %d client frames as a replay script", clientFrames)) || !strings.Contains(line, path) {
			t.Fatalf("bottom line: %q", line)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("replay script mode %v, want 0700", fi.Mode().Perm())
		}
		script, _ := os.ReadFile(path)
		if !strings.Contains(string(script), `printf '{"jsonrpc":"2.0","id":1,"method":"initialize"`) ||
			!strings.Contains(string(script), "} | cat\n") {
			t.Fatalf("script lacks the client frames' printf or the command:\n%s", script)
		}
		out, err := exec.Command("sh", path).Output()
		if err != nil {
			t.Fatalf("sh %s: %v", path, err)
		}
		if !bytes.Equal(out, want) {
			t.Fatalf("the replay gave back\n%q\nwant the client frames\n%q", out, want)
		}
	})

	t.Run("findings", func(t *testing.T) {
		path := filepath.Join(dir, "findings.json")
		line := exportTo(t, m, "f", path)
		if m.messageBad || !strings.Contains(line, "wrote the findings report") {
			t.Fatalf("bottom line: %q", line)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("findings mode %v, want 0600", fi.Mode().Perm())
		}
		var r struct {
			Mode     string   `json:"mode"`
			Command  []string `json:"command"`
			Era      string   `json:"era"`
			Findings []struct {
				Code string `json:"code"`
			} `json:"findings"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("findings export is not JSON: %v\n%s", err, b)
		}
		if r.Mode != "export" || !slices.Equal(r.Command, []string{"cat"}) || r.Era != eventlog.EraLegacy.String() {
			t.Errorf("report meta: mode %q, command %q, era %q", r.Mode, r.Command, r.Era)
		}
		got := map[string]bool{}
		for _, x := range r.Findings {
			got[x.Code] = true
		}
		for c := range codes {
			if !got[c] {
				t.Errorf("finding %s of the session is missing from the export", c)
			}
		}
		if len(codes) < 10 {
			t.Fatalf("the fixture has only %d finding codes", len(codes))
		}
	})

	t.Run("transcript", func(t *testing.T) {
		path := filepath.Join(dir, "transcript.txt")
		line := exportTo(t, m, "t", path)
		if m.messageBad || !strings.Contains(line, "events as a transcript") {
			t.Fatalf("bottom line: %q", line)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("transcript mode %v, want 0600", fi.Mode().Perm())
		}
		s := string(b)
		if !strings.HasPrefix(s, "# linesman session: cat\n") || !strings.Contains(s, "# cwd /srv/weather\n") ||
			!strings.Contains(s, "tools/call") || !strings.Contains(s, "gotcha") {
			t.Fatalf("transcript:\n%s", s)
		}
		if strings.ContainsRune(s, '\x1b') || strings.ContainsRune(s, '\x07') {
			t.Fatal("the transcript holds the server's escape sequences")
		}
	})
}

// TestExportErrors: a path that cannot be written, an existing file and an
// empty name each say why on the bottom line; nothing panics, nothing is
// overwritten, and esc cancels.
func TestExportErrors(t *testing.T) {
	f := misbehaving(t, true)
	m := f.model(120, 30, nil)
	dir := t.TempDir()

	bad := filepath.Join(dir, "no", "such", "dir", "x.txt")
	line := exportTo(t, m, "t", bad)
	if !m.messageBad || !strings.Contains(line, "export:") || !strings.Contains(line, "no such file") {
		t.Fatalf("unwritable path: bottom line %q", line)
	}

	existing := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(existing, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	line = exportTo(t, m, "f", existing)
	if !m.messageBad || !strings.Contains(line, "exists") {
		t.Fatalf("existing file: bottom line %q", line)
	}
	if b, _ := os.ReadFile(existing); string(b) != "precious\n" {
		t.Fatalf("an existing file was overwritten: %q", b)
	}

	// No command known: the replay cannot be written, and leaves no file.
	noCmd := filepath.Join(dir, "replay.sh")
	line = exportTo(t, m, "r", noCmd)
	if !m.messageBad || !strings.Contains(line, "names no server command") {
		t.Fatalf("replay without a command: bottom line %q", line)
	}
	if _, err := os.Stat(noCmd); !os.IsNotExist(err) {
		t.Fatalf("a failed export left a file behind: %v", err)
	}

	// An empty name keeps the prompt open with the reason.
	press(m, "X", "t", "ctrl+u", "enter")
	if m.exp.step != exportName || !m.messageBad || !strings.Contains(ansi.Strip(m.bottomLine()), "no file name") {
		t.Fatalf("empty name: step %d, bottom line %q", m.exp.step, ansi.Strip(m.bottomLine()))
	}
	press(m, "esc")
	if m.exp.step != exportOff || m.messageBad {
		t.Fatalf("esc did not cancel: step %d, message %q", m.exp.step, m.message)
	}
	// Esc at the format step, and a key that is no format, do nothing else.
	press(m, "X", "z")
	if m.exp.step != exportFormat {
		t.Fatalf("z at the format step: step %d", m.exp.step)
	}
	press(m, "esc")
	if m.exp.step != exportOff {
		t.Fatal("esc at the format step did not cancel")
	}
}

// TestExportWhileLive: in a live session the prompt's keys are the
// prompt's (r is not resend), and the export is written from the live log,
// with the command from the process information.
func TestExportWhileLive(t *testing.T) {
	f := misbehaving(t, true)
	srv := newFakeServer(f)
	m := f.model(120, 30, srv)
	m.opts.ProcessInfo = func() ([]string, []string, string, int64) { return []string{"cat"}, nil, "/tmp", 0 }
	m.refresh()
	path := filepath.Join(t.TempDir(), "live.sh")
	line := exportTo(t, m, "r", path)
	if m.messageBad || !strings.Contains(line, "wrote 6 client frames") { // initialize … the slow tools/call
		t.Fatalf("bottom line: %q", line)
	}
	if s := srv.lastSent(); s != "" {
		t.Fatalf("a prompt key sent a frame: %q", s)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "} | cat\n") || !strings.Contains(string(b), "# the server ran in: /tmp\n") {
		t.Fatalf("replay from the live model:\n%s", b)
	}
}

// TestExportDefaultsToAStatedDirectory: X offers a name in the export
// directory (not wherever linesman was started), the prompt says the path
// is editable and where it points, the directory is made on demand, and
// the result names the whole file, on screen at 80×24.
func TestExportDefaultsToAStatedDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "deep", "exports with a long name to wrap the result message")
	t.Setenv("LINESMAN_EXPORT_DIR", dir)
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	press(m, "X", "t")
	screen := ansi.Strip(m.Render())
	if !strings.Contains(squash(screen), squash("the path is editable")) {
		t.Fatalf("the prompt does not say the path is editable:\n%s", screen)
	}
	offered := m.exp.in.Value()
	if filepath.Dir(offered) != dir {
		t.Fatalf("offered %q, want a name in %s", offered, dir)
	}
	press(m, "enter")
	if _, err := os.Stat(offered); err != nil {
		t.Fatalf("the export was not written where offered: %v (message %q)", err, m.message)
	}
	screen = plain(t, m.Render(), 80, 24)
	if !strings.Contains(squash(screen), squash(filepath.Base(offered))) || !strings.Contains(squash(bottomText(m)), squash(offered)) {
		t.Errorf("the result does not show the whole file name %q:\n%s", offered, screen)
	}
}

// TestExportLatencyAndOTLP: the prompt offers the latency (l) and OTLP (o)
// exports of `linesman export --format`, and writes the projection's calls
// in each: JSON Lines of a per-method row and the calls, and one OTLP
// ExportTraceServiceRequest with a span per call.
func TestExportLatencyAndOTLP(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(160, 30, nil)
	dir := t.TempDir()
	press(m, "X")
	if got := ansi.Strip(m.bottomLine()); !strings.Contains(got, "l latency JSON Lines") || !strings.Contains(got, "o OTLP JSON") {
		t.Fatalf("the format prompt does not offer latency and OTLP: %q", got)
	}
	press(m, "esc")

	path := filepath.Join(dir, "latency.jsonl")
	if line := exportTo(t, m, "l", path); m.messageBad || !strings.Contains(line, "wrote the latency") {
		t.Fatalf("bottom line: %q", line)
	}
	b, _ := os.ReadFile(path)
	kinds := map[string]int{}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var row struct{ Kind, Method string }
		if err := json.Unmarshal(l, &row); err != nil {
			t.Fatalf("latency line %q: %v", l, err)
		}
		kinds[row.Kind]++
	}
	if kinds["method"] == 0 || kinds["call"] == 0 {
		t.Fatalf("latency export %v:\n%s", kinds, b)
	}

	path = filepath.Join(dir, "otlp.json")
	if line := exportTo(t, m, "o", path); m.messageBad || !strings.Contains(line, "OTLP JSON spans") {
		t.Fatalf("bottom line: %q", line)
	}
	b, _ = os.ReadFile(path)
	var req struct {
		ResourceSpans []struct {
			ScopeSpans []struct{ Spans []struct{ Name string } }
		}
	}
	if err := json.Unmarshal(b, &req); err != nil || len(req.ResourceSpans) != 1 ||
		len(req.ResourceSpans[0].ScopeSpans) == 0 || len(req.ResourceSpans[0].ScopeSpans[0].Spans) != kinds["call"] {
		t.Fatalf("OTLP export (%v; want a span per call, %d):\n%s", err, kinds["call"], b)
	}
}
