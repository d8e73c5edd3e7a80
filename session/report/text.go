package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"linesman/session/eventlog"
	"linesman/wire"
)

// stderrTailText is how many stderr lines the human report shows.
const stderrTailText = 20

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
	r.writeHead(&b)
	if r.Mode == "send" {
		r.writeSendFrames(&b)
	}
	for _, sev := range []string{"error", "warning", "note"} {
		r.writeSeverity(&b, sev, "server")
	}
	r.writeHost(&b)
	if len(r.Findings) == 0 {
		b.WriteString("\nno findings\n")
	} else {
		b.WriteString("  (linesman explain CODE tells why each matters)\n")
	}
	r.writeRules(&b)
	r.writeLatency(&b)
	r.writeStderr(&b)
	fmt.Fprintf(&b, "\n%s, %s, %s — exit status %d\n",
		plural(r.Summary.Errors, "error"), plural(r.Summary.Warnings, "warning"),
		plural(r.Summary.Notes, "note"), r.ExitStatus())
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHead writes what the session was: command, server, era, process,
// traffic, what was dropped, linesman's notes, a failure of its own.
func (r *Report) writeHead(b *strings.Builder) {
	title := "linesman " + r.Linesman
	if r.Mode != "" {
		title += " " + r.Mode
	}
	fmt.Fprintf(b, "%s: %s\n", title, inert(ShellJoin(r.Command)))
	fmt.Fprintf(b, "  server:   %s\n", inert(serverLine(r.ServerInfo)))
	era := r.Era
	if r.ProtocolVersion != "" {
		era += ", protocol version " + inert(r.ProtocolVersion)
	}
	fmt.Fprintf(b, "  era:      %s\n", era)
	fmt.Fprintf(b, "  process:  %s\n", processLine(r.Process))
	fmt.Fprintf(b, "  traffic:  %s\n", r.trafficLine())
	if d := r.Dropped; d != nil {
		fmt.Fprintf(b, "  dropped:  %d early events (%d bytes) by the retention limit: %s and %s counted above but not listed\n",
			d.Events, d.Bytes, plural(d.Frames, "frame"), plural(d.Findings, "finding"))
		if d.Notes > 0 {
			fmt.Fprintf(b, "  dropped:  %s of linesman's own past the first thousand\n", plural(d.Notes, "note"))
		}
	}
	for i, n := range r.Notes {
		if i == notesText {
			fmt.Fprintf(b, "  linesman: … and %d more notes (see --json)\n", len(r.Notes)-notesText)
			break
		}
		fmt.Fprintf(b, "  linesman: %s\n", inert(n.Text))
	}
	if r.Error != "" {
		fmt.Fprintf(b, "  failed:   %s\n", inert(r.Error))
	}
}

// writeSendFrames writes send's frames, each with its text.
func (r *Report) writeSendFrames(b *strings.Builder) {
	b.WriteString("\nframes:\n")
	for _, f := range r.Frames {
		arrow := "→"
		if f.Dir == "s2c" {
			arrow = "←"
		}
		text := f.preview()
		if f.Text != nil {
			// Whole: the answer is what send is for (--max-text cuts it
			// on request, and the cut is said).
			text = inert(strings.TrimRight(*f.Text, "\r\n"))
			if f.TextTruncated {
				text += fmt.Sprintf(" …(%d bytes in all)", f.Bytes)
			}
		}
		fmt.Fprintf(b, "  #%-4d %s %s\n", f.Seq, arrow, text)
	}
}

// writeStderr writes the tail of stderr, each line cut at stderrLineShown.
func (r *Report) writeStderr(b *strings.Builder) {
	if len(r.stderrAll) > 0 {
		tail := r.stderrAll
		if len(tail) > stderrTailText {
			tail = tail[len(tail)-stderrTailText:]
		}
		fmt.Fprintf(b, "\nstderr (last %d of %d lines):\n", len(tail), len(r.stderrAll))
		for _, l := range tail {
			// A blob dumped on stderr would flood the terminal: the line is
			// cut, as send's frames are (--json keeps it whole).
			if len(l) > stderrLineShown {
				cut := stderrLineShown
				for cut > 0 && !utf8.RuneStart(l[cut]) {
					cut--
				}
				fmt.Fprintf(b, "  | %s …(%d bytes in all)\n", inert(l[:cut]), len(l))
				continue
			}
			fmt.Fprintf(b, "  | %s\n", inert(l))
		}
	} else {
		b.WriteString("\nstderr: nothing\n")
	}
}

// writeHost writes the host section: the findings that hold the host (the
// client side) at fault, apart from the server's; with none, a line that
// says so when the report asks for the section (a recording's host).
func (r *Report) writeHost(b *strings.Builder) {
	n := r.Host.Errors + r.Host.Warnings + r.Host.Notes
	if n == 0 {
		if r.hostSection {
			b.WriteString("\nhost (the client side): no findings\n")
		}
		return
	}
	fmt.Fprintf(b, "\nhost (the client side): %s, %s, %s\n", plural(r.Host.Errors, "error"),
		plural(r.Host.Warnings, "warning"), plural(r.Host.Notes, "note"))
	for _, sev := range []string{"error", "warning", "note"} {
		r.writeSeverity(b, sev, "host")
	}
}

// writeSeverity writes the findings of one severity that hold party at
// fault, grouped by code: each code once, with a few of the frames it
// points at and its one-line fix. The host's are headed "host errors", …
func (r *Report) writeSeverity(b *strings.Builder, sev, party string) {
	// Each code keeps its count, the findings shown and its fixes, not
	// every finding: a copy of each (a million timeouts) was 180 MB.
	type group struct {
		n     int
		shown []Finding
		fixes []string
	}
	var codes []string
	byCode := map[string]*group{}
	total := 0
	for _, f := range r.Findings {
		if f.Severity != sev || (f.Party == "host") != (party == "host") {
			continue
		}
		g := byCode[f.Code]
		if g == nil {
			g = &group{}
			byCode[f.Code] = g
			codes = append(codes, f.Code)
		}
		g.n++
		if len(g.shown) < occurrencesText {
			g.shown = append(g.shown, f)
		}
		if f.Fix != "" && !slices.Contains(g.fixes, f.Fix) {
			g.fixes = append(g.fixes, f.Fix)
		}
		total++
	}
	if total == 0 {
		return
	}
	heading := map[string]string{"error": "errors", "warning": "warnings", "note": "notes"}[sev]
	if party == "host" {
		heading = "host " + heading
	}
	fmt.Fprintf(b, "\n%s (%d):\n", heading, total)
	mark := map[string]string{"error": "✗", "warning": "!", "note": "i"}[sev]
	for _, code := range codes {
		g := byCode[code]
		title := g.shown[0].Title
		if title == "" {
			title = "(not in the registry)"
		}
		times := ""
		if g.n > 1 {
			times = fmt.Sprintf(" ×%d", g.n)
		}
		fmt.Fprintf(b, "  %s %s%s — %s\n", mark, code, times, title)
		for _, f := range g.shown {
			fmt.Fprintf(b, "      at %s: %s\n", r.where(f), inert(f.Message))
		}
		if g.n > len(g.shown) {
			fmt.Fprintf(b, "      … and %d more\n", g.n-len(g.shown))
		}
		for _, fix := range g.fixes {
			fmt.Fprintf(b, "      fix: %s\n", firstSentence(fix))
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
	if i, ok := r.frameAt(*f.Seq); ok {
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
	t := &r.Totals
	states := t.Requests
	keys := make([]string, 0, len(states))
	requests := 0
	for k, n := range states {
		keys = append(keys, k)
		requests += n
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", states[k], k))
	}
	s := fmt.Sprintf("%s sent, %d received; %s", plural(int(t.Frames.C2S), "frame"), t.Frames.S2C, plural(requests, "request"))
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
			// The ladder's own signal, or the host's: say it once.
			who := "the shutdown ladder's"
			if p.EndedByHost {
				who = "the host's"
			}
			return fmt.Sprintf("pid %d, killed by %s %s (shutdown took %.0f ms)", p.Pid, who, *p.Signal, p.ShutdownMs) + restartsText(p)
		}
		switch {
		case p.Signal != nil:
			s += " on " + *p.Signal
		case p.ExitCode != nil:
			s += fmt.Sprintf(" with code %d", *p.ExitCode)
		}
		if p.EndedBy != nil {
			step := eventlog.ParseShutdownStep(*p.EndedBy)
			s += ", " + eventlog.HowEnded(step, p.AfterEOF, p.EndedByHost)
			if step != eventlog.StepNone {
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

// inert makes server text safe for a terminal (see wire.Visible).
func inert(s string) string { return wire.VisibleString(s, wire.Pictures) }
