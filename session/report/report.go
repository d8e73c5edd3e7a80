// Package report is what a run of linesman concludes: the JSON report schema
// that scripts and CI read, the human text report, the headless exit-status
// policy ([ExitInterrupted] and [Report.ExitStatus]) and the shell quoting of
// a command for reading ([ShellJoin]).
//
// It reads a [session.Log] and its [session.Tracker]; it starts no process
// and keeps no bookkeeping of its own.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"linesman/session"
	"linesman/wire"
)

// A Report is what the headless modes print: one session summed up, built
// from the event Log, the Tracker's requests and what the handshake learned.
// Its JSON form is a stable schema that scripts and CI read: fields may be
// added, never renamed (see README.md, "JSON report").
type Report struct {
	Linesman        string          `json:"linesman"`
	Mode            string          `json:"mode,omitempty"`
	Command         []string        `json:"command"`
	Era             string          `json:"era"`
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Process         Process         `json:"process"`
	Stderr          []string        `json:"stderr"`
	// StderrLines counts every stderr line the log kept; Stderr holds at
	// most the last Meta.StderrLimit of them.
	StderrLines int       `json:"stderrLines"`
	Frames      []Frame   `json:"frames"`
	Requests    []Request `json:"requests"`
	Findings    []Finding `json:"findings"`
	Summary     Summary   `json:"summary"`
	// Notes are what linesman itself logged: era decisions, restarts.
	Notes   []Note   `json:"linesmanNotes"`
	Dropped *Dropped `json:"dropped,omitempty"`
	// Error is a failure of linesman's own run, when there was one.
	Error string `json:"error,omitempty"`
	// Interrupted is set when linesman was interrupted (^C, SIGTERM,
	// SIGHUP): it stopped early and exits with status 130.
	Interrupted bool `json:"interrupted,omitempty"`

	frameIndex map[uint64]int // frame Seq -> index in Frames
	stderrAll  []string       // every retained stderr line (the text report shows a tail)
}

// Process is the "process" block: how the server process ran and ended.
type Process struct {
	Pid int `json:"pid"`
	// State is "starting", "running", "exiting" or "exited".
	State string `json:"state"`
	// ExitCode is null when a signal ended the process or it has not exited.
	ExitCode *int `json:"exitCode"`
	// Signal names the signal that ended it ("SIGKILL"), or null.
	Signal *string `json:"signal"`
	// EndedBy is "exit" (it exited on its own), "stdin-close", "sigterm" or
	// "sigkill": the shutdown step that ended it; null while it runs.
	EndedBy *string `json:"endedBy"`
	// ShutdownMs is the time from the first shutdown step to the exit.
	ShutdownMs float64 `json:"shutdownMs"`
	// Restarts counts the times the server was restarted within the log;
	// the other fields describe the last process.
	Restarts int `json:"restarts"`
}

// Frame is one logical frame of the "frames" list.
type Frame struct {
	Seq    uint64          `json:"seq"`
	Time   string          `json:"time"`
	Dir    string          `json:"dir"`
	Kind   string          `json:"kind"`
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Bytes  int64           `json:"bytes"`
	Lines  int             `json:"lines"`
	// Findings are the codes raised on the frame, then the codes of later
	// findings that point at it (a timeout, unflushed output).
	Findings []string `json:"findings"`
	// Text is the frame's bytes as text (invalid UTF-8 replaced), present
	// only when Meta.FrameText asks for it (send does).
	Text          *string `json:"text,omitempty"`
	TextTruncated bool    `json:"textTruncated,omitempty"`
	// InReplyTo names, on a response, the request it answered (as the
	// tracker matched them), since a response carries no method.
	InReplyTo *ReplyTo `json:"inReplyTo,omitempty"`

	frame *wire.Frame // for the text report's excerpts (log events are immutable)
}

// ReplyTo points from a response frame to the request it answered.
type ReplyTo struct {
	Seq    uint64 `json:"seq"`
	Method string `json:"method"`
}

// Request is one request of the "requests" list.
type Request struct {
	Dir    string          `json:"dir"`
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	State  string          `json:"state"`
	// Ms is how long the request took to end (answer, error, timeout, loss);
	// null while it is still in flight.
	Ms          *float64 `json:"ms"`
	Seq         uint64   `json:"seq"`
	ResponseSeq *uint64  `json:"responseSeq"`
	Late        bool     `json:"late,omitempty"`
}

// Finding is one entry of the "findings" list.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	// Seq is the frame the finding points at, or null for findings that
	// belong to no frame (process and stderr findings).
	Seq     *uint64 `json:"seq"`
	Dir     *string `json:"dir"`
	Message string  `json:"message"`
	Title   string  `json:"title,omitempty"`
	Fix     string  `json:"fix,omitempty"`
}

// Summary counts the findings by severity.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
	Frames   int `json:"frames"`
}

// Note is something linesman itself logged (era decisions, restarts).
type Note struct {
	Seq  uint64 `json:"seq"`
	Time string `json:"time"`
	Text string `json:"text"`
}

// Dropped says how much of the session the log's retention limit
// dropped before the report was built.
type Dropped struct {
	Events uint64 `json:"events"`
	Bytes  int64  `json:"bytes"`
}

// Meta is what a report needs that the log does not hold. The handshake
// facts (era, protocol version, serverInfo) are not here: they are the
// projection's ([session.Tracker.Handshake]), read from the tracker.
type Meta struct {
	Mode    string   // "check", "send", "export", ...
	Command []string // the server's argv
	// StderrLimit bounds the stderr lines in the JSON report (the last
	// ones are kept); 0 means 1000, negative means no limit.
	StderrLimit int
	// FrameText puts each frame's text into the report, cut at
	// FrameTextLimit bytes (0 means 64 KiB).
	FrameText      bool
	FrameTextLimit int
	// Error is a failure of linesman's own run (the handshake never
	// finished, the server could not be started), shown in the report.
	Error string
	// Interrupted says linesman was interrupted and stopped early; the
	// report's exit status is then ExitInterrupted.
	Interrupted bool
}

// ExitInterrupted is the exit status of a headless run that was interrupted.
const ExitInterrupted = 130

// Build reports a session: its log, its tracker's requests, and what
// the handshake learned. Call it once the session is Done for a final report;
// earlier, it reports what has happened so far.
func Build(s *session.Session) Report {
	return FromLog(s.Log(), s.Tracker(), SessionMeta(s))
}

// SessionMeta is the Meta of a session as it stands: its command. Callers
// add Mode and the like.
func SessionMeta(s *session.Session) Meta {
	return Meta{Command: s.Info().Command}
}

// FromLog builds a report from a log, the tracker that saw its frames (nil:
// no requests list and no handshake facts) and meta. It is what Build uses,
// and what capture uses to export findings from a capture file in the same
// schema. Pairing and handshake facts come from the tracker, as the UI
// reads them.
func FromLog(log *session.Log, tr *session.Tracker, meta Meta) Report {
	var hs session.Handshake
	if tr != nil {
		hs = tr.Handshake()
	}
	r := Report{
		Linesman:        session.Version,
		Mode:            meta.Mode,
		Command:         meta.Command,
		Era:             hs.Era.String(),
		ProtocolVersion: hs.ProtocolVersion,
		ServerInfo:      hs.ServerInfo,
		Stderr:          []string{},
		Frames:          []Frame{},
		Requests:        []Request{},
		Findings:        []Finding{},
		Notes:           []Note{},
		Error:           meta.Error,
		Interrupted:     meta.Interrupted,
		frameIndex:      map[uint64]int{},
	}
	if r.Command == nil {
		r.Command = []string{}
	}
	if len(r.ServerInfo) == 0 || !json.Valid(r.ServerInfo) {
		r.ServerInfo = json.RawMessage("null")
	}
	textLimit := meta.FrameTextLimit
	if textLimit <= 0 {
		textLimit = 64 << 10
	}

	first, next := log.Bounds()
	if n, b := log.Dropped(); n > 0 {
		r.Dropped = &Dropped{Events: n, Bytes: b}
	}
	// Read the log in slices so that a huge log is not copied at once.
	const chunk = 4096
	for from := first; from < next; from += chunk {
		for _, ev := range log.Range(from, min(from+chunk, next)) {
			r.addEvent(ev, meta, textLimit)
		}
	}

	if tr != nil {
		for _, q := range tr.Requests() {
			rq := Request{
				Dir:    q.Dir.String(),
				ID:     idJSON(q.ID),
				Method: q.Method,
				State:  q.State.String(),
				Seq:    q.Seq,
				Late:   q.Late,
			}
			if q.State != session.ReqInFlight && q.EndedAt >= q.SentAt {
				ms := durationMs(q.EndedAt - q.SentAt)
				rq.Ms = &ms
			}
			if q.ResponseSeq != 0 {
				rs := q.ResponseSeq
				rq.ResponseSeq = &rs
				if i, ok := r.frameIndex[rs]; ok {
					r.Frames[i].InReplyTo = &ReplyTo{Seq: q.Seq, Method: q.Method}
				}
			}
			r.Requests = append(r.Requests, rq)
		}
	}

	limit := meta.StderrLimit
	if limit == 0 {
		limit = 1000
	}
	r.StderrLines = len(r.stderrAll)
	if limit > 0 && len(r.stderrAll) > limit {
		r.Stderr = append(r.Stderr, r.stderrAll[len(r.stderrAll)-limit:]...)
	} else {
		r.Stderr = append(r.Stderr, r.stderrAll...)
	}
	r.Summary.Frames = len(r.Frames)
	return r
}

// addEvent folds one log event into the report.
func (r *Report) addEvent(ev session.Event, meta Meta, textLimit int) {
	switch ev.Type {
	case session.EventFrame:
		f := ev.Frame
		if f == nil {
			return
		}
		dir := ev.Dir.String()
		rf := Frame{
			Seq:      ev.Seq,
			Time:     reportTime(ev.Wall),
			Dir:      dir,
			Kind:     f.Msg.Kind.String(),
			ID:       idJSON(f.Msg.ID),
			Bytes:    f.Size(),
			Lines:    len(f.Lines),
			Findings: []string{},
			frame:    f,
		}
		if f.Msg.Method != "" {
			m := f.Msg.Method
			rf.Method = &m
		}
		if meta.FrameText {
			raw := f.Raw()
			if len(raw) > textLimit {
				raw = raw[:textLimit]
				rf.TextTruncated = true
			}
			if f.Truncated() {
				rf.TextTruncated = true
			}
			s := string(raw)
			rf.Text = &s
		}
		for _, fd := range f.Findings {
			rf.Findings = append(rf.Findings, fd.Code)
			seq := ev.Seq
			r.addFinding(fd, &seq, &dir)
		}
		r.frameIndex[ev.Seq] = len(r.Frames)
		r.Frames = append(r.Frames, rf)
	case session.EventFinding:
		lf := ev.Finding
		if lf == nil {
			return
		}
		var seq *uint64
		if lf.FrameSeq != 0 {
			s := lf.FrameSeq
			seq = &s
			if i, ok := r.frameIndex[s]; ok {
				r.Frames[i].Findings = append(r.Frames[i].Findings, lf.Code)
			}
		}
		var dir *string
		if lf.Dir != 0 {
			d := lf.Dir.String()
			dir = &d
		}
		r.addFinding(lf.Finding, seq, dir)
	case session.EventStderr:
		if ev.Stderr != nil {
			r.stderrAll = append(r.stderrAll, string(ev.Stderr.Content))
		}
	case session.EventProcess:
		p := ev.Process
		if p == nil {
			return
		}
		if r.Process.State == "exited" {
			if p.State == session.StateExiting {
				// A shutdown step logged just after the exit it caused
				// (the signal and the log entry race): the exit stands.
				return
			}
			// A new process after a restart.
			r.Process = Process{Restarts: r.Process.Restarts + 1}
		}
		if p.Pid != 0 {
			r.Process.Pid = p.Pid
		}
		r.Process.State = p.State.String()
		if p.State == session.StateExited {
			if p.Signal == "" && p.ExitCode >= 0 {
				c := p.ExitCode
				r.Process.ExitCode = &c
			} else {
				r.Process.ExitCode = nil
			}
			if p.Signal != "" {
				s := p.Signal
				r.Process.Signal = &s
			}
			e := p.Step.String()
			r.Process.EndedBy = &e
			r.Process.ShutdownMs = durationMs(p.ShutdownTook)
		}
	case session.EventNote, session.EventEra, session.EventRestart:
		if !ev.IsNote() {
			return
		}
		r.Notes = append(r.Notes, Note{Seq: ev.Seq, Time: reportTime(ev.Wall), Text: ev.Note})
	}
}

// addFinding appends a finding and counts it.
func (r *Report) addFinding(f wire.Finding, seq *uint64, dir *string) {
	sev := f.Severity
	rf := Finding{Code: f.Code, Seq: seq, Dir: dir, Message: f.Message}
	if title, fix, regSev, ok := registryInfo(f.Code); ok {
		if sev == 0 {
			sev = regSev
		}
		rf.Title = title
		rf.Fix = fix
	}
	rf.Severity = sev.String()
	switch sev {
	case wire.SeverityError:
		r.Summary.Errors++
	case wire.SeverityWarning:
		r.Summary.Warnings++
	case wire.SeverityNote:
		r.Summary.Notes++
	}
	r.Findings = append(r.Findings, rf)
}

// ExitStatus is the headless exit status the report calls for: 130 when
// linesman was interrupted, 1 when any finding is an error (or linesman's
// own run failed), else 0.
func (r *Report) ExitStatus() int {
	if r.Interrupted {
		return ExitInterrupted
	}
	if r.Summary.Errors > 0 || r.Error != "" {
		return 1
	}
	return 0
}

// WriteJSON writes the report as one indented JSON document and a newline.
// Controls that encoding/json leaves raw (C1, bidi and other format
// controls, DEL) are \u escapes ([wire.InertJSON]): the report is read on
// terminals too.
func (r *Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(wire.InertJSON(buf.Bytes()))
	return err
}

// stderrTailText is how many stderr lines the human report shows.
const stderrTailText = 20

// sendTextShown is how much of each frame the human report of send shows.
const sendTextShown = 4096

// stderrLineShown is how much of each stderr line the human report shows.
const stderrLineShown = 1024

// notesText is how many of linesman's own notes the human report shows.
const notesText = 5

// occurrencesText is how many occurrences of one code the human report lists.
const occurrencesText = 3

// WriteText writes the human report. Everything that came from the server
// (server info, frame excerpts, messages, stderr) is made inert first: escape
// sequences and control bytes are shown as visible symbols and never reach
// the terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	title := "linesman " + r.Linesman
	if r.Mode != "" {
		title += " " + r.Mode
	}
	fmt.Fprintf(&b, "%s: %s\n", title, inert(ShellJoin(r.Command)))
	fmt.Fprintf(&b, "  server:   %s\n", inert(serverLine(r.ServerInfo)))
	era := r.Era
	if r.ProtocolVersion != "" {
		era += ", protocol version " + inert(r.ProtocolVersion)
	}
	fmt.Fprintf(&b, "  era:      %s\n", era)
	fmt.Fprintf(&b, "  process:  %s\n", processLine(r.Process))
	fmt.Fprintf(&b, "  traffic:  %s\n", r.trafficLine())
	if r.Dropped != nil {
		fmt.Fprintf(&b, "  dropped:  %d early events (%d bytes) by the retention limit\n", r.Dropped.Events, r.Dropped.Bytes)
	}
	for i, n := range r.Notes {
		if i == notesText {
			fmt.Fprintf(&b, "  linesman: … and %d more notes (see --json)\n", len(r.Notes)-notesText)
			break
		}
		fmt.Fprintf(&b, "  linesman: %s\n", inert(n.Text))
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "  failed:   %s\n", inert(r.Error))
	}

	if r.Mode == "send" {
		b.WriteString("\nframes:\n")
		for _, f := range r.Frames {
			arrow := "→"
			if f.Dir == "s2c" {
				arrow = "←"
			}
			text := f.preview()
			if f.Text != nil {
				t := strings.TrimRight(*f.Text, "\r\n")
				cut := f.TextTruncated
				if len(t) > sendTextShown {
					t, cut = t[:sendTextShown], true
				}
				text = inert(t)
				if cut {
					text += fmt.Sprintf(" …(%d bytes in all)", f.Bytes)
				}
			}
			fmt.Fprintf(&b, "  #%-4d %s %s\n", f.Seq, arrow, text)
		}
	}

	for _, sev := range []string{"error", "warning", "note"} {
		r.writeSeverity(&b, sev)
	}
	if len(r.Findings) == 0 {
		b.WriteString("\nno findings\n")
	} else {
		b.WriteString("  (linesman explain CODE tells why each matters)\n")
	}

	if len(r.stderrAll) > 0 {
		tail := r.stderrAll
		if len(tail) > stderrTailText {
			tail = tail[len(tail)-stderrTailText:]
		}
		fmt.Fprintf(&b, "\nstderr (last %d of %d lines):\n", len(tail), len(r.stderrAll))
		for _, l := range tail {
			// A blob dumped on stderr would flood the terminal: the line is
			// cut, as send's frames are (--json keeps it whole).
			if len(l) > stderrLineShown {
				cut := stderrLineShown
				for cut > 0 && !utf8.RuneStart(l[cut]) {
					cut--
				}
				fmt.Fprintf(&b, "  | %s …(%d bytes in all)\n", inert(l[:cut]), len(l))
				continue
			}
			fmt.Fprintf(&b, "  | %s\n", inert(l))
		}
	} else {
		b.WriteString("\nstderr: nothing\n")
	}

	fmt.Fprintf(&b, "\n%s, %s, %s — exit status %d\n",
		plural(r.Summary.Errors, "error"), plural(r.Summary.Warnings, "warning"),
		plural(r.Summary.Notes, "note"), r.ExitStatus())
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSeverity writes the findings of one severity, grouped by code: each
// code once, with a few of the frames it points at and its one-line fix.
func (r *Report) writeSeverity(b *strings.Builder, sev string) {
	var codes []string
	byCode := map[string][]Finding{}
	total := 0
	for _, f := range r.Findings {
		if f.Severity != sev {
			continue
		}
		if _, ok := byCode[f.Code]; !ok {
			codes = append(codes, f.Code)
		}
		byCode[f.Code] = append(byCode[f.Code], f)
		total++
	}
	if total == 0 {
		return
	}
	heading := map[string]string{"error": "errors", "warning": "warnings", "note": "notes"}[sev]
	fmt.Fprintf(b, "\n%s (%d):\n", heading, total)
	mark := map[string]string{"error": "✗", "warning": "!", "note": "i"}[sev]
	for _, code := range codes {
		fs := byCode[code]
		title := fs[0].Title
		if title == "" {
			title = "(not in the registry)"
		}
		times := ""
		if len(fs) > 1 {
			times = fmt.Sprintf(" ×%d", len(fs))
		}
		fmt.Fprintf(b, "  %s %s%s — %s\n", mark, code, times, title)
		for i, f := range fs {
			if i == occurrencesText {
				fmt.Fprintf(b, "      … and %d more\n", len(fs)-occurrencesText)
				break
			}
			fmt.Fprintf(b, "      at %s: %s\n", r.where(f), inert(f.Message))
		}
		if fs[0].Fix != "" {
			fmt.Fprintf(b, "      fix: %s\n", firstSentence(fs[0].Fix))
		}
	}
}

// where names what a finding points at: a frame with an excerpt, or the
// process.
func (r *Report) where(f Finding) string {
	if f.Seq == nil {
		if f.Dir != nil {
			// A finding about a stream, not one frame (stdin-not-read).
			switch *f.Dir {
			case "c2s":
				return "the server's stdin"
			case "s2c":
				return "the server's stdout"
			}
			return *f.Dir
		}
		return "process"
	}
	s := fmt.Sprintf("frame #%d", *f.Seq)
	if i, ok := r.frameIndex[*f.Seq]; ok {
		fr := r.Frames[i]
		s += " " + fr.Dir
		if p := fr.preview(); p != "" {
			s += " " + p
		}
	} else if f.Dir != nil {
		s += " " + *f.Dir
	}
	return s
}

func (r *Report) trafficLine() string {
	var c2s, s2c int
	for _, f := range r.Frames {
		if f.Dir == "c2s" {
			c2s++
		} else {
			s2c++
		}
	}
	states := map[string]int{}
	for _, q := range r.Requests {
		states[q.State]++
	}
	keys := make([]string, 0, len(states))
	for k := range states {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", states[k], k))
	}
	s := fmt.Sprintf("%s sent, %d received; %s", plural(c2s, "frame"), s2c, plural(len(r.Requests), "request"))
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

func processLine(p Process) string {
	if p.Pid == 0 && p.State == "" {
		return "never started"
	}
	s := fmt.Sprintf("pid %d, %s", p.Pid, p.State)
	if p.State == "exited" {
		if p.Signal != nil && p.EndedBy != nil && strings.EqualFold(*p.Signal, *p.EndedBy) {
			// The ladder's own signal: say it once.
			return fmt.Sprintf("pid %d, killed by the shutdown ladder's %s (shutdown took %.0f ms)", p.Pid, *p.Signal, p.ShutdownMs) + restartsText(p)
		}
		switch {
		case p.Signal != nil:
			s += " on " + *p.Signal
		case p.ExitCode != nil:
			s += fmt.Sprintf(" with code %d", *p.ExitCode)
		}
		if p.EndedBy != nil {
			switch *p.EndedBy {
			case "exit":
				s += ", on its own"
			case "stdin-close":
				s += ", after its stdin was closed"
			case "sigterm":
				s += ", after SIGTERM"
			case "sigkill":
				s += ", after SIGKILL"
			}
			if *p.EndedBy != "exit" {
				s += fmt.Sprintf(" (shutdown took %.0f ms)", p.ShutdownMs)
			}
		}
	}
	return s + restartsText(p)
}

func restartsText(p Process) string {
	if p.Restarts > 0 {
		return fmt.Sprintf("; restarted %s", plural(p.Restarts, "time"))
	}
	return ""
}

// serverLine describes the server from its serverInfo object.
func serverLine(info json.RawMessage) string {
	var si struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Version string `json:"version"`
	}
	if len(info) == 0 || string(info) == "null" || json.Unmarshal(info, &si) != nil || si.Name == "" {
		return "unknown (no serverInfo)"
	}
	s := si.Name
	if si.Version != "" {
		s += " " + si.Version
	}
	if si.Title != "" && si.Title != si.Name {
		s += " (" + si.Title + ")"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// ShellJoin renders argv for reading, quoting words a shell would split,
// so that `sh -c 'echo hi; exit 3'` does not read as several commands.
func ShellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}

// preview is a short inert excerpt of the frame's first line.
func (rf *Frame) preview() string {
	const n = 72
	f := rf.frame
	if f == nil || len(f.Lines) == 0 {
		return ""
	}
	c := f.Lines[0].Content
	cut := len(c) > n
	if cut {
		c = c[:n]
	}
	s := inert(string(c))
	if cut || len(f.Lines) > 1 {
		s += "…"
	}
	return "`" + s + "`"
}

// firstSentence returns the first sentence of a registry text: the
// one-line fix of the human report (the JSON carries the whole text). A
// sentence that ends in a colon introduces examples the line leaves out, so
// it ends with a full stop instead of a dangling colon.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '.' || s[i] == ':') && s[i+1] == ' ' && s[i+2] >= 'A' && s[i+2] <= 'Z' {
			return s[:i] + "."
		}
	}
	if strings.HasSuffix(s, ":") {
		return strings.TrimSuffix(s, ":") + "."
	}
	return s
}

// idJSON renders an id as the JSON report spells it: a number, a string, or
// null when absent.
func idJSON(id wire.ID) json.RawMessage {
	switch id.Kind {
	case wire.IDInt:
		return json.RawMessage(strconv.FormatInt(id.Num, 10))
	case wire.IDString:
		b, _ := json.Marshal(id.Str)
		return b
	case wire.IDOther:
		if json.Valid([]byte(id.Str)) {
			return json.RawMessage(id.Str)
		}
		b, _ := json.Marshal(id.Str)
		return b
	default:
		return json.RawMessage("null")
	}
}

// reportTimeLayout is RFC 3339 with nanoseconds always spelled out.
const reportTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func reportTime(t time.Time) string { return t.UTC().Format(reportTimeLayout) }

// durationMs is d in milliseconds, rounded to the microsecond.
func durationMs(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}

// registryInfo reads a code's title, fix and severity from the registry.
func registryInfo(code string) (title, fix string, sev wire.Severity, ok bool) {
	info, ok := wire.Lookup(code)
	return info.Title, info.Fix, info.Severity, ok
}

// inert makes server text safe for a terminal (see wire.Visible).
func inert(s string) string { return wire.VisibleString(s, wire.Pictures) }
