package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Seeing things whole. z zooms the focused pane to the whole screen, where
// long lines wrap instead of being cut; enter on a stderr line or event
// opens it whole in a page of its own; M opens the log of the messages the
// bottom line showed. A page scrolls with the movement keys and closes with
// esc, q or enter.

// pageView is a scrollable page of text over the whole screen: a line of
// stderr or an event opened whole, or the message log. Its lines are built
// for a width (build), again when the width changes.
type pageView struct {
	title  string
	build  func(w int) []string
	w      int
	lines  []string
	scroll int
}

// layout builds the page's lines for width w, when it changed.
func (p *pageView) layout(w int) {
	if p.lines == nil || p.w != w {
		p.w, p.lines = w, p.build(w)
	}
}

// Render draws the page in w×h cells: a title with where the view is, and
// the lines from the scroll position.
func (p *pageView) Render(c *common, w, h int) string {
	p.layout(w)
	rows := max(h-1, 1)
	p.scroll = max(0, min(p.scroll, len(p.lines)-rows))
	end := min(len(p.lines), p.scroll+rows)
	pos := fmt.Sprintf("lines %d–%d of %d · esc closes", p.scroll+1, end, len(p.lines))
	lines := []string{c.titleLine(w, p.title, true, c.st.Subtle.Render(pos))}
	lines = append(lines, p.lines[p.scroll:end]...)
	return block(lines, w, h)
}

// scrollPage moves a scrolled view (a page, the ? screen) by mv, for rows
// rows on screen, within n lines.
func scrollPage(pos *int, mv movement, rows, n int) {
	page := max(rows-1, 1)
	switch mv {
	case moveUp:
		*pos--
	case moveDown:
		*pos++
	case movePageUp:
		*pos -= page
	case movePageDown:
		*pos += page
	case moveTop:
		*pos = 0
	case moveBottom:
		*pos = n
	}
	*pos = max(0, min(*pos, n-rows))
}

// moveOverlay moves in what covers the panes (a page, the findings list,
// the ? screen), if anything does, and reports whether it did.
func (m *Model) moveOverlay(mv movement) bool {
	rows := m.height - 3 // status bar, the view's title, bottom line
	switch {
	case m.page != nil:
		m.page.layout(m.width)
		scrollPage(&m.page.scroll, mv, rows, len(m.page.lines))
	case m.flist.open:
		n := m.c.ix.found.len()
		switch mv {
		case moveTop:
			m.flist.sel = 0
		case moveBottom:
			m.flist.sel = n - 1
		default:
			d := [...]int{moveUp: -1, moveDown: 1, movePageUp: -max(rows/2, 1), movePageDown: max(rows/2, 1)}[mv]
			m.flist.move(d)
		}
	case m.showHelp:
		scrollPage(&m.helpScroll, mv, rows, len(m.fullHelp()))
	default:
		return false
	}
	return true
}

// closePage closes the page on screen.
func (m *Model) closePage() { m.page = nil }

// toggleZoom shows the focused pane on the whole screen, or the layout
// again.
func (m *Model) toggleZoom() {
	m.zoomed, m.zoomFocus = !m.zoomed, m.focus
	if m.zoomed {
		m.setMessage(fmt.Sprintf("%s zoomed: long lines wrap · z again for all panes", m.focus), false)
	}
	m.resize(m.width, m.height)
}

// zoomRect gives the focused pane the whole body of the screen while
// zoomed, and tells the panes that wrap whether they should.
func (m *Model) zoomRect() {
	z := m.zoomed
	m.stderr.wrap = z && m.focus == focusStderr
	m.process.wrap = z && m.focus == focusProcess
	m.inflight.wrap = z && m.focus == focusInFlight
	if z {
		f := m.focus
		if f == focusComposer && !m.composer.open {
			f = focusDetail
		}
		m.rects[f] = rect{0, 1, m.width, m.height - 2}
		if f == focusDetail {
			m.rects[focusComposer] = m.rects[f]
		}
	}
}

// openEntry opens the stderr pane's selected entry whole.
func (m *Model) openEntry() {
	seq := m.stderr.selected()
	ev, ok := m.c.ix.log.Get(seq)
	if !ok {
		m.setMessage("that line was dropped by retention", true)
		return
	}
	st, wrote := m.c.st, m.c.ix.wroteBy(&ev)
	m.page = &pageView{title: fmt.Sprintf("%s #%d at %ss", entryKind(&ev), ev.Seq, fmtDur(ev.At)), build: func(w int) []string {
		return entryLines(st, &ev, wrote, w)
	}}
}

// entryKind names what an entry of the stderr & events pane is.
func entryKind(ev *eventlog.Event) string {
	switch ev.Type {
	case eventlog.EventStderr:
		return "stderr line"
	case eventlog.EventProcess:
		return "process event"
	case eventlog.EventFinding:
		return "finding"
	}
	return "note"
}

// entryLines is an entry of the stderr & events pane in full, wrapped at
// w: a stderr line's bytes (inert, with its length and terminator), a
// finding with the registry's explanation (its fix for whoever wrote what
// it concerns, in direction wrote), a process event or a note.
func entryLines(st *Styles, ev *eventlog.Event, wrote wire.Dir, w int) []string {
	var out []string
	para := func(s string) {
		out = append(out, strings.Split(ansi.Hardwrap(lipgloss.Wrap(s, w, " "), w, true), "\n")...)
	}
	switch ev.Type {
	case eventlog.EventStderr:
		l := ev.Stderr
		term := map[wire.Terminator]string{wire.TermLF: `\n`, wire.TermCRLF: `\r\n`}[l.Term]
		if term == "" {
			term = "none (EOF)"
		}
		para(st.Subtle.Render(fmt.Sprintf("%d bytes · line end %s · escapes and control bytes shown as symbols", l.Length, term)))
		para(st.Stderr.Render(wire.Visible(l.Content, wire.Pictures)))
	case eventlog.EventProcess:
		para(processText(ev.Process))
		if d := ev.Process.Detail; d != "" {
			para(st.Subtle.Render("detail ") + wire.VisibleString(d, wire.Pictures))
		}
		if ev.Process.Pid != 0 {
			para(st.Subtle.Render(fmt.Sprintf("pid %d", ev.Process.Pid)))
		}
	case eventlog.EventFinding:
		f := ev.Finding
		para(st.Severity(f.Severity).Render(severityGlyph(f.Severity) + " " + f.Severity.String() + " " + wire.VisibleString(f.Code, wire.Pictures)))
		para(wire.VisibleString(f.Message, wire.Pictures))
		if f.FrameSeq != 0 {
			para(st.Subtle.Render(fmt.Sprintf("about frame #%d", f.FrameSeq)))
		}
		if info, ok := lookupFinding(f.Code, wrote); ok {
			for _, kv := range [][2]string{{"what", info.Title}, {"why", info.Why}, {"fix", info.Fix}, {"spec", info.Spec}} {
				if kv[1] != "" {
					out = append(out, "")
					para(st.Accent.Render(kv[0]) + " " + wire.VisibleString(kv[1], wire.Pictures))
				}
			}
		}
	default:
		para(wire.VisibleString(ev.Note, wire.Pictures))
	}
	return out
}

// messageLogSize bounds the message log (M).
const messageLogSize = 200

// logMessage keeps a message shown on the bottom line for the log (M).
func (m *Model) logMessage(s string, bad bool) {
	if s == "" {
		return
	}
	if bad {
		s = "✖ " + s
	}
	m.msgLog = append(m.msgLog, fmtDur(m.c.now)+" "+s)
	if len(m.msgLog) > messageLogSize {
		m.msgLog = m.msgLog[len(m.msgLog)-messageLogSize:]
	}
}

// openMessageLog opens the messages of the session, the newest last.
func (m *Model) openMessageLog() {
	log := append([]string(nil), m.msgLog...)
	m.page = &pageView{title: "Messages", build: func(w int) []string {
		if len(log) == 0 {
			return []string{"no messages yet"}
		}
		var out []string
		for _, s := range log {
			out = append(out, strings.Split(ansi.Hardwrap(lipgloss.Wrap(wire.VisibleString(s, wire.Pictures), w, " "), w, true), "\n")...)
		}
		return out
	}}
	m.page.layout(m.width)
	m.page.scroll = len(m.page.lines) // the newest at the bottom
}

// messageLines is the bottom line's message wrapped at the width, on as
// many rows as it takes up to a third of the screen; past that the last
// row says where the rest is (M).
func (m *Model) messageLines(s string) []string {
	w := m.width
	rows := strings.Split(ansi.Hardwrap(lipgloss.Wrap(s, w, " "), w, true), "\n")
	limit := max(m.height/3, 1)
	if len(rows) > limit {
		rows = rows[:limit]
		rows[limit-1] = truncate(ansi.Truncate(rows[limit-1], max(w-22, 1), "")+" … (M: whole message)", w)
	}
	return rows
}

// wrapRows hard-wraps each of lines at w cells (the zoomed side panes).
func wrapRows(lines []string, w int) []string {
	var out []string
	for _, l := range lines {
		if ansi.StringWidth(l) <= w {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Hardwrap(l, w, true), "\n")...)
	}
	return out
}

// renderZoomed draws the focused pane alone, over the whole body.
func (m *Model) renderZoomed(cv *canvas) {
	f := m.focus
	switch f {
	case focusFrames:
		cv.block(m.rects[f], m.frames.Render(true))
	case focusDetail:
		cv.block(m.rects[f], m.detail.Render(true))
	case focusComposer:
		cv.block(m.rects[f], m.composer.Render(true))
	case focusInFlight:
		cv.block(m.rects[f], m.inflight.Render(true))
	case focusProcess:
		cv.block(m.rects[f], m.process.Render(true))
	case focusStderr:
		anchor := uint64(0)
		if !m.frames.follow {
			anchor = m.frames.SelectedSeq()
		}
		cv.block(m.rects[f], m.stderr.Render(true, anchor))
	}
}

// afterKey keeps the zoom on the focused pane when a key moved the focus.
func (m *Model) afterKey() {
	if m.zoomed && m.zoomFocus != m.focus {
		m.zoomFocus = m.focus
		m.resize(m.width, m.height)
	}
}

// helpPage is the ? screen in h rows: a title saying where the view is,
// then the full help from the scroll position.
func (m *Model) helpPage(h int) string {
	body := m.fullHelp()
	rows := max(h-1, 1)
	m.helpScroll = max(0, min(m.helpScroll, len(body)-rows))
	end := min(len(body), m.helpScroll+rows)
	pos := fmt.Sprintf("lines %d–%d of %d · j/k pgup/pgdn g/G scroll · ? or esc closes", m.helpScroll+1, end, len(body))
	lines := []string{m.c.titleLine(m.width, "Keys", true, m.c.st.Subtle.Render(pos))}
	return block(append(lines, body[m.helpScroll:end]...), m.width, h)
}

// hangWrap word-wraps plain text at w cells, keeping the spaces between
// words as they are (the filter syntax lines up in columns); continuation
// rows are indented by ind cells (the ? screen's filter syntax and glyphs).
func hangWrap(s string, w, ind int) []string {
	if ansi.StringWidth(s) <= w {
		return []string{s}
	}
	if w-ind < 12 {
		ind = 0
	}
	var out []string
	line := ""
	for _, tok := range spacedWords(s) {
		word := strings.TrimLeft(tok, " ")
		switch {
		case line == "" || ansi.StringWidth(line)+ansi.StringWidth(tok) <= w:
			line += tok
		default:
			out = append(out, line)
			line = strings.Repeat(" ", ind) + word
		}
	}
	out = append(out, line)
	for i, l := range out {
		if ansi.StringWidth(l) > w {
			out[i] = truncate(l, w) // one word wider than the screen
		}
	}
	return out
}

// spacedWords splits s into words, each with the spaces before it.
func spacedWords(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}
