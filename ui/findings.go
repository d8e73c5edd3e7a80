package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"linesman/wire"
)

// The findings list (F): every finding of the session — on a frame, logged
// later about a frame, or about no frame at all (stderr, the process, the
// wire) — grouped by severity, the worst first, like Wireshark's expert
// information. The list is read from the index ([findingList]), which reads
// the log the projection wrote: nothing here judges anything. enter goes to
// the finding: its frame (Findings tab), or its row in the stderr & events
// pane. The selected finding is shown whole under the list.

// findingsView is the state of the findings list while it is open.
type findingsView struct {
	c    *common
	open bool
	sel  int // position in the list's order (findingList.at)
	top  int // first list row shown (group headers count as rows)
}

// row returns the list row of finding i: the findings before it plus one
// header per group up to its own.
func (v *findingsView) row(i int) int {
	r := 0
	for _, refs := range v.c.ix.found.bySev {
		if len(refs) == 0 {
			continue
		}
		r++ // the group's header
		if i < len(refs) {
			return r + i
		}
		r += len(refs)
		i -= len(refs)
	}
	return r
}

// move moves the selection by d findings (clamped).
func (v *findingsView) move(d int) {
	n := v.c.ix.found.len()
	v.sel = max(0, min(v.sel+d, n-1))
}

// Render draws the list and the selected finding in w×h cells.
func (v *findingsView) Render(w, h int) string {
	st := v.c.st
	ix := v.c.ix
	n := ix.found.len()
	v.sel = max(0, min(v.sel, n-1))
	counts := fmt.Sprintf("%d  %s %d %s %d %s %d · enter: go to it · esc closes", n,
		severityGlyph(wire.SeverityError), len(ix.found.bySev[0]),
		severityGlyph(wire.SeverityWarning), len(ix.found.bySev[1]),
		severityGlyph(wire.SeverityNote), len(ix.found.bySev[2]))
	title := v.c.titleLine(w, "Findings", true, st.Subtle.Render(counts))
	if n == 0 {
		return block([]string{title, st.Subtle.Render("  no findings in this session")}, w, h)
	}
	// The selected finding whole at the bottom, the list above it (at
	// least three rows of it).
	whole := v.whole(w)
	listH := max(h-2-len(whole), min(3, h-1))
	whole = whole[:min(len(whole), max(h-2-listH, 0))]
	selRow := v.row(v.sel)
	v.top = max(0, min(v.top, selRow))
	if selRow >= v.top+listH {
		v.top = selRow - listH + 1
	}
	out := []string{title}
	out = append(out, strings.Split(block(v.rows(w, v.top, listH), w, listH), "\n")...)
	out = append(out, st.Rule.Render(strings.Repeat("─", w)))
	out = append(out, whole...)
	return block(out, w, h)
}

// rows draws the list rows from row top on, at most n of them.
func (v *findingsView) rows(w, top, n int) []string {
	st := v.c.st
	ix := v.c.ix
	var out []string
	r, i := 0, 0 // r: list row, i: finding index
	for g, refs := range ix.found.bySev {
		if len(refs) == 0 {
			continue
		}
		if r >= top && len(out) < n {
			sev := findingSevs[g]
			out = append(out, st.Severity(sev).Render(fmt.Sprintf("%s %s  %d", severityGlyph(sev), sevPlural(sev), len(refs))))
		}
		r++
		if r+len(refs) <= top { // the whole group is above the window
			r += len(refs)
			i += len(refs)
			continue
		}
		for j := max(0, top-r); j < len(refs) && len(out) < n; j++ {
			out = append(out, v.item(refs[j], i+j == v.sel, w))
		}
		r += len(refs)
		i += len(refs)
		if len(out) >= n {
			break
		}
	}
	return out
}

// sevPlural names a severity's group.
func sevPlural(s wire.Severity) string {
	switch s {
	case wire.SeverityError:
		return "errors"
	case wire.SeverityWarning:
		return "warnings"
	}
	return "notes"
}

// item draws one finding: time, code, where it is, the message.
func (v *findingsView) item(r findingRef, selected bool, w int) string {
	st := v.c.st
	f, ev, ok := v.c.ix.finding(r)
	if !ok {
		return st.Subtle.Render(fmt.Sprintf("   #%d dropped by retention", r.seq))
	}
	code := fmt.Sprintf("%-28s", wire.VisibleString(f.Code, wire.Pictures))
	s := fmt.Sprintf("%*s %s %s %-11s %s", colTime, fmtDur(ev.At), severityGlyph(f.Severity), code,
		findingWhere(r), wire.VisibleString(f.Message, wire.Pictures))
	if selected {
		return st.Selected.Render(fit("▌"+s, w))
	}
	return " " + s
}

// findingWhere names where enter goes for r: its frame, or its row among
// the stderr lines and events.
func findingWhere(r findingRef) string {
	if r.frame != 0 {
		return fmt.Sprintf("frame #%d", r.frame)
	}
	return "events"
}

// whole is the selected finding in full, wrapped at w: what was seen, where,
// and the registry's title and fix.
func (v *findingsView) whole(w int) []string {
	st := v.c.st
	r, ok := v.c.ix.found.at(v.sel)
	if !ok {
		return nil
	}
	f, ev, ok := v.c.ix.finding(r)
	if !ok {
		return []string{st.Subtle.Render(fmt.Sprintf("#%d was dropped by retention", r.seq))}
	}
	where := "in the stderr & events pane"
	if r.frame != 0 {
		where = fmt.Sprintf("on frame #%d", r.frame)
	}
	head := fmt.Sprintf("%s %s %s · %s · at %ss", severityGlyph(f.Severity), f.Severity,
		wire.VisibleString(f.Code, wire.Pictures), where, fmtDur(ev.At))
	var out []string
	for _, l := range hangWrap(head, w, 2) {
		out = append(out, st.Severity(f.Severity).Render(l))
	}
	add := func(label, text string) {
		if text == "" {
			return
		}
		body := lipgloss.Wrap(wire.VisibleString(text, wire.Pictures), max(w-7, 10), " ")
		for i, l := range strings.Split(body, "\n") {
			if i == 0 {
				out = append(out, st.Accent.Render(fmt.Sprintf("  %-4s", label))+" "+l)
			} else {
				out = append(out, "       "+l)
			}
		}
	}
	add("seen", f.Message)
	if info, ok := lookupFinding(f.Code, v.c.ix.wroteBy(&ev)); ok {
		add("what", info.Title)
		add("fix", info.Fix)
	}
	return out
}

// openFindings opens the findings list on the finding n/N reached last, or
// the first.
func (m *Model) openFindings() {
	m.flist.open = true
	m.flist.c = m.c
}

// closeFindings closes the findings list.
func (m *Model) closeFindings() { m.flist.open = false }

// gotoSelectedFinding closes the list and goes to the selected finding.
func (m *Model) gotoSelectedFinding() {
	r, ok := m.c.ix.found.at(m.flist.sel)
	m.flist.open = false
	if ok {
		m.gotoPlace(r.place(), "")
	}
}

// gotoPlace shows a finding's place: a frame (selected, its Findings tab
// shown, the Frames pane focused) or a row of the stderr & events pane
// (selected there, that pane focused). n, N and the findings list all go
// through here. note, when set, leads the message (n saying it wrapped).
func (m *Model) gotoPlace(place uint64, note string) {
	ix := m.c.ix
	ev, ok := ix.log.Get(place)
	if !ok {
		m.setMessage(fmt.Sprintf("#%d was dropped by retention", place), true)
		return
	}
	m.findAt = place
	if ev.Frame == nil {
		m.stderr.selectSeq(place)
		m.focus = focusStderr
		m.composer.ta.Blur()
		if f := ev.Finding; f != nil {
			note += fmt.Sprintf("%s %s: %s (enter: the whole line · F: all findings)", severityGlyph(f.Severity),
				wire.VisibleString(f.Code, wire.Pictures), wire.VisibleString(f.Message, wire.Pictures))
		}
		m.setMessage(strings.TrimSuffix(note, ": "), false)
		m.findSel = m.frames.SelectedSeq()
		return
	}
	if ix.filt != nil && !ix.filt.match(&ev, ix) {
		// A flagged frame hidden by the filter: clear the filter so it shows.
		ix.setFilter(nil)
		note += "filter cleared to show the finding"
	}
	m.setMessage(strings.TrimSuffix(note, ": "), false)
	m.frames.selectSeq(place)
	m.detail.showFindings(place)
	if m.focus != focusComposer {
		m.focus = focusFrames
	}
	m.refresh()
	m.findSel = place
}

// jumpFinding goes to the next (d > 0) or previous place with a finding,
// in log order, wrapping around: frames and findings about no frame alike.
// It counts from the last place it reached, or from the selected frame when
// the user has selected another one since.
func (m *Model) jumpFinding(d int) {
	cur := m.findAt
	if sel := m.frames.SelectedSeq(); sel != m.findSel || cur == 0 {
		cur = sel
	}
	place := m.c.ix.nextStop(cur, d)
	if place == 0 {
		return
	}
	note := ""
	switch {
	case cur == 0:
	case d > 0 && place <= cur:
		note = "wrapped past the last finding to the first: "
	case d < 0 && place >= cur:
		note = "wrapped past the first finding to the last: "
	}
	m.gotoPlace(place, note)
}
