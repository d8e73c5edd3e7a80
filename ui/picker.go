package ui

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/wire"
)

// The picker (t) lists everything the user can ask the server for — its
// tools, prompts, resources and resource templates, the request templates
// of the composer, and the requests sent earlier — and narrows the list as
// the user types (a fuzzy match: the letters in order, not necessarily
// together). Choosing a tool or a prompt opens a form built from what the
// server declared (form.go); a resource goes straight into resources/read.

// itemKind is what a picker row stands for.
type itemKind int

const (
	itemTool itemKind = iota
	itemPrompt
	itemResource
	itemRTemplate // a resource template (its URI has {variables})
	itemRequest   // a request template of the composer (templates.go)
	itemSent      // a request sent earlier (history.go)
)

var kindNames = [...]string{"tool", "prompt", "resource", "template", "request", "sent"}

// pickItem is one row of the picker. name and detail may be server text:
// they are made inert when drawn.
type pickItem struct {
	kind   itemKind
	name   string
	detail string // title or description, shown after the name
	idx    int    // index into the list the kind comes from
}

// picker is the state of the picker: its filter and the rows it shows.
type picker struct {
	c     *common
	open  bool
	in    textinput.Model
	items []pickItem
	shown []int // indices into items matching the filter, best first
	sel   int   // index into shown
	top   int
	w, h  int
}

func newPicker(c *common) *picker {
	in := textinput.New()
	in.Prompt = "filter ▸ "
	in.Placeholder = "type to narrow: tools, prompts, resources, requests…"
	in.SetStyles(c.st.TextInput)
	return &picker{c: c, in: in}
}

// SetSize sets the picker's area.
func (p *picker) SetSize(w, h int) {
	p.w, p.h = w, h
	p.in.SetWidth(max(w-len(p.in.Prompt)-2, 10))
}

// show opens the picker on items with an empty filter.
func (p *picker) show(items []pickItem) tea.Cmd {
	p.open = true
	p.in.SetValue("")
	p.sel, p.top = 0, 0
	p.setItems(items)
	return p.in.Focus()
}

func (p *picker) close() {
	p.open = false
	p.in.Blur()
}

// setItems replaces the rows (the server's lists may change while the
// picker is open), keeping the selected row when it is still there.
func (p *picker) setItems(items []pickItem) {
	cur, had := p.selected()
	p.items = items
	p.match()
	if !had {
		return
	}
	for i, k := range p.shown {
		if it := p.items[k]; it.kind == cur.kind && it.name == cur.name {
			p.sel = i
			return
		}
	}
}

// selected is the row under the cursor, if any row is shown.
func (p *picker) selected() (pickItem, bool) {
	if p.sel < 0 || p.sel >= len(p.shown) {
		return pickItem{}, false
	}
	return p.items[p.shown[p.sel]], true
}

// match applies the filter: every word of it must match the row (the
// kind, the name or the detail), and rows whose name matches come first.
func (p *picker) match() {
	words := strings.Fields(p.in.Value())
	type scored struct{ i, score int }
	var hits []scored
	for i, it := range p.items {
		total := 0
		for _, w := range words {
			s := max(2*fuzzyScore(w, it.name), fuzzyScore(w, kindNames[it.kind]+" "+it.detail))
			if s < 0 {
				total = -1
				break
			}
			total += s
		}
		if total >= 0 {
			hits = append(hits, scored{i, total})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	p.shown = p.shown[:0]
	for _, h := range hits {
		p.shown = append(p.shown, h.i)
	}
	p.sel = max(0, min(p.sel, len(p.shown)-1))
}

// fuzzyScore scores how well query matches s, ignoring case: -1 when its
// letters are not all in s in order; more for a substring, more still at
// the start or at a word's start, less for letters far apart.
func fuzzyScore(query, s string) int {
	q, t := []rune(strings.ToLower(query)), []rune(strings.ToLower(s))
	if len(q) == 0 {
		return 0
	}
	if i := strings.Index(string(t), string(q)); i >= 0 {
		score := 1000 - len([]rune(string(t)[:i]))
		if i == 0 {
			score += 500
		}
		return score
	}
	score, qi, last := 100, 0, -1
	for i, r := range t {
		if qi == len(q) {
			break
		}
		if r != q[qi] {
			continue
		}
		switch {
		case last == i-1:
			score += 5
		case i == 0 || !unicode.IsLetter(t[i-1]) && !unicode.IsDigit(t[i-1]):
			score += 3
		default:
			score -= i - last
		}
		last = i
		qi++
	}
	if qi < len(q) {
		return -1
	}
	return max(score, 1)
}

// move moves the cursor by d rows, clamped.
func (p *picker) move(d int) {
	p.sel = max(0, min(p.sel+d, len(p.shown)-1))
}

// typed gives a key to the filter and matches again.
func (p *picker) typed(msg tea.KeyPressMsg) tea.Cmd {
	before := p.in.Value()
	var cmd tea.Cmd
	p.in, cmd = p.in.Update(msg)
	if p.in.Value() != before {
		p.sel = 0
		p.match()
	}
	return cmd
}

// pickerDetailLines is how many lines the picker gives to the selected
// row's description.
const pickerDetailLines = 5

// Render draws the picker in w×h cells: title, filter, rows, and the
// selected row's description in full (wrapped), so nothing a row cuts off
// is out of reach.
func (p *picker) Render(counts string, detail []string) string {
	st := p.c.st
	lines := []string{p.c.titleLine(p.w, "Pick", true, st.Subtle.Render(counts)), p.in.View()}
	rows := max(p.h-len(lines)-pickerDetailLines-1, 1)
	if p.sel < p.top {
		p.top = p.sel
	}
	if p.sel >= p.top+rows {
		p.top = p.sel - rows + 1
	}
	p.top = max(0, min(p.top, len(p.shown)-rows))
	for i := p.top; i < p.top+rows; i++ {
		switch {
		case i < len(p.shown):
			lines = append(lines, p.row(p.items[p.shown[i]], i == p.sel))
		case i == 0 && len(p.items) > 0:
			lines = append(lines, st.Subtle.Render("  nothing matches: backspace widens the filter"))
		default:
			lines = append(lines, "")
		}
	}
	lines = append(lines, st.Rule.Render(strings.Repeat("─", max(p.w, 0))))
	for i := range pickerDetailLines {
		if i < len(detail) {
			lines = append(lines, detail[i])
		}
	}
	return block(lines, p.w, p.h)
}

// row draws one item: a cursor mark, its kind, its name and detail.
func (p *picker) row(it pickItem, selected bool) string {
	st := p.c.st
	name := inertLine(it.name)
	s := fmt.Sprintf("%-9s%s", kindNames[it.kind], name)
	if it.detail != "" {
		s += "  " + st.Subtle.Render(inertLine(it.detail))
	}
	if selected {
		return st.Selected.Render(fit("▌ "+ansi.Strip(s), p.w))
	}
	return "  " + s
}

// inertLine is server text made inert and kept to one line (line breaks
// become spaces, since a row is one line; the description shows them).
func inertLine(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
	return wire.VisibleString(s, wire.Pictures)
}

// inertWrapped is server text made inert and wrapped at w cells, its
// paragraphs kept.
func inertWrapped(s string, w int) []string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n") {
		para = strings.TrimRight(para, "\r ")
		out = append(out, strings.Split(ansi.Wrap(wire.VisibleString(para, wire.Pictures), max(w, 1), ""), "\n")...)
	}
	return out
}
