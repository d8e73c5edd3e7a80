package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/wire"
)

// wideWidth is where the layout switches from stacked to two columns.
const wideWidth = 140

// resize takes the terminal's size and lays the panes out for it.
func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, 8)
	m.detailRows = 0 // decided afresh for the new size
	m.layout()
	m.refresh()
}

// View draws the whole screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	title := "linesman"
	if m.opts.Title != "" {
		title += " — " + wire.VisibleString(m.opts.Title, wire.Pictures)
	}
	v.WindowTitle = title
	return v
}

// Render draws the screen as a string of exactly height lines.
func (m *Model) Render() string {
	m.syncKeys()
	W := m.width
	cv := newCanvas(m.height)
	cv.put(0, 0, m.statusBar())
	bottom := m.bottomLines()
	m.stderr.covered = m.coveredRows(m.rects[focusStderr], len(bottom))
	body := rect{0, 1, W, m.height - 2}
	switch {
	case m.pickerOpen():
		cv.block(body, m.renderPicker(W, body.h))
	case m.page != nil:
		cv.block(body, m.page.Render(m.c, W, body.h))
	case m.flist.open:
		cv.block(body, m.flist.Render(W, body.h))
	case m.showHelp:
		cv.block(body, m.helpPage(body.h))
	case m.zoomed:
		m.renderZoomed(cv)
	default:
		cv.block(m.rects[focusFrames], m.frames.Render(m.focus == focusFrames))
		anchor := uint64(0)
		if !m.frames.follow {
			anchor = m.frames.SelectedSeq()
		}
		cv.block(m.rects[focusStderr], m.stderr.Render(m.focus == focusStderr, anchor))
		if m.composer.open {
			cv.block(m.rects[focusComposer], m.composer.Render(m.focus == focusComposer))
		} else {
			cv.block(m.rects[focusDetail], m.detail.Render(m.focus == focusDetail))
		}
		if m.wide || !m.composer.open {
			cv.block(m.rects[focusInFlight], m.inflight.Render(m.focus == focusInFlight))
			cv.block(m.rects[focusProcess], m.process.Render(m.focus == focusProcess))
		}
	}
	for i, l := range bottom {
		cv.set(m.height-len(bottom)+i, l)
	}
	return cv.String(W, m.c.st.Rule.Render("│"))
}

// coveredRows is how many of r's last rows a message of n rows covers (its
// last row replaces the key bar, the others lie over the panes).
func (m *Model) coveredRows(r rect, n int) int {
	return clamp(r.y+r.h-(m.height-n), 0, r.h)
}

// canvas collects the panes' lines by position; String joins each row's
// pieces left to right with a separator where a piece does not start at 0.
type canvas struct {
	rows [][]piece
}

type piece struct {
	x int
	s string
}

func newCanvas(h int) *canvas { return &canvas{rows: make([][]piece, h)} }

func (c *canvas) put(x, y int, s string) {
	if y >= 0 && y < len(c.rows) {
		c.rows[y] = append(c.rows[y], piece{x, s})
	}
}

// set replaces row y with s (a message over the panes' last rows).
func (c *canvas) set(y int, s string) {
	if y >= 0 && y < len(c.rows) {
		c.rows[y] = []piece{{0, s}}
	}
}

func (c *canvas) block(r rect, b string) {
	for i, line := range strings.Split(b, "\n") {
		if i >= r.h {
			break
		}
		c.put(r.x, r.y+i, line)
	}
}

func (c *canvas) String(w int, sep string) string {
	var sb strings.Builder
	for y, ps := range c.rows {
		if y > 0 {
			sb.WriteByte('\n')
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].x < ps[j].x })
		line, cur := "", 0
		for _, p := range ps {
			if p.x > 0 {
				target := p.x - 1
				if cur < target {
					line += strings.Repeat(" ", target-cur)
				}
				line += sep
				cur = p.x
			}
			line += p.s
			cur += ansi.StringWidth(p.s)
		}
		sb.WriteString(fit(line, w))
	}
	return sb.String()
}

// statusBar: title, era and version, server, counts by severity (the worst
// first, each with its glyph), frames, retention drops, and the state of a
// quit in progress.
func (m *Model) statusBar() string {
	sep := m.c.st.Subtle.Render(" │ ")
	parts := m.statusParts()
	if bar := strings.Join(parts, sep); ansi.StringWidth(bar) > m.width && m.opts.Title != "" && m.opts.Session == nil && len(parts) > 2 {
		// In a view, what is shown (a tap's name, a file) comes right
		// after the counts when the bar is cut, so a narrow terminal never
		// loses it; a live session keeps the server's name there.
		title := parts[len(parts)-1]
		parts = append(parts[:2], append([]string{title}, parts[2:len(parts)-1]...)...)
	}
	return fit(strings.Join(parts, sep), m.width)
}

// statusParts are the status bar's parts, most important first (a narrow
// terminal cuts the end; the ? screen lists them all, whole).
func (m *Model) statusParts() []string {
	st := m.c.st
	ix := m.c.ix
	// Most important first: a narrow terminal truncates the end.
	parts := []string{st.Accent.Render("linesman")}
	counts := fmt.Sprintf("%s %d %s %d %s %d",
		severityGlyph(wire.SeverityError), ix.counts[wire.SeverityError],
		severityGlyph(wire.SeverityWarning), ix.counts[wire.SeverityWarning],
		severityGlyph(wire.SeverityNote), ix.counts[wire.SeverityNote])
	switch {
	case ix.counts[wire.SeverityError] > 0:
		counts = st.Error.Render(counts)
	case ix.counts[wire.SeverityWarning] > 0:
		counts = st.Warning.Render(counts)
	}
	parts = append(parts, counts)
	if n, b := ix.log.Dropped(); n > 0 {
		parts = append(parts, st.Warning.Render(fmt.Sprintf("dropped %d events (%s)", n, humanBytes(b))))
	}
	waiting := 0
	for _, r := range m.inflight.reqs {
		if r.Dir == wire.ServerToClient {
			waiting++
		}
	}
	if waiting > 0 && m.live() {
		parts = append(parts, st.Warning.Render(fmt.Sprintf("⚑ %d server request(s) await an answer (a)", waiting)))
	}
	hs := ix.tr.Handshake()
	e := hs.Era.String()
	if hs.ProtocolVersion != "" {
		e += " " + hs.ProtocolVersion
	}
	parts = append(parts, e)
	if name, version := hs.ServerName(); name != "" {
		parts = append(parts, wire.VisibleString(strings.TrimSpace(name+" "+version), wire.Pictures))
	}
	parts = append(parts, fmt.Sprintf("→%d ←%d", ix.frameCount[wire.ClientToServer], ix.frameCount[wire.ServerToClient]))
	if m.opts.Session == nil {
		parts = append(parts, st.Subtle.Render("read-only"))
	}
	if m.opts.Title != "" {
		parts = append(parts, wire.VisibleString(m.opts.Title, wire.Pictures))
	}
	return parts
}

// bottomLines is the bottom line, or a message wrapped over as many rows
// as it takes (up to a third of the screen), so that no message hides its
// end: those rows cover the panes' last rows until the next key.
func (m *Model) bottomLines() []string {
	if m.exp.step == exportName && !m.messageBad {
		return []string{m.exportHint(), m.bottomLine()}
	}
	if m.message == "" || m.exp.step != exportOff || (m.filtering || m.searching || m.icepting) && !m.messageBad {
		return []string{m.bottomLine()}
	}
	s := m.c.st.Accent.Render(wire.VisibleString(m.message, wire.Pictures))
	if m.messageBad {
		s = m.c.st.Error.Render("✖ " + wire.VisibleString(m.message, wire.Pictures))
	}
	rows := m.messageLines(s)
	for i := range rows {
		rows[i] = fit(rows[i], m.width)
	}
	return rows
}

// bottomLine is the filter or export prompt, a message, or the help line
// for the focused pane.
func (m *Model) bottomLine() string {
	if m.exp.step != exportOff {
		return m.exportLine()
	}
	if m.faultAsk {
		return m.faultLine()
	}
	if m.filtering {
		if m.message != "" && m.messageBad {
			// A refused filter: say why here, where the user looks; the
			// prompt comes back with the next key.
			return fit(m.c.st.Error.Render("✖ "+wire.VisibleString(m.message, wire.Pictures)), m.width)
		}
		return fit(m.filterIn.View(), m.width)
	}
	if m.searching {
		return fit(m.searchIn.View(), m.width)
	}
	if m.icepting {
		if m.message != "" && m.messageBad {
			return fit(m.c.st.Error.Render("✖ "+wire.VisibleString(m.message, wire.Pictures)), m.width)
		}
		return fit(m.icptIn.View(), m.width)
	}
	if m.message != "" {
		s := m.c.st.Accent.Render(wire.VisibleString(m.message, wire.Pictures))
		if m.messageBad {
			s = m.c.st.Error.Render("✖ " + wire.VisibleString(m.message, wire.Pictures))
		}
		return fit(s, m.width)
	}
	return fit(m.help.ShortHelpView(m.shortHelp()), m.width)
}

// shortHelp lists the bindings for the focused pane, then the global ones
// that fit; disabled ones are left out by the help bubble.
func (m *Model) shortHelp() []key.Binding {
	k := m.c.km
	if p := m.pickerHelp(); p != nil {
		return keyBindings(p...)
	}
	var b []*Binding
	switch {
	case m.page != nil:
		return keyBindings(k.ClosePage, k.Down, k.Up, k.PageDown, k.Top, k.Bottom)
	case m.flist.open:
		return keyBindings(k.GotoFinding, k.CloseFindings, k.Down, k.Up, k.PageDown, k.Top, k.Bottom)
	}
	switch m.focus {
	case focusComposer:
		return keyBindings(k.Send, k.RawMode, k.NextTemplate, k.Editor, k.ClearComposer, k.CloseComposer, k.FocusNext)
	case focusFrames:
		b = []*Binding{k.Up, k.Down, k.TabNext, k.PairJump, k.Unfold, k.Resend, k.EditResend, k.AnswerFrame}
		if _, held := m.selectedHold(); held {
			b = append([]*Binding{k.ReleaseHeld, k.EditHeld, k.DropHeld}, b...)
		}
	case focusDetail:
		b = []*Binding{k.SearchNext, k.SearchPrev, k.Search, k.Unfold, k.PairJump, k.Up, k.Down, k.TabNext}
	case focusInFlight:
		b = []*Binding{k.Up, k.Down, k.Cancel, k.AnswerInFlight, k.ShowFrame}
	case focusProcess:
		b = []*Binding{k.Env}
	case focusStderr:
		b = []*Binding{k.Up, k.Down, k.OpenEntry}
	}
	// ?, q and t first (t is how a tool is called: a user who reads the
	// screen must find it at any width), then the pane's own keys: a
	// narrow help line cuts from the end.
	return keyBindings(append(append([]*Binding{k.Help, k.Quit, k.PickOpen}, b...), k.Compose, k.FocusNext, k.Zoom, k.Findings, k.NextFinding, k.Filter, k.Intercept, k.Follow, k.Export)...)
}

// keyBindings gives the help bubble the key bindings of the table's rows,
// with their key bar text.
func keyBindings(bs ...*Binding) []key.Binding {
	out := make([]key.Binding, len(bs))
	for i, b := range bs {
		out[i] = b.Binding
		if b.bar != "" {
			out[i].SetHelp(b.Help().Key, b.bar)
		}
	}
	return out
}

// fullHelp is the ? screen: every binding by group (those that would do
// nothing now are marked "not now"), the filter syntax and the glyphs.
func (m *Model) fullHelp() []string {
	st := m.c.st
	indent := 0
	for _, g := range m.c.km.groups() {
		indent = max(indent, ansi.StringWidth(g.Title)+1)
	}
	// The status bar whole first: a narrow terminal cuts its end.
	var out []string
	status := ansi.Strip(strings.Join(m.statusParts(), " │ "))
	for i, r := range hangWrap(status, max(m.width-indent, 20), 0) {
		lead := strings.Repeat(" ", indent)
		if i == 0 {
			lead = st.Accent.Render(fmt.Sprintf("%-*s", indent, "Status"))
		}
		out = append(out, lead+st.Subtle.Render(r))
	}
	for _, g := range m.c.km.groups() {
		line := st.Accent.Render(fmt.Sprintf("%-*s", indent, g.Title))
		used := indent
		for i, b := range g.Bindings {
			item := st.Help.FullKey.Render(b.Help().Key) + " " + b.Help().Desc
			if !b.Enabled() {
				// "(off)" read as a state ("follow newest (off)" while
				// following): say that the key does nothing right now.
				item = st.Subtle.Render(b.Help().Key + " " + b.Help().Desc + " (not now)")
			}
			w := ansi.StringWidth(item)
			if i > 0 {
				if used+3+w > m.width {
					out = append(out, line)
					line, used = strings.Repeat(" ", indent), indent
				} else {
					line += st.Subtle.Render(" · ")
					used += 3
				}
			}
			line += item
			used += w
		}
		out = append(out, line)
	}
	// Plain text lines wrap (a hanging indent under the description) so
	// that nothing is cut at 80 columns.
	text := append(strings.Split(FilterSyntax, "\n"), "Glyphs: → client→server  ← server→client  ✖ error  ▲ warning  ● note  ▶ focused pane  ▌ selected")
	for _, l := range text {
		for _, r := range hangWrap(l, m.width, 18) {
			out = append(out, st.Subtle.Render(r))
		}
	}
	return out
}

// click focuses the pane under the mouse and selects the row clicked.
func (m *Model) click(mo tea.Mouse) {
	if m.zoomed || m.page != nil || m.flist.open {
		return // one view fills the screen: the panes' places are hidden
	}
	for id := focusFrames; id < numPanes; id++ {
		r := m.rects[id]
		if id == focusDetail && m.composer.open {
			r = m.rects[focusComposer]
			id = focusComposer
		}
		if !r.contains(mo.X, mo.Y) {
			continue
		}
		if id == focusComposer {
			m.focusComposer()
			return
		}
		m.focus = id
		row := mo.Y - r.y - 1
		switch id {
		case focusFrames:
			list := m.c.ix.view()
			if i := m.frames.top + row; row >= 0 && i < len(list) {
				m.frames.selectSeq(list[i])
				m.refresh()
			}
		case focusInFlight:
			if row >= 0 {
				m.inflight.sel = max(0, min(row, len(m.inflight.reqs)-1))
			}
		case focusDetail:
			if row == -1 { // the title line holds the tabs
				m.detail.setTab(m.detail.tab + 1)
				m.refresh()
			}
		}
		return
	}
}

func (m *Model) scrollAt(x, y, d int) {
	if m.zoomed || m.page != nil || m.flist.open || m.showHelp {
		// One view fills the screen: the wheel moves in it.
		mv := moveDown
		if d < 0 {
			mv = moveUp
		}
		for range max(d, -d) {
			m.moveFocused(mv)
		}
		return
	}
	for id := focusFrames; id < numPanes; id++ {
		if !m.rects[id].contains(x, y) {
			continue
		}
		switch id {
		case focusFrames:
			m.frames.move(d)
			m.refresh()
		case focusDetail:
			m.detail.scrollBy(d)
		case focusStderr:
			m.stderr.scrollBy(d)
		case focusInFlight:
			m.inflight.move(d)
		}
		return
	}
}
