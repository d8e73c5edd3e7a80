package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"charm.land/bubbles/v2/textarea"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/wire"
)

// composer is the hand-written message editor: a textarea, the templates
// and the checks made before sending.
type composer struct {
	c       *common
	ta      textarea.Model
	open    bool
	w, h    int
	tmpls   []template
	tmplIdx int
	title   string

	status    string
	statusBad bool
	// confirm holds the text a reused-id warning was shown for: sending the
	// same text again goes ahead.
	confirm string
	// big holds a draft too large for the textarea (composerMaxEdit): it
	// is shown as a preview, sent as is or edited in $EDITOR.
	big string
	// loaded is the text as it was put in (a template, a frame): a draft
	// that differs from it was written by the user, and is not thrown away
	// without a trace (see kept and hist).
	loaded string
	// kept says esc closed the composer on such a draft: c reopens it.
	kept bool
	// hist holds the requests sent and the drafts put aside (history.go).
	hist history
	// raw is the composer's mode (ctrl+r): ctrl+s sends the bytes as
	// typed, unchecked, nothing filled in — send --raw's switch. Otherwise
	// a frame is checked and completed as send completes it.
	raw bool
	// base is the text the title names (a template, a frame, a history
	// entry, what $EDITOR wrote); edits says what the buffer holds once it
	// differs from base ("" while it does not), so the title follows the
	// buffer (retitle).
	base, edits string
	// logf puts a message said in the status line into the message log
	// (M); the root model sets it.
	logf func(s string, bad bool)
	// hold is the held frame the buffer edits (0: a frame to send):
	// ctrl+s releases the edit instead (intercept.go); holdDir is its way.
	hold    uint64
	holdDir wire.Dir
}

// say shows a message in the status line, in full (wrapped), and puts it
// in the message log.
func (p *composer) say(s string, bad bool) {
	p.status, p.statusBad = s, bad
	if p.logf != nil {
		p.logf("composer: "+s, bad)
	}
}

// retitle makes the title follow the buffer: once the text differs from
// the one the title names, the title says what the text now is.
func (p *composer) retitle() {
	v := p.value()
	p.edits = ""
	if v == p.base {
		return
	}
	p.edits = "edited"
	if d := describeDraft(v); d != "" {
		p.edits = d + " (edited)"
	}
}

// describeDraft names what a draft is: a request or notification by its
// method (and tool, prompt or resource), an answer by its id; "" when the
// text is not one JSON object.
func describeDraft(text string) string {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(text), &r) != nil {
		return ""
	}
	switch {
	case r.Method != "":
		return strings.TrimSpace(r.Method + " " + firstNonEmpty(r.Params.Name, r.Params.URI))
	case r.Result != nil || r.Error != nil:
		return "answer to id " + string(r.ID)
	}
	return ""
}

// title is the composer's title: what base is, or what the buffer became.
func (p *composer) shownTitle() string {
	if p.edits != "" {
		return p.edits
	}
	return p.title
}

// composerMaxEdit is the largest draft the textarea edits. Its rendering
// costs grow with the text (about 90 ms a frame at 64 KiB, seconds at a
// few MiB), so a bigger draft (e of a big frame, $EDITOR output) would
// freeze the UI.
const composerMaxEdit = 32 << 10

// setDraft puts text in the composer: in the textarea, or, when it is too
// large to edit there, aside as a big draft.
func (p *composer) setDraft(text string) {
	if len(text) > composerMaxEdit {
		p.big = text
		p.ta.SetValue("")
		return
	}
	p.big = ""
	p.ta.SetValue(text)
}

// value is the draft, wherever it is kept.
func (p *composer) value() string {
	if p.big != "" {
		return p.big
	}
	return p.ta.Value()
}

func newComposer(c *common) *composer {
	ta := textarea.New()
	ta.ShowLineNumbers = true
	ta.Prompt = ""
	ta.CharLimit = 0
	// The line numbers are as wide as MaxHeight's digits: 0 gave one
	// digit, and from line 10 on the text moved a column to the right.
	// The textarea holds at most 10000 lines whatever MaxHeight says.
	ta.MaxHeight = 9999
	ta.MaxWidth = 0
	ta.KeyMap.TransposeCharacterBackward.SetEnabled(false) // ctrl+t is "next template"
	ta.SetStyles(c.st.Textarea)
	return &composer{c: c, ta: ta}
}

func (p *composer) SetSize(w, h int) {
	p.w, p.h = w, h
	p.ta.SetWidth(max(w, 10))
	p.ta.SetHeight(max(h-2, 1))
}

// openWith opens the composer on a template list, showing the one at idx.
// A draft the user wrote goes to the history first (↑ brings it back).
func (p *composer) openWith(ts []template, idx int) {
	p.open, p.kept = true, false
	p.hold = 0
	p.tmpls = ts
	p.tmplIdx = idx
	p.status, p.statusBad, p.confirm = "", false, ""
	if len(ts) > 0 {
		p.load(ts[idx].Name, ts[idx].Text)
	}
	p.ta.Focus()
}

// load puts text in the composer as a fresh start, putting a draft the
// user wrote aside in the history first.
func (p *composer) load(title, text string) {
	p.putAside()
	p.title = title
	p.setDraft(text)
	p.loaded, p.base, p.edits = text, text, ""
	p.hist.pos = len(p.hist.entries)
	p.ta.MoveToBegin() // ↑ from here walks the history; ↓ goes into the text
}

// edited reports whether the draft was written or changed by the user.
func (p *composer) edited() bool {
	v := p.value()
	return v != p.loaded && strings.TrimSpace(v) != ""
}

// putAside keeps a draft the user wrote in the history (not sent), before
// it is replaced or cleared; it reports whether there was one.
func (p *composer) putAside() bool {
	if !p.edited() {
		return false
	}
	if p.hist.walking() && p.value() == p.base {
		// An entry of the history shown as it is: it is there already.
		// The user's own draft, saved while walking, is what to keep.
		d, written := p.hist.draft, p.hist.written
		p.hist.draft, p.hist.written = "", false
		p.hist.pos = len(p.hist.entries)
		if !written || strings.TrimSpace(d) == "" {
			return false
		}
		p.hist.add(d, false)
		return true
	}
	p.hist.add(p.value(), false)
	p.loaded = p.value()
	return true
}

// openText opens the composer on a given text (edit and resend).
func (p *composer) openText(title, text string) {
	p.openWith([]template{{title, text}}, 0)
}

func (p *composer) cycle(d int) {
	if len(p.tmpls) == 0 {
		return
	}
	p.tmplIdx = (p.tmplIdx + d + len(p.tmpls)) % len(p.tmpls)
	p.load(p.tmpls[p.tmplIdx].Name, p.tmpls[p.tmplIdx].Text)
	p.status, p.statusBad, p.confirm = "", false, ""
}

// close closes the composer. A reused id's warning is forgotten: the next
// ctrl+s asks again.
func (p *composer) close() {
	p.open, p.confirm = false, ""
	p.ta.Blur()
}

func (p *composer) Render(focused bool) string {
	st := p.c.st
	extra := wire.VisibleString(p.shownTitle(), wire.Pictures)
	if len(p.tmpls) > 1 && p.edits == "" && p.title == p.tmpls[p.tmplIdx].Name {
		extra += fmt.Sprintf("  (%d/%d)", p.tmplIdx+1, len(p.tmpls)) // where ctrl+t stands
	}
	extra = p.modeTag() + " " + st.Subtle.Render(extra)
	lines := []string{p.c.titleLine(p.w, "Composer", focused, extra)}
	status := p.statusLines() // first: it sizes the textarea
	if p.big != "" {
		lines = append(lines, st.Warning.Render(fmt.Sprintf("a %s draft: too large to edit here. ctrl+s sends it, ctrl+o edits it in $EDITOR, ctrl+x clears it.", humanBytes(int64(len(p.big))))))
		preview := p.big[:min(len(p.big), 4<<10)]
		lines = append(lines, wrapCells(wire.VisibleString(preview, wire.Pictures), p.w)...)
	} else {
		lines = append(lines, strings.Split(p.ta.View(), "\n")...)
	}
	lines = lines[:max(0, min(len(lines), p.h-len(status)))]
	for len(lines) < p.h-len(status) {
		lines = append(lines, "")
	}
	return block(append(lines, status...), p.w, p.h)
}

// statusLines is the composer's bottom: a message in full, wrapped (at
// most half the pane), or the keys of the mode on one line. The textarea
// gives up the rows a long message takes, so the cursor stays in sight.
func (p *composer) statusLines() []string {
	st := p.c.st
	switch {
	case p.status == "" && p.raw:
		p.fitTextarea(1)
		return []string{st.Warning.Render("raw mode: ctrl+s sends the bytes as typed · ctrl+r complete mode · ↑/↓ history · ctrl+o $EDITOR · esc close")}
	case p.status == "":
		p.fitTextarea(1)
		return []string{st.Subtle.Render("ctrl+s send (id, _meta filled in) · ↑/↓ history · ctrl+t/ctrl+y template · ctrl+r raw mode · ctrl+o $EDITOR · esc close")}
	}
	style := st.Warning
	if p.statusBad {
		style = st.Error
	}
	w := max(p.w, 1)
	rows := strings.Split(ansi.Hardwrap(lipgloss.Wrap(wire.VisibleString(p.status, wire.Pictures), w, " "), w, true), "\n")
	rows = rows[:min(len(rows), max(1, (p.h-1)/2))]
	for i, r := range rows {
		rows[i] = style.Render(r)
	}
	p.fitTextarea(len(rows))
	return rows
}

// fitTextarea gives the textarea the rows the title and a status of n
// rows leave.
func (p *composer) fitTextarea(n int) {
	if h := max(p.h-1-n, 1); p.ta.Height() != h {
		p.ta.SetHeight(h)
	}
}

// modeTag names the composer's mode in its title line: what ctrl+s will do.
func (p *composer) modeTag() string {
	if p.raw {
		return p.c.st.Warning.Render("[raw: as typed]")
	}
	return p.c.st.Subtle.Render("[complete]")
}

// checked is the outcome of checking the composer's text before sending.
type checked struct {
	bytes []byte // what to write (compact JSON + "\n")
	id    wire.ID
	isReq bool
}

// syntaxPos turns a byte offset into "line L, column C".
func syntaxPos(text string, off int64) string {
	line, col := 1, 1
	for i := 0; i < len(text) && int64(i) < off-1; i++ {
		if text[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

// check validates text as one JSON value and reads its id. Errors say where.
func check(text string) (checked, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return checked{}, fmt.Errorf("invalid JSON at %s: %v", syntaxPos(text, se.Offset), se)
		}
		if errors.Is(err, io.EOF) {
			return checked{}, errors.New("nothing to send")
		}
		var ue *json.UnmarshalTypeError
		if errors.As(err, &ue) {
			return checked{}, fmt.Errorf("invalid JSON at %s: %v", syntaxPos(text, ue.Offset), err)
		}
		return checked{}, fmt.Errorf("invalid JSON: %v (at %s)", err, syntaxPos(text, dec.InputOffset()))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return checked{}, fmt.Errorf("more than one JSON value: extra text at %s", syntaxPos(text, dec.InputOffset()+1))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		return checked{}, fmt.Errorf("invalid JSON: %v", err)
	}
	buf.WriteByte('\n')
	out := checked{bytes: buf.Bytes()}
	if obj, ok := v.(map[string]any); ok {
		_, hasMethod := obj["method"]
		if raw, ok := obj["id"]; ok {
			switch id := raw.(type) {
			case json.Number:
				if n, err := id.Int64(); err == nil {
					out.id = wire.IntID(n)
				} else {
					out.id = wire.ID{Kind: wire.IDOther, Str: id.String()}
				}
			case string:
				out.id = wire.StringID(id)
			case nil:
				out.id = wire.ID{Kind: wire.IDNull}
			}
			out.isReq = hasMethod
		}
	}
	return out, nil
}

// reuseWarning says whether sending a request with id reuses an id, and
// whether the era forbids it; "" when the id is fresh. again names the key
// that goes ahead anyway; it comes first, so a narrow line never cuts it.
func reuseWarning(x *index, inflight []eventlog.Request, era eventlog.Era, id wire.ID, again string) string {
	if !id.IsValid() {
		return ""
	}
	live := false
	for _, r := range inflight {
		if r.Dir == wire.ClientToServer && r.ID == id {
			live = true
		}
	}
	if x.tr.InFlightWith(wire.ClientToServer, id) {
		live = true
	}
	switch {
	case live:
		return fmt.Sprintf("▲ %s again sends anyway: id %s is still in flight, which both eras forbid", again, id)
	case !x.tr.Used(id):
		return ""
	case era == eventlog.EraModern:
		return fmt.Sprintf("▲ %s again sends anyway: id %s was used before; the modern era allows it once answered, but answers get confusing", again, id)
	default:
		return fmt.Sprintf("▲ %s again sends anyway: id %s was used before; the legacy era forbids reusing an id in a session", again, id)
	}
}
