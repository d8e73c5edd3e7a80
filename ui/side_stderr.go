package ui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// stderrPane shows the server's stderr interleaved with process events,
// notes and findings not on a frame, all on the log's clock. It follows the
// newest line, or, when the frame list is not following, shows the lines
// around the selected frame with a marker where the frame falls. Moving in
// it (or n, N, the findings list) selects one entry, which enter opens
// whole; zoomed (wrap), long entries wrap instead of being cut.
type stderrPane struct {
	c      *common
	w, h   int
	follow bool
	sel    uint64 // the selected entry's Seq while not following
	wrap   bool   // long entries wrap over several rows (zoomed)

	shown uint64 // the entry a move starts from: set by Render when following
	// covered is how many of the pane's last rows a message covers until
	// the next key (set by the root before each render): the selected entry
	// and the newest are kept above them.
	covered int
}

func (p *stderrPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p *stderrPane) rows() int { return max(p.h-1, 0) }

// cursor is the position of the selected entry in the index's events (the
// nearest one when it was dropped), or -1 when there are none.
func (p *stderrPane) cursor(seq uint64) int {
	evs := p.c.ix.events
	if len(evs) == 0 {
		return -1
	}
	i := sort.Search(len(evs), func(i int) bool { return evs[i] >= seq })
	return min(i, len(evs)-1)
}

// selectSeq selects the entry seq and leaves follow mode.
func (p *stderrPane) selectSeq(seq uint64) { p.sel, p.follow = seq, false }

// selected is the entry enter opens: the selected one, or while following
// the one a move would start from.
func (p *stderrPane) selected() uint64 {
	if !p.follow {
		if i := p.cursor(p.sel); i >= 0 {
			return p.c.ix.events[i]
		}
		return 0
	}
	return p.shown
}

// scrollBy moves the selection by d entries, leaving follow mode; moving
// past the newest entry follows again.
func (p *stderrPane) scrollBy(d int) {
	evs := p.c.ix.events
	if len(evs) == 0 {
		return
	}
	start := p.sel
	if p.follow {
		start = p.shown
		if start == 0 {
			start = evs[len(evs)-1]
		}
	}
	i := p.cursor(start) + d
	if i >= len(evs) && d > 0 {
		p.follow = true
		return
	}
	p.selectSeq(evs[max(0, min(i, len(evs)-1))])
}

// Render draws the pane; anchor is the Seq of the selected frame when the
// lines around it should be shown (0: follow the newest).
func (p *stderrPane) Render(focused bool, anchor uint64) string {
	ix := p.c.ix
	evs := ix.events
	rows := p.rows()
	// The header counts the rows the pane lists: stderr lines and events.
	extra := fmt.Sprintf("%d lines", len(evs))
	if len(evs) == 1 {
		extra = "1 line"
	}
	top, cur, mark := p.window(anchor)
	if mark >= 0 {
		extra += fmt.Sprintf("  around frame #%d", anchor)
	}
	if focused || !p.follow {
		extra += "  enter: whole line"
	}
	lines := []string{p.c.titleLine(p.w, "stderr & events", focused, p.c.st.Subtle.Render(extra))}
	for i := top; len(lines) <= rows && i <= len(evs); i++ {
		if i == mark {
			lines = append(lines, p.c.st.Accent.Render(fit(fmt.Sprintf("%*s ▸ frame #%d ", colTime, "", anchor), p.w)))
		}
		if i == len(evs) || len(lines) > rows {
			break
		}
		ev, ok := ix.log.Get(evs[i])
		if !ok {
			continue
		}
		for _, l := range p.entry(&ev) {
			if i == cur {
				l = p.selectedRow(l, focused)
			}
			lines = append(lines, l)
		}
	}
	if len(evs) == 0 {
		lines = append(lines, p.c.st.Subtle.Render("  nothing on stderr yet"))
	}
	return block(lines, p.w, p.h)
}

// selectedRow marks a row of the selected entry: reverse video when the
// pane has the focus, the blurred selection otherwise, and a ▌ either way.
func (p *stderrPane) selectedRow(l string, focused bool) string {
	s := fit("▌"+ansi.TruncateLeft(ansi.Strip(l), 1, ""), p.w)
	if focused {
		return p.c.st.Selected.Render(s)
	}
	return p.c.st.SelectedBlurred.Render(s)
}

// window decides what Render shows: the first entry, the selected entry
// (-1: none shown as selected) and where the frame marker goes (-1: none).
func (p *stderrPane) window(anchor uint64) (top, cur, mark int) {
	evs := p.c.ix.events
	rows := max(p.rows()-p.covered, 1)
	cur, mark = -1, -1
	switch {
	case !p.follow:
		cur = p.cursor(p.sel)
		top = p.topFor(cur, rows)
	case anchor != 0:
		// The entries logged before the frame fill the top half.
		i := sort.Search(len(evs), func(i int) bool { return evs[i] > anchor })
		mark = i
		top = max(0, min(i-rows/2, len(evs)-rows+1))
		if i > 0 {
			p.shown = evs[i-1]
		}
	default:
		top = p.topFor(len(evs)-1, rows)
		if len(evs) > 0 {
			p.shown = evs[len(evs)-1]
		}
	}
	return top, cur, mark
}

// topFor is the first entry to show so that entry cur ends the window (or
// sits in it): entries above cur fill the rows, however many rows each
// takes.
func (p *stderrPane) topFor(cur, rows int) int {
	if cur < 0 {
		return 0
	}
	if !p.wrap {
		return max(0, cur-rows+1)
	}
	used := 0
	top := cur
	for i := cur; i >= 0; i-- {
		ev, ok := p.c.ix.log.Get(p.c.ix.events[i])
		n := 1
		if ok {
			n = len(p.entry(&ev))
		}
		if used+n > rows && i < cur {
			break
		}
		used += n
		top = i
	}
	return top
}

// entry draws one entry: one row cut to the width, or, when the pane
// wraps, as many rows as it takes, continued under its text.
func (p *stderrPane) entry(ev *eventlog.Event) []string {
	head, text := p.parts(ev)
	if !p.wrap {
		return []string{truncate(head+text, p.w)}
	}
	hw := ansi.StringWidth(head)
	body := strings.Split(ansi.Hardwrap(lipgloss.Wrap(text, max(p.w-hw, 8), " "), max(p.w-hw, 8), true), "\n")
	out := make([]string, len(body))
	pad := strings.Repeat(" ", hw)
	for i, b := range body {
		if i == 0 {
			out[i] = head + b
		} else {
			out[i] = pad + b
		}
	}
	return out
}

// parts is an entry's head (time and glyph) and its text, made inert.
func (p *stderrPane) parts(ev *eventlog.Event) (head, text string) {
	st := p.c.st
	tm := st.Subtle.Render(fmt.Sprintf("%*s", colTime, fmtDur(ev.At)))
	var glyph string
	switch ev.Type {
	case eventlog.EventStderr:
		glyph = st.Stderr.Render("┃")
		text = st.Stderr.Render(wire.Visible(ev.Stderr.Content, wire.Pictures))
	case eventlog.EventProcess:
		glyph = st.Accent.Render("◆")
		text = processText(ev.Process)
	case eventlog.EventNote, eventlog.EventEra, eventlog.EventRestart, eventlog.EventStdinClosed:
		glyph = st.Note.Render("ℹ")
		text = wire.VisibleString(ev.Note, wire.Pictures)
	case eventlog.EventFinding:
		f := ev.Finding
		glyph = st.Severity(f.Severity).Render(severityGlyph(f.Severity))
		text = st.Severity(f.Severity).Render(wire.VisibleString(f.Code, wire.Pictures)) + " " + wire.VisibleString(f.Message, wire.Pictures)
		if f.FrameSeq != 0 {
			text += st.Subtle.Render(fmt.Sprintf(" (frame #%d)", f.FrameSeq))
		}
	}
	return tm + " " + glyph + " ", text
}
