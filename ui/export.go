package ui

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/wire"
)

// Export from the UI (X): a two-step prompt on the bottom line — which
// format (r, f, t, l, o), then which file (a fresh name in the export directory,
// [exportDir], is offered, and the prompt says the path can be edited) — and
// the file is written by capture.Export in a command, so
// that a large log never stalls the event loop. It is the same export as
// `linesman export`, from the log the UI shows, live or read-only.

// exportStep is where the export prompt is.
type exportStep int

const (
	exportOff    exportStep = iota
	exportFormat            // waiting for a format's key (exportFormats)
	exportName              // editing the file name
)

// exportPrompt is the state of the export prompt.
type exportPrompt struct {
	step   exportStep
	format string // one of capture.Formats, once chosen
	dir    string // the directory offered (created when written to)
	in     textinput.Model
}

// exportFormats maps the prompt's keys to formats and their file suffixes.
var exportFormats = []struct{ key, format, ext, what string }{
	{"r", "replay", ".sh", "replay script"},
	{"f", "findings", ".json", "findings JSON"},
	{"t", "transcript", ".txt", "transcript text"},
	{"l", "latency", ".jsonl", "latency JSON Lines"},
	{"o", "otlp", ".json", "OTLP JSON"},
}

// defaultExportName is the file name offered for format at time t: in dir,
// unlikely to exist already.
func defaultExportName(dir, format string, t time.Time) string {
	ext := ".txt"
	for _, f := range exportFormats {
		if f.format == format {
			ext = f.ext
		}
	}
	return filepath.Join(dir, "linesman-"+format+"-"+t.Format("20060102-150405")+ext)
}

// exportDir is where exports go unless the user types another path:
// $LINESMAN_EXPORT_DIR, else $XDG_STATE_HOME/linesman/exports, else
// ~/.local/state/linesman/exports — one stated place, not whatever
// directory the inspector was started in (often the server's project).
// It is created when an export is written there. Under the home directory
// it is spelled with ~/ (the prompt expands it).
func exportDir() string {
	dir := os.Getenv("LINESMAN_EXPORT_DIR")
	if dir == "" {
		if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
			dir = filepath.Join(x, "linesman", "exports")
		} else if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "state", "linesman", "exports")
		} else {
			return "."
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if rest, ok := strings.CutPrefix(dir, home+string(filepath.Separator)); ok {
			return "~/" + rest
		}
	}
	return dir
}

// startExport opens the prompt at its first step.
func (m *Model) startExport() tea.Cmd {
	m.exp = exportPrompt{step: exportFormat}
	return nil
}

// exportChooseKey picks the format whose key was pressed (exportFormats).
func (m *Model) exportChooseKey(msg tea.KeyPressMsg) tea.Cmd {
	for _, f := range exportFormats {
		if msg.String() == f.key {
			return m.exportChoose(f.format)
		}
	}
	return nil
}

// writeExportFile writes the export to the file name typed.
func (m *Model) writeExportFile() tea.Cmd {
	path := strings.TrimSpace(m.exp.in.Value())
	if path == "" {
		m.setMessage("export: no file name", true)
		return nil
	}
	format := m.exp.format
	mkdir := ""
	if filepath.Dir(path) == filepath.Clean(m.exp.dir) {
		mkdir = expandHome(m.exp.dir) // the offered directory is made on demand; a typed one must exist
	}
	m.exp = exportPrompt{}
	m.setMessage(fmt.Sprintf("exporting %s to %s…", format, path), false)
	log, tr, h := m.opts.Log, m.opts.Tracker, m.exportHeader()
	return func() tea.Msg {
		if mkdir != "" {
			if err := os.MkdirAll(mkdir, 0o700); err != nil {
				return resultMsg{"export", err}
			}
		}
		return writeExport(path, format, log, tr, h)
	}
}

func (m *Model) cancelExport() {
	m.exp = exportPrompt{}
	m.setMessage("export cancelled", false)
}

// exportChoose moves the prompt to the file name, offering a fresh one.
func (m *Model) exportChoose(format string) tea.Cmd {
	in := textinput.New()
	in.SetStyles(m.c.st.TextInput)
	in.Prompt = "export " + format + " to: "
	in.SetWidth(max(m.width-len(in.Prompt)-1, 10))
	m.exp.dir = exportDir()
	in.SetValue(defaultExportName(m.exp.dir, format, time.Now()))
	in.CursorEnd()
	m.exp.step, m.exp.format, m.exp.in = exportName, format, in
	return m.exp.in.Focus()
}

// exportHeader is the capture header the export describes the session
// with: what the caller said (Options.Header), completed from the log and
// the process pane.
func (m *Model) exportHeader() capture.Header {
	h := m.opts.Header
	if h.Start.IsZero() {
		h.Start = m.opts.Log.Start()
	}
	if h.Linesman == "" {
		h.Linesman = eventlog.Version
	}
	if info := m.process.info; info != nil {
		if len(h.Command) == 0 {
			h.Command = info.Command
		}
		if h.Cwd == "" {
			h.Cwd = info.Dir
		}
	}
	h.Command = append([]string(nil), h.Command...)
	return h
}

// exportLine is the bottom line while the export prompt is open.
func (m *Model) exportLine() string {
	st := m.c.st
	if m.message != "" && m.messageBad {
		return fit(st.Error.Render("✖ "+wire.VisibleString(m.message, wire.Pictures)), m.width)
	}
	if m.exp.step == exportName {
		return fit(m.exp.in.View(), m.width)
	}
	parts := []string{st.Accent.Render("export as:")}
	for _, f := range exportFormats {
		parts = append(parts, st.Help.ShortKey.Render(f.key)+" "+st.Help.ShortDesc.Render(f.what))
	}
	parts = append(parts, st.Help.ShortKey.Render("esc")+" "+st.Help.ShortDesc.Render("cancel"))
	return fit(strings.Join(parts, "  "), m.width)
}

// writeExport writes the log in format to path and says what it wrote (a
// resultMsg for the bottom line). It runs in a command, off the event loop.
// It never overwrites a file: an export is a new artefact, and a mistyped
// name must not destroy one. Files are 0600 (a session can hold secrets),
// a replay script 0700.
func writeExport(path, format string, log *eventlog.Log, tr *eventlog.Tracker, h capture.Header) resultMsg {
	path = expandHome(path)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	// Counted before writing: in a live session the log grows meanwhile,
	// and the count is of what the export could at least see.
	var clientFrames, events int
	first, next := log.Bounds()
	for seq := first; seq < next; seq++ {
		if ev, ok := log.Get(seq); ok {
			events++
			if ev.Type == eventlog.EventFrame && ev.Dir == wire.ClientToServer {
				clientFrames++
			}
		}
	}
	mode := os.FileMode(0o600)
	if format == "replay" {
		mode = 0o700
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return resultMsg{"export", fmt.Errorf("%s exists; not overwriting it (choose another name)", path)}
	}
	if err != nil {
		return resultMsg{"export", err}
	}
	cw := &countWriter{w: f}
	bw := bufio.NewWriterSize(cw, 64<<10)
	err = capture.Export(bw, format, log, tr, h)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // a partial export would pass for a whole one
		return resultMsg{"export", err}
	}
	size := humanBytes(cw.n)
	var text string
	switch format {
	case "replay":
		text = fmt.Sprintf("wrote %d client frames as a replay script (%s) to %s", clientFrames, size, path)
	case "findings":
		text = fmt.Sprintf("wrote the findings report (%s) to %s", size, path)
	case "latency":
		text = fmt.Sprintf("wrote the latency per method, tool and call (%s) to %s", size, path)
	case "otlp":
		text = fmt.Sprintf("wrote the calls as OTLP JSON spans (%s) to %s", size, path)
	default:
		text = fmt.Sprintf("wrote %d events as a transcript (%s) to %s", events, size, path)
	}
	return resultMsg{text, nil}
}

// expandHome expands a leading ~/ to the home directory.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// exportHint is the row above the file name prompt: the path is offered,
// not imposed.
func (m *Model) exportHint() string {
	st := m.c.st
	return fit(st.Subtle.Render("the path is editable (default folder "+wire.VisibleString(m.exp.dir, wire.Pictures)+", created if missing) · ")+
		st.Help.ShortKey.Render("enter")+" "+st.Help.ShortDesc.Render("write")+"  "+
		st.Help.ShortKey.Render("esc")+" "+st.Help.ShortDesc.Render("cancel"), m.width)
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
