package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Detail tabs.
const (
	tabJSON = iota
	tabRaw
	tabFindings
	tabPair
	numTabs
)

var tabNames = [numTabs]string{"JSON", "Raw", "Findings", "Pair"}

// Display bounds: a frame can be many MiB; the detail shows its start.
const (
	detailMaxBytes = 256 << 10
	detailMaxLines = 4000
)

// detailPane shows the selected frame. Its content is built once per
// (frame, tab, width) and cached; scrolling only slices the cache.
type detailPane struct {
	c      *common
	w, h   int
	tab    int
	scroll int

	key   detailKey
	lines []string

	// n/N show the Findings tab of the frame they reach for as long as the
	// selection stays there: auto is set while that tab was chosen by n,
	// autoSeq is the frame it was chosen for and autoFrom the tab before.
	auto     bool
	autoSeq  uint64
	autoFrom int

	// unfold shows the selected frame's _meta and long strings whole (o);
	// folded counts what the last build folded.
	unfold bool
	folded int

	search detailSearch // the search in the frame (/, n, N)
}

type detailKey struct {
	seq        uint64
	tab, w     int
	late, pair int // the frame's late findings and pairing can change later
	state      eventlog.RequestState
	unfold     bool
}

func (p *detailPane) SetSize(w, h int) { p.w, p.h = w, h }

// setTab is the user choosing a tab: it stays chosen.
func (p *detailPane) setTab(t int) {
	p.tab = (t + numTabs) % numTabs
	p.scroll = 0
	p.auto = false
}

// showFindings shows the Findings tab for frame seq, which n or N reached.
// Unless the user had chosen that tab, it lasts until another frame is
// selected: refresh then returns to the tab the user had.
func (p *detailPane) showFindings(seq uint64) {
	if p.tab != tabFindings {
		p.auto, p.autoFrom = true, p.tab
		p.tab, p.scroll = tabFindings, 0
	}
	if p.auto {
		p.autoSeq = seq
	}
}

func (p *detailPane) scrollBy(d int) {
	p.scroll = max(0, min(p.scroll+d, len(p.lines)-(p.h-1)))
}

// refresh rebuilds the cached content if the frame, tab or width changed.
func (p *detailPane) refresh(seq uint64) {
	if p.auto && seq != p.autoSeq {
		p.auto, p.tab = false, p.autoFrom
	}
	if seq != p.key.seq {
		p.unfold = false // another frame starts folded
	}
	pp, _ := p.c.ix.tr.PairOf(seq)
	k := detailKey{seq: seq, tab: p.tab, w: p.w, late: p.c.ix.tr.LaterFindings(seq),
		pair: int(pp.Response), state: pp.Request.State, unfold: p.unfold}
	if k == p.key && p.lines != nil {
		return
	}
	if k.seq != p.key.seq {
		p.scroll = 0
	}
	p.key = k
	p.folded = 0
	p.lines = p.build(seq)
	p.search.rematch(p.lines)
	p.scroll = max(0, min(p.scroll, len(p.lines)-(p.h-1)))
}

func (p *detailPane) Render(focused bool) string {
	st := p.c.st
	var tabs []string
	for i, n := range tabNames {
		if i == tabFindings && p.key.seq != 0 {
			if ev, ok := p.c.ix.log.Get(p.key.seq); ok && ev.Frame != nil {
				if k := len(p.c.ix.findings(&ev)); k > 0 {
					n = fmt.Sprintf("%s(%d)", n, k)
				}
			}
		}
		if i == p.tab {
			tabs = append(tabs, st.TabActive.Render("["+n+"]"))
		} else {
			tabs = append(tabs, st.Tab.Render(" "+n+" "))
		}
	}
	extra := strings.Join(tabs, "")
	if p.key.seq != 0 {
		extra = st.Subtle.Render(fmt.Sprintf("#%d", p.key.seq)) + " " + extra
	}
	lines := []string{p.c.titleLine(p.w, "Detail", focused, extra)}
	end := min(len(p.lines), p.scroll+p.h-1)
	for i := p.scroll; i < end; i++ {
		lines = append(lines, p.search.mark(p.c.st, i, p.lines[i]))
	}
	return block(lines, p.w, p.h)
}

func (p *detailPane) build(seq uint64) []string {
	if seq == 0 {
		return []string{p.c.st.Subtle.Render("select a frame")}
	}
	ev, ok := p.c.ix.log.Get(seq)
	if !ok || ev.Frame == nil {
		return []string{p.c.st.Subtle.Render(fmt.Sprintf("frame #%d was dropped by retention", seq))}
	}
	out := []string{p.header(&ev)}
	switch p.tab {
	case tabJSON:
		out = append(out, p.jsonLines(ev.Frame)...)
	case tabRaw:
		out = append(out, p.rawLines(ev.Frame)...)
	case tabFindings:
		out = append(out, p.findingLines(&ev)...)
	case tabPair:
		out = append(out, p.pairLines(&ev)...)
	}
	return out
}

// header is one line: direction, kind, id, size, physical lines, time.
func (p *detailPane) header(ev *eventlog.Event) string {
	f := ev.Frame
	dir := "→ client→server"
	if ev.Dir == wire.ServerToClient {
		dir = "← server→client"
	}
	s := fmt.Sprintf("%s %s", dir, f.Msg.Kind)
	if f.Msg.ID.Kind != wire.IDAbsent {
		s += " id " + wire.VisibleString(f.Msg.ID.String(), wire.Pictures)
	}
	lines := "1 line"
	if len(f.Lines) != 1 {
		lines = fmt.Sprintf("%d lines", len(f.Lines))
	}
	s += fmt.Sprintf(" · %d B · %s · at %ss", f.Size(), lines, fmtDur(ev.At))
	return p.c.st.Subtle.Render(truncate(s, p.w))
}

func (p *detailPane) jsonLines(f *wire.Frame) []string {
	text := frameText(f)
	if f.Msg.Kind == wire.KindNonJSON || !json.Valid(clip(text)) && len(text) <= detailMaxBytes {
		out := []string{p.c.st.Warning.Render("▲ not JSON: shown as text (the Raw tab shows the exact bytes)")}
		for _, l := range f.Lines {
			out = append(out, wrapCells(wire.Visible(clip(l.Content), wire.Pictures), p.w)...)
		}
		return out
	}
	if len(text) > detailMaxBytes {
		// Too large to format whole: show the start as text.
		head := fmt.Sprintf("%s frame: showing the first %s (y copies it all)", humanBytes(int64(len(text))), humanBytes(detailMaxBytes))
		if slices.ContainsFunc(f.Lines, func(l wire.Line) bool { return l.Truncated }) {
			// Over --max-frame: only the start was kept; do not call the
			// kept part the frame.
			head = fmt.Sprintf("%s frame, %s kept (--max-frame): showing the first %s (y copies what was kept)",
				humanBytes(f.Size()), humanBytes(int64(len(text))), humanBytes(detailMaxBytes))
		}
		out := []string{p.c.st.Subtle.Render(head)}
		return append(out, wrapStyled(wire.Visible(clip(text), wire.Pictures), p.w, detailMaxLines)...)
	}
	out := answerLines(p.c.st, f, text, p.w)
	lines, cut, folded := prettyFolded(p.c.st, text, detailMaxLines, !p.unfold)
	p.folded += folded
	for _, l := range lines {
		out = append(out, wrapIndented(l, p.w, 64)...)
	}
	if cut {
		out = append(out, p.c.st.Subtle.Render("… (more lines; y copies the whole frame)"))
	}
	return out
}

func clip(b []byte) []byte {
	if len(b) > detailMaxBytes {
		return b[:detailMaxBytes]
	}
	return b
}

// wrapStyled hard-wraps a styled line at w cells, at most max rows.
func wrapStyled(s string, w, maxRows int) []string {
	if w <= 0 {
		return nil
	}
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	rows := strings.Split(ansi.Hardwrap(s, w, true), "\n")
	if len(rows) > maxRows {
		rows = append(rows[:maxRows], "…")
	}
	return rows
}

// wrapIndented wraps a pretty JSON line, continuing under its own
// indentation plus two cells so the structure stays readable.
func wrapIndented(s string, w, maxRows int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	plain := ansi.Strip(s)
	ind := len(plain) - len(strings.TrimLeft(plain, " ")) + 2
	if ind > w/2 {
		ind = 0
	}
	first := ansi.Truncate(s, w, "")
	rest := ansi.TruncateLeft(s, ansi.StringWidth(first), "")
	out := []string{first}
	pad := strings.Repeat(" ", ind)
	for _, r := range wrapStyled(rest, w-ind, maxRows) {
		out = append(out, pad+r)
	}
	return out
}

// rawLines shows each physical line exactly: escapes in \xNN notation, tab
// as \t, CR as \r, in reverse video; the line end as ⏎ (CRLF as \r⏎), in
// reverse video too, so a JSON string's escaped "\n" never looks like it
// without colour; truncation stated.
func (p *detailPane) rawLines(f *wire.Frame) []string {
	st := p.c.st
	var out []string
	for i, l := range f.Lines {
		content := clip(l.Content)
		var term string
		switch l.Term {
		case wire.TermLF:
			term = st.LineEnd.Render("⏎")
		case wire.TermCRLF:
			term = st.LineEndOdd.Render(`\r⏎`)
		default:
			term = st.Warning.Render(" ⟂ no terminator (EOF)")
		}
		// Continuation rows hang under the content, so the L1, L2, ...
		// gutter alone marks where a physical line starts.
		label := fmt.Sprintf("L%d ", i+1)
		prefix, pad := st.Subtle.Render(label), strings.Repeat(" ", len(label))
		lead := ""
		if p.w-len(label) < 16 {
			prefix, pad, lead = "", "", label // too narrow to spare the gutter on every row
		}
		rows := rawRows(st, append([]byte(lead), content...), term, p.w-len(pad), detailMaxLines)
		for j, r := range rows {
			if j == 0 {
				out = append(out, prefix+r)
			} else {
				out = append(out, pad+r)
			}
		}
		if l.Truncated || len(content) < len(l.Content) {
			out = append(out, st.Warning.Render(fmt.Sprintf("   … %d of %d bytes shown", len(content), l.Length)))
		}
		if len(out) > detailMaxLines {
			break
		}
	}
	return out
}

// rawRows lays out a raw line and its styled terminator in rows of at most
// w cells. Bytes show as they were; only what wire.Visible changes (control
// bytes, invalid UTF-8, unsafe runes) is replaced by its \xNN notation and
// highlighted (one styled run per row and kind, not per escape). A
// backslash on the wire is one backslash on screen. Rows break between
// escapes, never inside one, so "\x1b" or "\r\n" is never cut in two.
func rawRows(st *Styles, b []byte, term string, w, maxRows int) []string {
	w = max(w, 4) // room for the widest escape
	var rows []string
	var row, run strings.Builder
	cells, runEsc := 0, false
	endRun := func() {
		if run.Len() == 0 {
			return
		}
		if runEsc {
			row.WriteString(st.Escaped.Render(run.String()))
		} else {
			row.WriteString(run.String())
		}
		run.Reset()
	}
	endRow := func() {
		endRun()
		rows = append(rows, row.String())
		row.Reset()
		cells = 0
	}
	place := func(tok string, esc bool) {
		tw := ansi.StringWidth(tok)
		if cells > 0 && cells+tw > w {
			endRow()
		}
		if esc != runEsc {
			endRun()
			runEsc = esc
		}
		run.WriteString(tok)
		cells += tw
	}
	for i := 0; i < len(b) && len(rows) <= maxRows; {
		_, n := utf8.DecodeRune(b[i:])
		tok := string(b[i : i+n])
		v := wire.Visible(b[i:i+n], wire.Notation)
		switch {
		case tok == `\` || v == tok:
			place(tok, false)
		default: // one escape per byte, so runs of them wrap between escapes
			for ; len(v) > 4 && strings.HasPrefix(v, `\x`); v = v[4:] {
				place(v[:4], true)
			}
			place(v, true)
		}
		i += n
	}
	if tw := ansi.StringWidth(term); cells > 0 && cells+tw > w {
		endRow()
	}
	endRun()
	row.WriteString(term)
	rows = append(rows, row.String())
	if len(rows) > maxRows {
		rows = append(rows[:maxRows], "…")
	}
	return rows
}

func (p *detailPane) findingLines(ev *eventlog.Event) []string {
	st := p.c.st
	fs := p.c.ix.findings(ev)
	if len(fs) == 0 {
		return []string{st.Subtle.Render("no findings on this frame")}
	}
	var out []string
	wrap := func(label, text string) {
		if text == "" {
			return
		}
		body := lipgloss.Wrap(wire.VisibleString(text, wire.Pictures), max(p.w-7, 10), " ")
		for i, l := range strings.Split(body, "\n") {
			if i == 0 {
				out = append(out, st.Accent.Render(fmt.Sprintf("  %-4s", label))+" "+l)
			} else {
				out = append(out, "       "+l)
			}
		}
	}
	for i, f := range fs {
		if i > 0 {
			out = append(out, "")
		}
		sev := st.Severity(f.Severity)
		out = append(out, sev.Render(severityGlyph(f.Severity)+" "+f.Severity.String()+" "+wire.VisibleString(f.Code, wire.Pictures)))
		info, ok := lookupFinding(f.Code, ev.Dir)
		if ok && info.Title != "" {
			wrap("", info.Title)
		}
		wrap("seen", f.Message)
		if ok {
			wrap("why", info.Why)
			wrap("fix", info.Fix)
			wrap("spec", info.Spec)
		}
	}
	return out
}

// pairLines is the Pair tab: the frame's request or answer as the
// projection paired them ([eventlog.Tracker.PairOf]), the same pairing the
// frame list, the reports and the exports give.
func (p *detailPane) pairLines(ev *eventlog.Event) []string {
	st := p.c.st
	m := &ev.Frame.Msg
	pp, known := p.c.ix.tr.PairOf(ev.Seq)
	other, ok := uint64(0), pp.Paired()
	if ok {
		other = pp.Response
		if m.Kind != wire.KindRequest {
			other = pp.Request.Seq
		}
	}
	var out []string
	if m.Kind == wire.KindRequest {
		if r := pp.Request; known && r.Seq == ev.Seq {
			line := "tracker: " + r.State.String()
			if r.Late {
				line += ", answered late (after the cancel)"
			}
			if r.HasProgress {
				line += fmt.Sprintf(", progress %g", r.Progress)
				if r.Total > 0 {
					line += fmt.Sprintf("/%g", r.Total)
				}
			}
			out = append(out, st.Subtle.Render(line))
		}
	}
	switch {
	case ok:
		o, found := p.c.ix.log.Get(other)
		if !found || o.Frame == nil {
			return []string{st.Subtle.Render(fmt.Sprintf("#%d was dropped by retention", other))}
		}
		if m.Kind == wire.KindRequest {
			out = append(out, st.Accent.Render(fmt.Sprintf("response #%d, %s after the request", other, humanAge(o.At-ev.At))))
		} else {
			out = append(out, st.Accent.Render(fmt.Sprintf("request #%d (%s), sent %s before this response", other, wire.VisibleString(o.Frame.Msg.Method, wire.Pictures), humanAge(ev.At-o.At))))
		}
		out = append(out, p.jsonLines(o.Frame)...)
	case m.Kind == wire.KindRequest:
		state := "no response"
		if r, found := p.request(ev.Seq); !found || r.State == eventlog.ReqInFlight {
			state += fmt.Sprintf(" yet (sent %ss into the session)", fmtDur(ev.At))
		}
		out = append(out, st.Warning.Render("▲ "+state))
	case m.Kind.IsResponse() && (m.ID.Kind == wire.IDNull || m.ID.Kind == wire.IDAbsent):
		// Legal, so no finding: an error that could not name its request.
		out = append(out, st.Subtle.Render("id null: an error that names no request (legal: no finding)"))
		if pp.Unreadable != 0 {
			out = append(out, st.Subtle.Render(fmt.Sprintf("most likely #%d, which the server could not read", pp.Unreadable)))
		}
	case m.Kind.IsResponse():
		out = append(out, st.Warning.Render("▲ no request with this id is known (see the findings)"))
	default:
		out = append(out, st.Subtle.Render("a "+m.Kind.String()+" has no request or response"))
	}
	return out
}

// request finds the projection's record of the request frame seq.
func (p *detailPane) request(seq uint64) (eventlog.Request, bool) {
	return p.c.ix.tr.RequestBySeq(seq)
}
