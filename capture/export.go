package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"linesman/session/eventlog"
	"linesman/session/hosts"
	"linesman/session/report"
	"linesman/wire"
)

// replayChunk bounds the escaped text of one printf line in a replay
// script, so that a 20 MiB frame stays an editable script.
const replayChunk = 4000

// ErrNoCommand is returned by WriteReplay when there is no server command
// to pipe the frames into.
var ErrNoCommand = errors.New("the capture names no server command")

// WriteReplay writes a POSIX shell script that pipes the log's client frames,
// byte for byte, into command: `{ printf '...'; ... } | COMMAND`. Every byte
// that is not printable ASCII is an escape of printf's format (\n, \r, \t,
// or octal \NNN), so the script itself is plain ASCII and survives mail and
// copy-paste. It is a teaching artefact and a bug-report attachment: the
// frames go in all at once, not with the timing of the session.
func WriteReplay(w io.Writer, log *eventlog.Log, h Header) error {
	if len(h.Command) == 0 {
		return ErrNoCommand
	}
	bw := bufio.NewWriter(w)
	first, next := log.Bounds()
	var frames, bytes int64
	for seq := first; seq < next; seq++ {
		if ev, ok := log.Get(seq); ok && ev.Type == eventlog.EventFrame && ev.Dir == wire.ClientToServer {
			frames++
			bytes += int64(len(ev.Frame.Raw()))
		}
	}
	fmt.Fprintln(bw, "#!/bin/sh")
	fmt.Fprintln(bw, "# linesman replay: the client frames of a recorded session, byte for byte,")
	fmt.Fprintln(bw, "# piped into the server's standard input all at once.")
	if !h.Start.IsZero() {
		fmt.Fprintf(bw, "# recorded %s by linesman %s\n", h.Start.UTC().Format(time.RFC3339), commentSafe(h.Linesman))
	}
	if h.Cwd != "" {
		fmt.Fprintf(bw, "# the server ran in: %s\n", commentSafe(h.Cwd))
	}
	fmt.Fprintf(bw, "# %d client frames, %d bytes\n", frames, bytes)
	if d, _ := log.Dropped(); d > 0 {
		fmt.Fprintf(bw, "# warning: %d events of the session were dropped before this export; frames among them are missing\n", d)
	}
	prelude, command := replayCommand(h.Command)
	for _, l := range prelude {
		fmt.Fprintln(bw, l)
	}
	fmt.Fprintln(bw, "{")
	for seq := first; seq < next; seq++ {
		ev, ok := log.Get(seq)
		if !ok || ev.Type != eventlog.EventFrame || ev.Dir != wire.ClientToServer {
			continue
		}
		label := fmt.Sprintf("frame %d", ev.Seq)
		if m := ev.Frame.Msg.Method; m != "" && commentSafe(m) == m {
			label += " " + m
		}
		if ev.Frame.Truncated() {
			label += " (truncated on the wire: only the kept bytes are replayed)"
		}
		fmt.Fprintf(bw, "# %s\n", label)
		writePrintf(bw, ev.Frame.Raw())
	}
	fmt.Fprintf(bw, "} | %s\n", command)
	return bw.Flush()
}

// replayCommand renders argv for the script's last line. A word of
// printable ASCII is quoted as usual; any other word (control bytes, C1, a
// newline, non-ASCII) is built by printf into a variable first, so that the
// script stays plain ASCII and cat of it cannot drive a terminal. The
// trailing X survives the command substitution's removal of trailing
// newlines and is cut off after it. An argument the capture holds
// redacted (a secret) is read from a variable the script names, and the
// script stops with a message while it is unset.
func replayCommand(argv []string) (prelude []string, command string) {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a == hosts.Redaction && i > 0 {
			v := fmt.Sprintf("LINESMAN_SECRET_%d", i)
			prelude = append(prelude, fmt.Sprintf("# argument %d of the server's command was a secret, removed from the capture: set %s to it", i, v))
			words[i] = fmt.Sprintf(`"${%s:?argument %d was a secret removed from the capture; set %s}"`, v, i, v)
			continue
		}
		if printableASCII(a) {
			words[i] = shellQuote([]string{a})
			continue
		}
		v := fmt.Sprintf("linesman_arg%d", i)
		prelude = append(prelude, fmt.Sprintf("%s=$(printf '%sX'); %s=${%s%%X}", v, printfFormat([]byte(a)), v, v))
		words[i] = `"$` + v + `"`
	}
	return prelude, strings.Join(words, " ")
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// printfFormat is a printf format string that expands to exactly raw. It
// never begins with '-': printf would take it for an option ("printf:
// Illegal option") and print nothing, so a leading '-' is written as its
// octal escape, which no printf reads as an option.
func printfFormat(raw []byte) string {
	var b strings.Builder
	for _, c := range raw {
		writeFormatByte(&b, c)
	}
	return b.String()
}

// writeFormatByte appends c to the format b is building: as printf's
// escape, and as \055 when it would be a leading '-'.
func writeFormatByte(b *strings.Builder, c byte) {
	if c == '-' && b.Len() == 0 {
		b.WriteString(`\055`)
		return
	}
	writePrintfByte(b, c)
}

// writePrintf writes raw as printf lines whose format strings expand to
// exactly raw. Each line's format starts afresh, so each is guarded against
// a leading '-' (see printfFormat).
func writePrintf(w *bufio.Writer, raw []byte) {
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			fmt.Fprintf(w, "printf '%s'\n", b.String())
			b.Reset()
		}
	}
	for _, c := range raw {
		writeFormatByte(&b, c)
		if b.Len() >= replayChunk || c == '\n' {
			flush()
		}
	}
	flush()
}

// writePrintfByte writes c as printf's format spells it, in plain ASCII.
func writePrintfByte(b *strings.Builder, c byte) {
	switch {
	case c == '\\':
		b.WriteString(`\\`)
	case c == '%':
		b.WriteString("%%")
	case c == '\'':
		b.WriteString(`\047`)
	case c == '\n':
		b.WriteString(`\n`)
	case c == '\r':
		b.WriteString(`\r`)
	case c == '\t':
		b.WriteString(`\t`)
	case c >= 0x20 && c < 0x7f:
		b.WriteByte(c)
	default:
		// Always three digits: a shorter escape would swallow a
		// following digit.
		b.WriteByte('\\')
		b.WriteByte('0' + c>>6)
		b.WriteByte('0' + (c>>3)&7)
		b.WriteByte('0' + c&7)
	}
}

// shellQuote renders argv for a POSIX shell: each word in single quotes
// unless it is made only of characters no shell treats specially.
func shellQuote(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@") == "" {
			words[i] = a
			continue
		}
		words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

// commentSafe makes s fit on one line of a shell comment.
func commentSafe(s string) string {
	return inert(s)
}

// WriteTranscript writes the log as readable text, one row per event (one per
// physical line for frames), with times since the start. Everything the
// server wrote is made inert: escape sequences and control bytes are shown as
// visible symbols and never reach the terminal.
func WriteTranscript(w io.Writer, log *eventlog.Log, h Header) error {
	bw := bufio.NewWriter(w)
	WriteTranscriptHeader(bw, log, h)
	first, next := log.Bounds()
	for seq := first; seq < next; seq++ {
		if ev, ok := log.Get(seq); ok {
			WriteTranscriptEvent(bw, &ev)
		}
	}
	return bw.Flush()
}

// WriteTranscriptHeader writes the transcript's opening lines.
func WriteTranscriptHeader(w io.Writer, log *eventlog.Log, h Header) {
	fmt.Fprintf(w, "# linesman session: %s\n", inert(shellQuote(h.Command)))
	if !h.Start.IsZero() {
		fmt.Fprintf(w, "# started %s", h.Start.Format(time.RFC3339Nano))
		if h.Linesman != "" {
			fmt.Fprintf(w, ", recorded by linesman %s", inert(h.Linesman))
		}
		fmt.Fprintln(w)
	}
	if h.Cwd != "" {
		fmt.Fprintf(w, "# cwd %s\n", inert(h.Cwd))
	}
	if d, _ := log.Dropped(); d > 0 {
		fmt.Fprintf(w, "# %d earlier events were dropped by the retention limit\n", d)
	}
}

// WriteTranscriptEvent writes one event's rows.
func WriteTranscriptEvent(w io.Writer, ev *eventlog.Event) {
	at := fmt.Sprintf("%12.6f", ev.At.Seconds())
	switch ev.Type {
	case eventlog.EventFrame:
		f := ev.Frame
		what := f.Msg.Kind.String()
		if id := f.Msg.ID.String(); id != "" {
			what += " id=" + inert(id)
		}
		if f.Msg.Method != "" {
			what += " " + inert(f.Msg.Method)
		}
		fmt.Fprintf(w, "%s  %s  #%d %s, %d bytes", at, ev.Dir, ev.Seq, what, f.Size())
		if len(f.Lines) > 1 {
			fmt.Fprintf(w, ", %d lines", len(f.Lines))
		}
		fmt.Fprintln(w)
		for i := range f.Lines {
			fmt.Fprintf(w, "%12s  %s  │ %s\n", "", ev.Dir, lineText(&f.Lines[i]))
		}
		for _, x := range f.Findings {
			fmt.Fprintf(w, "%12s  %s  ! %s %s: %s\n", "", ev.Dir, x.Severity, inert(x.Code), inert(x.Message))
		}
	case eventlog.EventStderr:
		fmt.Fprintf(w, "%s  err  %s\n", at, lineText(ev.Stderr))
	case eventlog.EventProcess:
		p := ev.Process
		s := p.State.String()
		switch p.State {
		case eventlog.StateExiting:
			s += " (" + p.Step.String() + ")"
		case eventlog.StateExited:
			if p.Signal != "" {
				s += " by " + inert(p.Signal) // a crafted file's word
			} else {
				s += " with code " + strconv.Itoa(p.ExitCode)
			}
			if p.ByHost || (p.AfterEOF && p.Step == eventlog.StepNone) {
				s += ", " + eventlog.HowEnded(p.Step, p.AfterEOF, p.ByHost)
			} else {
				s += ", ended by " + p.Step.String()
			}
			if p.ShutdownTook > 0 {
				s += ", shutdown took " + p.ShutdownTook.String()
			}
		}
		if p.Pid != 0 {
			s += ", pid " + strconv.Itoa(p.Pid)
		}
		if p.Detail != "" {
			s += ": " + inert(p.Detail)
		}
		fmt.Fprintf(w, "%s  proc %s\n", at, s)
	case eventlog.EventFinding:
		x := ev.Finding
		fmt.Fprintf(w, "%s  !    %s %s: %s", at, x.Severity, inert(x.Code), inert(x.Message))
		if x.FrameSeq != 0 {
			fmt.Fprintf(w, " (frame #%d)", x.FrameSeq)
		}
		fmt.Fprintln(w)
	case eventlog.EventNote, eventlog.EventEra, eventlog.EventRestart, eventlog.EventStdinClosed:
		if ev.IsNote() {
			fmt.Fprintf(w, "%s  note %s\n", at, inert(ev.Note))
		}
	}
}

// lineText renders one physical line inertly, with its terminator when it
// is not the plain "\n" and a mark when it was truncated.
func lineText(l *wire.Line) string {
	s := inert(string(l.Content))
	switch l.Term {
	case wire.TermCRLF:
		s += " [\\r\\n]"
	case wire.TermNone:
		s += " [no newline]"
	}
	if l.Truncated {
		s += fmt.Sprintf(" [truncated: %d of %d bytes kept]", len(l.Content), l.Length)
	}
	return s
}

// Formats are the names Export knows, for command lines and menus.
var Formats = []string{"replay", "findings", "transcript", "latency", "otlp"}

// Export writes the log in the named format (one of Formats): the replay
// script, the findings report, the transcript, the latency of its calls
// (JSON Lines) or its calls as OTLP JSON spans. tr may be nil for the
// first three (the findings report then has no requests list). The UI and `linesman export`
// both go through here.
func Export(w io.Writer, format string, log *eventlog.Log, tr *eventlog.Tracker, h Header) error {
	switch format {
	case "replay":
		return WriteReplay(w, log, h)
	case "findings":
		return WriteFindings(w, log, tr, h)
	case "latency", "otlp":
		if tr == nil {
			return fmt.Errorf("capture: the %s export reads the log's projection, and there is none", format)
		}
		if format == "latency" {
			return WriteLatency(w, tr)
		}
		return WriteOTLP(w, tr, h)
	case "transcript":
		return WriteTranscript(w, log, h)
	}
	return fmt.Errorf("capture: unknown export format %q (want %s)", format, strings.Join(Formats, ", "))
}

// WriteFindings writes the log's findings report as JSON, in the schema of
// `linesman check --json`. The pairing and the handshake facts are the
// tracker's (the projection of the log), as everywhere else.
func WriteFindings(w io.Writer, log *eventlog.Log, tr *eventlog.Tracker, h Header) error {
	r := report.FromLog(log, tr, report.Meta{Mode: "export", Command: h.Command})
	return r.WriteJSON(w)
}

// inert makes server text safe for a terminal (see wire.Visible).
func inert(s string) string { return wire.VisibleString(s, wire.Pictures) }
