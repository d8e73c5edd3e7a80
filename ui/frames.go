package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// framesPane is the frame list: one row per logical frame. It keeps the
// selected frame by Seq (stable when the list grows, is trimmed by retention
// or refiltered) and the first visible row; rendering reads only the visible
// rows' events from the log.
type framesPane struct {
	c      *common
	w, h   int
	selSeq uint64
	top    int
	follow bool

	targets map[uint64]string // seq → target (see target), parsed once
}

func (p *framesPane) SetSize(w, h int) { p.w, p.h = w, h; p.sync() }

func (p *framesPane) rows() int { return max(p.h-1, 0) }

// selected returns the position of the selected frame in the shown list
// (the nearest one when it was filtered out), or -1 when the list is empty.
func (p *framesPane) selected() int {
	list := p.c.ix.view()
	if len(list) == 0 {
		return -1
	}
	i := sort.Search(len(list), func(i int) bool { return list[i] >= p.selSeq })
	if i == len(list) {
		i--
	}
	return i
}

// SelectedSeq returns the Seq of the selected frame, or 0.
func (p *framesPane) SelectedSeq() uint64 {
	list := p.c.ix.view()
	if i := p.selected(); i >= 0 {
		return list[i]
	}
	return 0
}

// sync applies follow mode and keeps the selection on screen. The root
// calls it after anything that changes the list, the selection or the size.
func (p *framesPane) sync() {
	list := p.c.ix.view()
	n := len(list)
	if n == 0 {
		p.top = 0
		return
	}
	if p.follow {
		p.selSeq = list[n-1]
	}
	sel := p.selected()
	p.selSeq = list[sel]
	rows := p.rows()
	if sel < p.top {
		p.top = sel
	}
	if rows > 0 && sel >= p.top+rows {
		p.top = sel - rows + 1
	}
	p.top = max(0, min(p.top, n-rows))
}

// move moves the selection by delta rows; moving up leaves follow mode,
// reaching the last row does not re-enter it (a key does).
func (p *framesPane) move(delta int) {
	list := p.c.ix.view()
	if len(list) == 0 {
		return
	}
	sel := max(0, min(len(list)-1, p.selected()+delta))
	p.selSeq = list[sel]
	if delta < 0 {
		p.follow = false
	}
	p.sync()
}

func (p *framesPane) selectSeq(seq uint64) {
	p.selSeq = seq
	p.follow = false
	p.sync()
}

func (p *framesPane) top0() {
	list := p.c.ix.view()
	if len(list) > 0 {
		p.selectSeq(list[0])
	}
}

// Render draws the title and the visible rows.
func (p *framesPane) Render(focused bool) string {
	ix := p.c.ix
	list := ix.view()
	extra := fmt.Sprintf("%d", len(ix.frames))
	if ix.filt != nil {
		extra = fmt.Sprintf("%d of %d  /%s", len(list), len(ix.frames), wire.VisibleString(ix.filt.src, wire.Pictures))
	}
	if p.follow {
		extra += "  ⇣follow"
	}
	extra += p.c.icptStatus()
	lines := make([]string, 0, p.h)
	lines = append(lines, p.c.titleLine(p.w, "Frames", focused, p.c.st.Subtle.Render(extra)))
	sel := p.selected()
	end := min(len(list), p.top+p.rows())
	if p.top < end {
		events := ix.log.Range(list[p.top], list[end-1]+1)
		k := 0
		for i := p.top; i < end; i++ {
			for k < len(events) && events[k].Seq < list[i] {
				k++
			}
			if k < len(events) && events[k].Seq == list[i] {
				lines = append(lines, p.row(&events[k], i == sel, focused))
			} else {
				lines = append(lines, p.c.st.Subtle.Render(fmt.Sprintf("  #%d dropped by retention", list[i])))
			}
		}
	}
	if len(list) == 0 {
		msg := "  no frames yet"
		if ix.filt != nil {
			msg = "  no frame matches the filter"
		}
		lines = append(lines, p.c.st.Subtle.Render(msg))
	}
	return block(lines, p.w, p.h)
}

// frameColumns are the fixed column widths of a frame row.
const (
	colTime = 8
	colID   = 5
	colSize = 7
)

// row draws one frame. A selected row is drawn plain and then in reverse
// video as a whole (nested colours would break the reverse), with a ▌ marker.
func (p *framesPane) row(ev *eventlog.Event, selected, focused bool) string {
	st := p.c.st
	f := ev.Frame
	m := &f.Msg
	plain := selected
	style := func(s string, sty interface{ Render(...string) string }) string {
		if plain {
			return s
		}
		return sty.Render(s)
	}

	marker := " "
	if selected {
		marker = "▌"
	}
	tm := fmt.Sprintf("%*s", colTime, fmtDur(ev.At))
	dirGlyph, dirStyle := "→", st.Client
	if ev.Dir == wire.ServerToClient {
		dirGlyph, dirStyle = "←", st.Server
	}
	id := m.IDRaw
	if id == "" {
		id = m.ID.String()
	}
	id = fit(wire.VisibleString(id, wire.Pictures), colID)
	size := fmt.Sprintf("%*s", colSize, humanBytes(f.Size()))

	findings := p.c.ix.findings(ev)
	fixed := 1 + colTime + 1 + 1 + 1 + colID + 1 + 1 + colSize + 1
	rest := max(p.w-fixed, 0)
	// The badge column has a fixed place so that sizes line up.
	badgeW := rest * 52 / 100
	if p.w >= 120 {
		badgeW = rest * 45 / 100
	}
	methodW := rest - badgeW
	badgeW-- // a blank column keeps the badges off the pane's border
	what := p.what(ev)
	if p.c.ix.intercepts > 0 {
		if a, ok := p.c.ix.tr.Intercepted(ev.Seq); ok {
			what = holdMark(a) + what
		}
	}
	if len(f.Lines) > 1 {
		what += fmt.Sprintf(" [%d lines]", len(f.Lines))
	}
	what = fit(what, methodW)

	var sb strings.Builder
	sb.WriteString(marker)
	sb.WriteString(style(tm, st.Subtle))
	sb.WriteString(" ")
	sb.WriteString(style(dirGlyph, dirStyle))
	sb.WriteString(" ")
	sb.WriteString(id)
	sb.WriteString(" ")
	sb.WriteString(what)
	sb.WriteString(" ")
	sb.WriteString(style(size, st.Subtle))
	if badgeW > 0 {
		sb.WriteString(" ")
		sb.WriteString(p.badges(findings, badgeW, plain))
	}
	out := fit(sb.String(), p.w)
	if selected {
		if focused {
			return st.Selected.Render(out)
		}
		return st.SelectedBlurred.Render(out)
	}
	return out
}

// what is the method, or for other kinds what the frame is.
func (p *framesPane) what(ev *eventlog.Event) string {
	f := ev.Frame
	m := &f.Msg
	switch m.Kind {
	case wire.KindRequest, wire.KindNotification:
		method := wire.VisibleString(m.Method, wire.Pictures)
		if t := p.target(ev); t != "" {
			return method + " " + t
		}
		return method
	case wire.KindResult, wire.KindError:
		method := ""
		if r, ok := p.c.ix.tr.AnswerTo(ev.Seq); ok {
			method = " " + wire.VisibleString(r.Method, wire.Pictures)
		}
		if m.Kind == wire.KindError {
			return "error " + strconv.FormatInt(m.ErrorCode(), 10) + method
		}
		return "result" + method
	case wire.KindInvalid:
		if m.Invalid() != "" {
			return "invalid: " + wire.VisibleString(m.Invalid(), wire.Pictures)
		}
		return "invalid"
	default:
		var preview []byte
		if len(f.Lines) > 0 {
			preview = f.Lines[0].Content
			if len(preview) > 256 {
				preview = preview[:256]
			}
		}
		return "non-json " + wire.Visible(preview, wire.Pictures)
	}
}

// badges draws findings as glyph+code, worst first, as many as fit, then
// +N, in at most w cells.
func (p *framesPane) badges(fs []wire.Finding, w int, plain bool) string {
	sorted := append([]wire.Finding(nil), fs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Severity > sorted[j].Severity })
	var sb strings.Builder
	used := 0
	for i, f := range sorted {
		b := severityGlyph(f.Severity) + wire.VisibleString(f.Code, wire.Pictures)
		bw := ansi.StringWidth(b)
		more := ""
		if i < len(sorted)-1 {
			more = fmt.Sprintf(" +%d", len(sorted)-i-1)
		}
		sep := 0
		if i > 0 {
			sep = 1
		}
		if used+sep+bw+len(more) > w && i > 0 {
			sb.WriteString(fmt.Sprintf(" +%d", len(sorted)-i))
			break
		}
		if i > 0 {
			sb.WriteString(" ")
		}
		if used+sep+bw+len(more) > w { // only the first: the +N stays in the column
			b = truncate(b, max(w-used-sep-len(more), 1))
		}
		if plain {
			sb.WriteString(b)
		} else {
			sb.WriteString(p.c.st.Severity(f.Severity).Render(b))
		}
		used += sep + ansi.StringWidth(b)
	}
	return sb.String()
}

// target names what a tools/call, prompts/get or resources/read request is
// about (params.name or params.uri), made inert, or "". A frame is parsed
// once; rows are drawn many times.
func (p *framesPane) target(ev *eventlog.Event) string {
	m := &ev.Frame.Msg
	if m.Kind != wire.KindRequest || (m.Method != "tools/call" && m.Method != "prompts/get" && m.Method != "resources/read") {
		return ""
	}
	if t, ok := p.targets[ev.Seq]; ok {
		return t
	}
	var req struct {
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	t := ""
	if json.Unmarshal(ev.Frame.Raw(), &req) == nil {
		t = req.Params.Name
		if m.Method == "resources/read" {
			t = req.Params.URI
		}
		t = wire.VisibleString(t, wire.Pictures)
	}
	if p.targets == nil || len(p.targets) >= 4096 {
		p.targets = map[uint64]string{} // bounded: forgotten rows are parsed again
	}
	p.targets[ev.Seq] = t
	return t
}
