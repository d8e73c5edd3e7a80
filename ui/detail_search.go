package ui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Reading one frame: search in it (/ in the Detail pane, then n and N),
// unfold what the Detail pane folds (o), and go to the frame paired with it
// (x: a request's answer, an answer's request, a progress notification's
// request), as the projection paired them ([eventlog.Tracker.PairOf],
// [eventlog.Tracker.ProgressFor]).

// detailSearch is the search in the Detail pane's content: the lines as
// shown (the JSON or the Raw tab, already inert), matched without regard
// to case.
type detailSearch struct {
	query   string
	matches []int // the content lines holding a match, in order
	cur     int   // the current match: an index into matches
}

// rematch finds the query in lines (the pane's content, rebuilt).
func (s *detailSearch) rematch(lines []string) {
	s.matches = s.matches[:0]
	if s.query == "" {
		return
	}
	q := strings.ToLower(s.query)
	for i, l := range lines {
		if strings.Contains(strings.ToLower(ansi.Strip(l)), q) {
			s.matches = append(s.matches, i)
		}
	}
	s.cur = max(0, min(s.cur, len(s.matches)-1))
}

// line is the content line of the current match (-1: none).
func (s *detailSearch) line() int {
	if len(s.matches) == 0 {
		return -1
	}
	return s.matches[s.cur]
}

// mark highlights the matches in content line i, the current match's line
// in reverse video, others underlined (both survive NO_COLOR). A line with
// a match loses its syntax colours: the match is what is being read.
func (s *detailSearch) mark(st *Styles, i int, line string) string {
	if len(s.matches) == 0 {
		return line
	}
	if k := sort.SearchInts(s.matches, i); k == len(s.matches) || s.matches[k] != i {
		return line
	}
	style := st.Match
	if i == s.line() {
		style = st.MatchCurrent
	}
	return highlight(ansi.Strip(line), s.query, style)
}

// highlight styles every occurrence of q in plain, ignoring case.
func highlight(plain, q string, style lipgloss.Style) string {
	hay, needle := strings.ToLower(plain), strings.ToLower(q)
	if len(hay) != len(plain) { // lower case changed the lengths: match as typed
		hay, needle = plain, q
	}
	var b strings.Builder
	for pos := 0; pos < len(plain); {
		j := strings.Index(hay[pos:], needle)
		if j < 0 || needle == "" {
			b.WriteString(plain[pos:])
			break
		}
		b.WriteString(plain[pos : pos+j])
		b.WriteString(style.Render(plain[pos+j : pos+j+len(needle)]))
		pos += j + len(needle)
	}
	return b.String()
}

// showMatch scrolls the pane so the current match sits a third of the way
// down.
func (p *detailPane) showMatch() {
	if l := p.search.line(); l >= 0 {
		p.scroll = 0
		p.scrollBy(l - (p.h-1)/3)
	}
}

// openSearch opens the search prompt of the Detail pane.
func (m *Model) openSearch() tea.Cmd {
	m.searching = true
	m.searchIn.SetValue(m.detail.search.query)
	m.searchIn.CursorEnd()
	return m.searchIn.Focus()
}

// searchTyped matches as the query is typed.
func (m *Model) searchTyped() {
	m.detail.search.query = m.searchIn.Value()
	m.detail.search.cur = 0
	m.detail.search.rematch(m.detail.lines)
	m.detail.showMatch()
}

// applySearch closes the prompt on the first match at or below the top of
// the pane. A query found only in what is folded unfolds the frame.
func (m *Model) applySearch() {
	m.searching = false
	m.searchIn.Blur()
	d := &m.detail
	d.search.query = m.searchIn.Value()
	d.search.rematch(d.lines)
	unfolded := false
	if len(d.search.matches) == 0 && d.folded > 0 && !d.unfold {
		d.unfold, unfolded = true, true
		m.refresh()
	}
	if d.search.query == "" {
		return
	}
	if len(d.search.matches) == 0 {
		m.setMessage(fmt.Sprintf("no %q in this frame", d.search.query), true)
		return
	}
	d.search.cur = sort.SearchInts(d.search.matches, d.scroll) % len(d.search.matches)
	d.showMatch()
	m.setMessage(m.matchSaid(unfolded, false), false)
}

// cancelSearch closes the prompt and clears the search.
func (m *Model) cancelSearch() {
	m.searching = false
	m.searchIn.Blur()
	m.searchIn.SetValue("")
	m.detail.search = detailSearch{}
}

// nextMatch moves to the next (d > 0) or previous match, wrapping around
// and saying so.
func (m *Model) nextMatch(d int) {
	s := &m.detail.search
	n := len(s.matches)
	next := s.cur + d
	wrapped := next < 0 || next >= n
	s.cur = (next%n + n) % n
	m.detail.showMatch()
	m.setMessage(m.matchSaid(false, wrapped), false)
}

// matchSaid is the message after a move to a match.
func (m *Model) matchSaid(unfolded, wrapped bool) string {
	s := &m.detail.search
	msg := fmt.Sprintf("match %d of %d (n next, N previous)", s.cur+1, len(s.matches))
	if unfolded {
		msg += " · found in what was folded: unfolded"
	}
	if wrapped {
		msg = "wrapped to the " + when(s.cur == 0, "first") + when(s.cur != 0, "last") + " match: " + msg
	}
	return msg
}

// whyNoMatches is why n and N find no match in the frame.
func (m *Model) whyNoMatches() string {
	return when(len(m.detail.search.matches) == 0, fmt.Sprintf("no %q in this frame", m.detail.search.query))
}

// toggleUnfold shows the frame's _meta and long strings whole, or folds
// them again.
func (m *Model) toggleUnfold() {
	m.detail.unfold = !m.detail.unfold
	m.refresh()
}

// whyNoFolds is why o does nothing: no frame, or nothing folded in it.
func (m *Model) whyNoFolds() string {
	if why := m.whyNoFrame(); why != "" {
		return why
	}
	return when(!m.detail.unfold && m.detail.folded == 0, "nothing is folded in this frame")
}

// pairedWith is the frame paired with the selected one (0 and why there
// is none): a request's answer, an answer's request, a progress
// notification's request.
func (m *Model) pairedWith() (uint64, string) {
	ev, ok := m.selectedEvent()
	if !ok {
		return 0, whyNoFrame
	}
	pp, known := m.c.ix.tr.PairOf(ev.Seq)
	k := ev.Frame.Msg.Kind
	switch {
	case k == wire.KindRequest && pp.Response != 0:
		return pp.Response, ""
	case k == wire.KindRequest && known && pp.Request.State != eventlog.ReqInFlight:
		return 0, "this request was never answered (" + pp.Request.State.String() + ")"
	case k == wire.KindRequest:
		return 0, "this request has no answer yet"
	case k.IsResponse() && known && pp.Request.Seq != 0:
		return pp.Request.Seq, ""
	case k.IsResponse():
		return 0, "this answer pairs with no request (the Pair tab says why)"
	}
	if req, ok := m.c.ix.tr.ProgressFor(ev.Seq); ok {
		return req, "" // a progress notification: the request that offered its token
	}
	return 0, "a " + k.String() + " has no request or answer"
}

// whyNoPair is why x does nothing.
func (m *Model) whyNoPair() string {
	_, why := m.pairedWith()
	return why
}

// gotoPair selects the frame paired with the selected one, clearing a
// filter that hides it.
func (m *Model) gotoPair() {
	from := m.frames.SelectedSeq()
	to, _ := m.pairedWith()
	ix := m.c.ix
	ev, ok := ix.log.Get(to)
	if !ok || ev.Frame == nil {
		m.setMessage(fmt.Sprintf("#%d was dropped by retention", to), true)
		return
	}
	msg := fmt.Sprintf("#%d ⇄ #%d (x goes back)", from, to)
	if ix.filt != nil && !ix.filt.match(&ev, ix) {
		ix.setFilter(nil)
		msg += " · filter cleared to show it"
	}
	m.frames.selectSeq(to)
	m.refresh()
	m.setMessage(msg, false)
}
