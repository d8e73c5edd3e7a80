package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/session/eventlog"
	"linesman/themes"
	"linesman/wire"
)

// The actions of the key table ([DefaultKeyMap]) and the reasons it gives
// when one cannot act. They run in Update, on the program's goroutine; what
// does I/O is returned as a command.

// selectedEvent is the frame selected in the Frames pane, if any.
func (m *Model) selectedEvent() (eventlog.Event, bool) {
	seq := m.frames.SelectedSeq()
	if seq == 0 {
		return eventlog.Event{}, false
	}
	ev, ok := m.c.ix.log.Get(seq)
	return ev, ok && ev.Frame != nil
}

// cycleFocus moves the focus along the panes on screen: the composer takes
// the detail's place (and, in the compact layout, the side panes' too).
func (m *Model) cycleFocus(d int) {
	order := []focusID{focusFrames, focusDetail, focusInFlight, focusProcess, focusStderr}
	switch {
	case m.composer.open && m.wide:
		order = []focusID{focusFrames, focusComposer, focusInFlight, focusProcess, focusStderr}
	case m.composer.open:
		order = []focusID{focusFrames, focusComposer, focusStderr}
	}
	cur := 0
	for i, f := range order {
		if f == m.focus {
			cur = i
		}
	}
	next := order[(cur+d+len(order))%len(order)]
	if next == focusComposer {
		m.focusComposer()
		return
	}
	m.composer.ta.Blur()
	m.focus = next
}

// focusComposer gives the composer the focus, remembering where it came from.
func (m *Model) focusComposer() {
	if m.focus != focusComposer {
		m.lastFocus = m.focus
	}
	m.focus = focusComposer
	m.composer.ta.Focus()
}

// switchSource ends the program so that the caller opens NextSource.
func (m *Model) switchSource() tea.Cmd {
	m.switching = true
	return tea.Quit
}

// quit leaves at once when there is no server to stop; otherwise the first
// quit starts the ladder (the UI leaves when the server is done) and the
// second kills the group.
func (m *Model) quit() tea.Cmd {
	s := m.opts.Session
	if s == nil || m.sessionDone {
		return tea.Quit
	}
	if m.quitRequested {
		s.Kill()
		return tea.Quit
	}
	m.quitRequested = true
	m.setMessage("quitting: shutdown ladder under way (q again kills the server)", false)
	return func() tea.Msg { s.Shutdown(); return nil }
}

// templateContext gathers what the templates need.
func (m *Model) templateContext() templateCtx {
	ix := m.c.ix
	hs := ix.tr.Handshake()
	c := templateCtx{era: hs.Era, version: hs.ProtocolVersion, tools: ix.tools}
	c.id = idJSON(ix.tr.NextID())
	if mi, ok := m.opts.Session.(idMinter); ok {
		if id := mi.NextID(); id.IsValid() {
			c.id = idJSON(id)
		}
	}
	if r, ok := m.inflight.selected(); ok && r.Dir == wire.ClientToServer {
		c.cancelID = idJSON(r.ID)
	}
	return c
}

// openComposer opens the composer on the templates (or on the draft it
// still holds, or kept when esc closed it) and gives it the focus.
func (m *Model) openComposer() {
	switch p := m.composer; {
	case p.kept:
		p.open, p.kept = true, false
		p.status, p.statusBad = "your draft, as you left it (ctrl+x clears it)", false
	case !p.open:
		p.openWith(templates(m.templateContext()), 0)
	}
	m.focusComposer()
}

// sendComposed checks the composer's text and sends it completed (see
// [Model.completed]). raw (the composer's raw mode) sends the text as typed
// (plus a newline if it has none), unchecked and not completed, to show a
// server a bad frame on purpose.
func (m *Model) sendComposed(raw bool) tea.Cmd {
	p := m.composer
	text := p.value()
	var out []byte
	if raw {
		out = []byte(text)
		if !strings.HasSuffix(text, "\n") {
			out = append(out, '\n')
		}
	} else {
		c, err := check(text)
		if err != nil {
			p.say("✖ "+err.Error()+" — fix it, or ctrl+r for raw mode (the bytes as typed)", true)
			return nil
		}
		if c.isReq && p.confirm != text && (p.hold == 0 || p.holdDir == wire.ClientToServer) {
			if w := reuseWarning(m.c.ix, m.inflight.reqs, m.templateContext().era, c.id, "ctrl+s"); w != "" {
				p.say(w, false)
				p.confirm = text
				return nil
			}
		}
		out = c.bytes
		if p.hold == 0 {
			out = m.completed(c.bytes)
		}
	}
	if p.hold != 0 {
		return m.releaseComposed(out, raw)
	}
	p.status, p.statusBad, p.confirm = "", false, ""
	p.hist.add(text, true)
	p.loaded, p.kept = text, false // sent: nothing left to keep
	p.close()
	m.focus = focusFrames
	m.frames.follow = true
	s := m.opts.Session
	what := fmt.Sprintf("sent %s", humanBytes(int64(len(out))))
	if raw {
		what += " raw"
	}
	return func() tea.Msg { return resultMsg{what, s.Send(out)} }
}

// resend sends the selected client frame again: a request with the next
// free id (and the rest byte for byte), anything else as it was (see
// resendAsIs for the same id).
func (m *Model) resend() tea.Cmd {
	ev, _ := m.selectedEvent()
	id := m.templateContext().id
	raw, old, renewed := renewID(ev.Frame.Raw(), id)
	what := fmt.Sprintf("resent frame #%d as is (it has no id of its own to renew)", ev.Seq)
	if renewed {
		what = fmt.Sprintf("resent frame #%d with id %s (was %s; ctrl+r: as is)", ev.Seq, id, old)
	}
	m.composer.hist.add(prettyText(raw), true)
	return m.sendBytes(m.completed(raw), what)
}

// completed completes a frame the user wrote — one line and its line end —
// as linesman send does, by the session's one function for it
// ([session.Session.CompleteRequest]): a request's missing id, the era's
// _meta, "jsonrpc". A server without that bookkeeping gets it as it is.
func (m *Model) completed(frame []byte) []byte {
	c, ok := m.opts.Session.(completer)
	if !ok {
		return frame
	}
	line := bytes.TrimSuffix(frame, []byte("\n"))
	return append(bytes.Clone(c.CompleteRequest(line)), '\n')
}

// toggleRaw switches the composer between its two modes: complete (ctrl+s
// checks the JSON and fills in what the era requires) and raw (ctrl+s sends
// the bytes as typed), as send and send --raw.
func (m *Model) toggleRaw() {
	p := m.composer
	p.raw = !p.raw
	p.confirm = ""
	if p.raw {
		p.say("raw mode: ctrl+s sends the bytes as typed, unchecked, nothing filled in (ctrl+r: complete mode)", false)
		return
	}
	p.say("complete mode: ctrl+s checks the JSON and fills in the id, _meta and jsonrpc", false)
}

// cancelSelected cancels the client's request selected in the In flight
// pane (whyNoCancel says when it cannot).
func (m *Model) cancelSelected() tea.Cmd {
	r, _ := m.inflight.selected()
	s := m.opts.Session
	if c, ok := s.(canceller); ok {
		return func() tea.Msg { return resultMsg{"cancelled " + r.ID.String(), c.Cancel(r.ID)} }
	}
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"cancelled by hand"}}`+"\n", idJSON(r.ID))
	return func() tea.Msg { return resultMsg{"cancelled " + r.ID.String(), s.Send([]byte(note))} }
}

// copyFrame puts the selected frame on the clipboard through the terminal
// (OSC 52).
func (m *Model) copyFrame(pretty bool) tea.Cmd {
	ev, ok := m.selectedEvent()
	if !ok {
		return nil
	}
	text := string(ev.Frame.Raw())
	what := "raw"
	if pretty {
		what = "pretty"
		if lines, _ := prettyJSON(NewStyles(themes.None(), true), frameText(ev.Frame), 1<<20); len(lines) > 0 && ev.Frame.Msg.Kind != wire.KindNonJSON {
			text = ansi.Strip(strings.Join(lines, "\n")) + "\n"
		}
	}
	// A terminal never confirms an OSC 52 copy, and many refuse it (tmux
	// passes it on only with set-clipboard on): say what was done, not
	// what may have happened.
	msg := fmt.Sprintf("sent frame #%d (%s, %s) to the terminal via OSC 52; no copy? the terminal refused it (tmux: set -g set-clipboard on)", ev.Seq, what, humanBytes(int64(len(text))))
	if len(text) > osc52Comfortable {
		msg = fmt.Sprintf("sent frame #%d (%s, %s) to the terminal via OSC 52: many terminals refuse a copy this large", ev.Seq, what, humanBytes(int64(len(text))))
	}
	m.setMessage(msg, false)
	return tea.SetClipboard(text)
}

// osc52Comfortable is about the largest copy terminals commonly accept
// through OSC 52 (several cap it near 100 KB); above it, y says so.
const osc52Comfortable = 100_000

// editInEditor suspends the UI and edits the draft in $EDITOR.
func (m *Model) editInEditor() tea.Cmd {
	editor := m.opts.Editor
	if editor == "" {
		editor = os.Getenv("VISUAL")
	}
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	text := m.composer.value()
	return func() tea.Msg {
		f, err := os.CreateTemp("", "linesman-*.json")
		if err != nil {
			return editorMsg{err: err}
		}
		path := f.Name()
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return editorMsg{err: err}
		}
		args := strings.Fields(editor)
		cmd := exec.Command(args[0], append(args[1:], path)...)
		return tea.ExecProcess(cmd, func(err error) tea.Msg {
			defer os.Remove(path)
			if err != nil {
				return editorMsg{err: err}
			}
			b, err := os.ReadFile(path)
			return editorMsg{text: strings.TrimRight(string(b), "\n"), err: err}
		})()
	}
}

// Why a key does nothing now ("" = it acts); see [Binding].

func (m *Model) whyNotLive() string {
	switch {
	case m.opts.Session == nil && m.opts.ReadOnly != "":
		return m.opts.ReadOnly
	case m.opts.Session == nil:
		return whyReadOnly
	case m.sessionDone:
		return whyExited
	}
	return ""
}

func (m *Model) whyNoFrame() string {
	_, ok := m.selectedEvent()
	return when(!ok, whyNoFrame)
}

func (m *Model) whyNoFindings() string {
	return when(len(m.c.ix.flagged)+len(m.c.ix.found.loose) == 0, whyNoFindings)
}

func (m *Model) whyNoInFlight() string {
	_, ok := m.inflight.selected()
	return when(!ok, whyNoRequest)
}

func (m *Model) whyNoClientFrame() string {
	if why := m.whyNotLive(); why != "" {
		return why
	}
	ev, ok := m.selectedEvent()
	switch {
	case !ok:
		return whyNoFrame
	case ev.Dir != wire.ClientToServer:
		return "only a frame the client sent can be sent again"
	}
	return ""
}

func (m *Model) whyNoServerRequestFrame() string {
	if why := m.whyNotLive(); why != "" {
		return why
	}
	ev, ok := m.selectedEvent()
	switch {
	case !ok:
		return whyNoFrame
	case ev.Dir != wire.ServerToClient || ev.Frame.Msg.Kind != wire.KindRequest:
		return "the selected frame is not a request from the server"
	}
	return ""
}

func (m *Model) whyNoCancel() string {
	return m.whyNoInFlightFrom(wire.ClientToServer, "only the client's own requests can be cancelled; a: answer it")
}

func (m *Model) whyNoServerRequestInFlight() string {
	return m.whyNoInFlightFrom(wire.ServerToClient, "the selected request is the client's own; x: cancel it")
}

// whyNoInFlightFrom says why the selected in-flight request is not one sent in
// direction want (wrongDir when it goes the other way), or "" when it is.
func (m *Model) whyNoInFlightFrom(want wire.Dir, wrongDir string) string {
	if why := m.whyNotLive(); why != "" {
		return why
	}
	r, ok := m.inflight.selected()
	switch {
	case !ok:
		return whyNoRequest
	case r.Dir != want:
		return wrongDir
	}
	return ""
}

// The handlers of the key table (see [DefaultKeyMap]).

func (m *Model) focusNext() { m.cycleFocus(1) }
func (m *Model) focusPrev() { m.cycleFocus(-1) }

func (m *Model) openHelp() {
	m.showHelp, m.help.ShowAll, m.helpScroll = true, true, 0
}

func (m *Model) closeHelp() {
	m.showHelp, m.help.ShowAll = false, false
}

func (m *Model) followNewest() {
	m.frames.follow = true
	m.stderr.follow = true
	m.refresh()
}

func (m *Model) shutdown() tea.Cmd {
	s := m.opts.Session
	m.setMessage("shutdown ladder started: stdin closed, then SIGTERM, then SIGKILL", false)
	return func() tea.Msg { s.Shutdown(); return nil }
}

// restart runs the ladder and starts a fresh process, then makes the
// handshake again when asked to (Options.HandshakeAfterRestart).
func (m *Model) restart() tea.Cmd {
	s := m.opts.Session
	m.setMessage("restarting: shutdown ladder, then a fresh process", false)
	handshake := m.opts.HandshakeAfterRestart
	return func() tea.Msg {
		if err := s.Restart(); err != nil {
			return restartedMsg{"restart", err}
		}
		if h, ok := s.(handshaker); ok && handshake {
			ctx, cancel := context.WithTimeout(context.Background(), restartHandshakeTimeout)
			defer cancel()
			if err := h.Handshake(ctx); err != nil {
				// err says "handshake failed: ..." itself.
				return restartedMsg{"restarted", err}
			}
		}
		return restartedMsg{"restarted", nil}
	}
}

func (m *Model) moveTab(d int) {
	m.detail.setTab(m.detail.tab + d)
	m.refresh()
}

// movement is what a movement key asks of the focused pane.
type movement int

const (
	moveUp movement = iota
	moveDown
	movePageUp
	movePageDown
	moveTop
	moveBottom
)

// moveFocused moves the selection or scrolls the focused pane.
func (m *Model) moveFocused(mv movement) {
	if m.moveOverlay(mv) {
		return
	}
	page := 5
	if m.focus == focusFrames {
		page = max(m.frames.rows()-1, 1)
	}
	delta := [...]int{moveUp: -1, moveDown: 1, movePageUp: -page, movePageDown: page, moveTop: -1 << 30, moveBottom: 1 << 30}[mv]
	switch m.focus {
	case focusFrames:
		switch mv {
		case moveBottom:
			m.frames.follow = true
			m.frames.sync()
		case moveTop:
			m.frames.top0()
		default:
			m.frames.move(delta)
		}
		m.refresh()
	case focusDetail:
		m.detail.scrollBy(delta)
	case focusStderr:
		m.stderr.scrollBy(delta)
	case focusInFlight:
		m.inflight.move(delta)
	case focusProcess:
		if m.process.showEnv {
			m.process.scroll = max(0, m.process.scroll+delta)
		}
	}
}

// editResend opens the selected client frame in the composer, pretty
// printed, a request with the next free id.
func (m *Model) editResend() {
	ev, _ := m.selectedEvent()
	text, old, renewed := renewID(frameText(ev.Frame), m.templateContext().id)
	title := fmt.Sprintf("edit of frame #%d", ev.Seq)
	if renewed {
		title += " (fresh id; was " + old + ")"
	}
	m.composer.openText(title, prettyText(text))
	m.focusComposer()
}

func (m *Model) answerFrame() {
	ev, _ := m.selectedEvent()
	m.composer.openWith([]template{answerTemplate(ev.Frame.Msg.ID, ev.Frame.Msg.Method)}, 0)
	m.focusComposer()
}

func (m *Model) answerInFlight() {
	r, _ := m.inflight.selected()
	m.composer.openWith([]template{answerTemplate(r.ID, r.Method)}, 0)
	m.focusComposer()
}

func (m *Model) showInFlightFrame() {
	r, _ := m.inflight.selected()
	m.frames.selectSeq(r.Seq)
	m.refresh()
}

func (m *Model) toggleEnv() {
	m.process.showEnv = !m.process.showEnv
	m.process.scroll = 0
}

// cycleTemplate shows the next or previous template, refreshed first: the
// id and the tools may have changed.
func (m *Model) cycleTemplate(d int) {
	p := m.composer
	idx := p.tmplIdx
	p.tmpls = templates(m.templateContext())
	p.tmplIdx = idx
	p.cycle(d)
}

// clearComposer empties the composer to write from scratch; a draft the
// user wrote goes to the history, and the status line says so.
func (m *Model) clearComposer() {
	p := m.composer
	if p.putAside() {
		p.say("draft cleared (↑ brings it back)", false)
	} else {
		p.say("cleared", false)
	}
	p.big, p.loaded, p.base, p.edits = "", "", "", ""
	p.ta.Reset()
	p.title, p.confirm = "by hand", ""
	p.hist.pos = len(p.hist.entries)
}

// closeComposer closes the composer; a draft the user wrote is kept for c
// to reopen, and esc at once again clears it.
func (m *Model) closeComposer() {
	p := m.composer
	p.close()
	m.focus = m.lastFocus
	if p.edited() {
		p.kept, m.draftArmed = true, true
		m.setMessage("draft kept: c reopens it · esc again clears it", false)
	}
}

// typed takes a key no binding claimed: the prompt or the composer being
// typed in gets it; elsewhere it does nothing.
func (m *Model) typed(where scope, msg tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	switch where {
	case scopeComposer:
		if m.composer.big != "" {
			return nil // a big draft is not edited here (see composerMaxEdit)
		}
		m.composer.ta, cmd = m.composer.ta.Update(msg)
		m.composer.retitle()
	case scopeFilter:
		if m.messageBad {
			m.setMessage("", false) // editing again: the prompt replaces the error
		}
		m.filterIn, cmd = m.filterIn.Update(msg)
	case scopeIntercept:
		if m.messageBad {
			m.setMessage("", false)
		}
		m.icptIn, cmd = m.icptIn.Update(msg)
	case scopeSearch:
		m.searchIn, cmd = m.searchIn.Update(msg)
		m.searchTyped()
	case scopeExportName:
		if m.messageBad {
			m.setMessage("", false)
		}
		m.exp.in, cmd = m.exp.in.Update(msg)
	case scopePicker:
		cmd = m.picker.typed(msg)
	case scopeForm:
		cmd = m.form.typed(msg)
	}
	return cmd
}
