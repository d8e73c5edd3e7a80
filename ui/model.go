package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/capture"
	"linesman/session"
	"linesman/themes"
	"linesman/wire"
)

// Server is the live session the UI drives. *session.Session satisfies it.
// The UI also uses, when the value has them, NextID, Cancel, Era,
// ProtocolVersion and ServerInfo (see the optional interfaces below), so it
// works with sessions that do not do the JSON-RPC bookkeeping.
type Server interface {
	Send(raw []byte) error
	Shutdown()
	Kill()
	Restart() error
	Done() <-chan struct{}
}

type (
	idMinter   interface{ NextID() wire.ID }
	canceller  interface{ Cancel(id wire.ID) error }
	handshaker interface {
		Handshake(ctx context.Context) error
	}
	eraTeller interface {
		Era() session.Era
		ProtocolVersion() string
	}
)

// Options configure the UI.
type Options struct {
	Log     *session.Log
	Tracker *session.Tracker // nil: requests are paired by the UI itself
	// Session is the live server; nil means read-only (a capture): no
	// composer and no process control.
	Session Server
	// Theme is a name from themes.Names ("auto" or "" follows the
	// terminal's background). NoColor forces the colourless theme (Run sets
	// it from NO_COLOR).
	Theme   string
	NoColor bool
	Title   string
	// Editor is the command for ctrl+o in the composer ("" = $VISUAL, $EDITOR, vi).
	Editor string
	// ProcessInfo, when set, is called on each tick for what the log does
	// not tell: the command, environment and cwd as the child got them, and
	// bytes waiting to be written.
	ProcessInfo func() (command, env []string, dir string, pending int64)
	// HandshakeAfterRestart makes the handshake again after a restart (R),
	// as the first one was made (in the session's era).
	HandshakeAfterRestart bool
	// Header describes the session in exports (X): the server's command
	// and cwd, the start time. Zero fields are filled from the log (Start)
	// and ProcessInfo (command, cwd).
	Header capture.Header
	// Now is the log clock (nil = Log.Since); tests fix it.
	Now func() time.Duration
	// Program options added by tests (input, output, window size).
	ProgramOptions []tea.ProgramOption
}

// Model is the root Bubble Tea model: it owns the panes, routes keys by
// focus and computes the layout once per resize. All of its state is
// changed in Update, on the program's goroutine.
type Model struct {
	opts Options
	c    *common

	frames   framesPane
	detail   detailPane
	stderr   stderrPane
	inflight inflightPane
	process  processPane
	composer *composer

	focus      focusID
	lastFocus  focusID // where focus returns when the composer closes
	help       help.Model
	showHelp   bool
	helpScroll int // first line of the full help shown
	filtering  bool
	filterIn   textinput.Model
	exp        exportPrompt // the export prompt (X), when open

	message    string // one-line feedback at the bottom ("sent", errors)
	messageBad bool

	quitRequested bool // the first quit started the ladder
	sessionDone   bool

	width, height int
	rects         [numPanes + 1]rect
	wide          bool
	isDark        bool

	sig       <-chan struct{}
	cancelSub func()
	stop      chan struct{}
}

// message types
type (
	logMsg    struct{}
	tickMsg   struct{}
	doneMsg   struct{ done <-chan struct{} }
	resultMsg struct {
		what string
		err  error
	}
	restartedMsg resultMsg
	editorMsg    struct {
		text string
		err  error
	}
)

// NewModel builds the root model. It subscribes to the log; Close (or Run
// returning) unsubscribes.
func NewModel(opts Options) *Model {
	if opts.Log == nil {
		opts.Log = session.NewLog(0)
	}
	if opts.Now == nil {
		opts.Now = opts.Log.Since
	}
	m := &Model{opts: opts, isDark: true, stop: make(chan struct{})}
	m.c = &common{km: DefaultKeyMap(), ix: newIndex(opts.Log), tracker: opts.Tracker}
	m.setTheme()
	m.frames = framesPane{c: m.c, follow: true}
	m.detail = detailPane{c: m.c}
	m.stderr = stderrPane{c: m.c, follow: true}
	m.inflight = inflightPane{c: m.c}
	m.process = processPane{c: m.c}
	m.composer = newComposer(m.c)
	m.help = help.New()
	m.help.Styles = m.c.st.Help
	m.filterIn = textinput.New()
	m.filterIn.SetStyles(m.c.st.TextInput)
	m.filterIn.Prompt = "/"
	m.filterIn.Placeholder = "method:tools/ id:3 dir:s2c kind:error code:* sev:warning text"
	m.sig, m.cancelSub = opts.Log.Subscribe()
	m.refresh()
	m.resize(80, 24)
	return m
}

// Close stops the model's background waits.
func (m *Model) Close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
		m.cancelSub()
	}
}

func (m *Model) setTheme() {
	name := m.opts.Theme
	if m.opts.NoColor {
		name = "none"
	}
	t, err := themes.Get(name, m.isDark)
	if err != nil {
		t, _ = themes.Get("auto", m.isDark)
	}
	st := NewStyles(t, m.isDark)
	m.c.st = st
	if m.composer != nil {
		m.composer.ta.SetStyles(st.Textarea)
		m.help.Styles = st.Help
		m.filterIn.SetStyles(st.TextInput)
	}
}

// Init asks for the background colour and starts the waits.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.waitLog(time.Time{}), tick()}
	if m.opts.Session != nil {
		cmds = append(cmds, m.waitDone())
	}
	return tea.Batch(cmds...)
}

// waitDone waits for the current server process to be done. A restart
// replaces the process (and its Done channel), so the message names the
// channel it waited on and Update ignores a stale one.
func (m *Model) waitDone() tea.Cmd {
	done, stop := m.opts.Session.Done(), m.stop
	return func() tea.Msg {
		select {
		case <-done:
			return doneMsg{done}
		case <-stop:
			return nil
		}
	}
}

// restartHandshakeTimeout bounds the handshake after a restart.
const restartHandshakeTimeout = 30 * time.Second

// minFrameGap bounds how often the log is re-read (and so the screen
// redrawn for it): at most ~30 times a second however fast the server
// writes. Keys are handled in between without waiting.
const minFrameGap = 33 * time.Millisecond

// waitLog waits for the log's coalescing signal, then for the rest of the
// frame gap since the last ingest, and reports. One wait is outstanding at a
// time: Update starts the next after handling the message.
func (m *Model) waitLog(last time.Time) tea.Cmd {
	sig, stop := m.sig, m.stop
	return func() tea.Msg {
		select {
		case <-sig:
		case <-stop:
			return nil
		}
		if d := time.Until(last.Add(minFrameGap)); d > 0 {
			select {
			case <-time.After(d):
			case <-stop:
				return nil
			}
		}
		return logMsg{}
	}
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// refresh reads what changed outside the model: the log, the tracker, the
// live process information.
func (m *Model) refresh() {
	m.c.now = m.opts.Now()
	m.c.ix.ingest()
	m.inflight.refresh()
	if m.opts.ProcessInfo != nil {
		cmd, env, dir, pending := m.opts.ProcessInfo()
		m.process.info = &processInfo{Command: cmd, Env: env, Dir: dir, PendingWrite: pending}
	}
	m.frames.sync()
	m.detail.refresh(m.frames.SelectedSeq())
}

// Update handles one message. It does no I/O: sends, signals and the
// editor run in commands whose results come back as messages.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.setTheme()
		m.detail.key = detailKey{} // rebuild with the new colours
		m.refresh()
		return m, nil
	case logMsg:
		m.refresh()
		return m, m.waitLog(time.Now())
	case tickMsg:
		m.refresh()
		return m, tick()
	case doneMsg:
		if msg.done != m.opts.Session.Done() {
			return m, m.waitDone() // the process that ended was replaced by a restart
		}
		m.sessionDone = true
		m.refresh()
		if m.quitRequested {
			return m, tea.Quit
		}
		return m, nil
	case restartedMsg:
		m.sessionDone = false
		m.refresh()
		m.Update(resultMsg(msg))
		return m, m.waitDone()
	case resultMsg:
		if msg.err != nil {
			m.setMessage(msg.what+": "+wire.VisibleString(msg.err.Error(), wire.Pictures), true)
		} else if msg.what != "" {
			m.setMessage(msg.what, false)
		}
		return m, nil
	case editorMsg:
		if msg.err != nil {
			m.setMessage("editor: "+msg.err.Error(), true)
		} else {
			m.composer.setDraft(msg.text)
			m.composer.confirm = ""
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseClickMsg:
		if !m.showHelp {
			m.click(msg.Mouse())
		}
		return m, nil
	case tea.MouseWheelMsg:
		mo := msg.Mouse()
		d := 3
		if mo.Button == tea.MouseWheelUp {
			d = -3
		}
		m.scrollAt(mo.X, mo.Y, d)
		return m, nil
	}
	if m.composer.open && m.composer.big == "" {
		var cmd tea.Cmd
		m.composer.ta, cmd = m.composer.ta.Update(msg)
		return m, cmd
	}
	if m.filtering {
		var cmd tea.Cmd
		m.filterIn, cmd = m.filterIn.Update(msg)
		return m, cmd
	}
	if m.exp.step == exportName {
		var cmd tea.Cmd
		m.exp.in, cmd = m.exp.in.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m *Model) setMessage(s string, bad bool) { m.message, m.messageBad = s, bad }

// live reports whether there is a server to send to.
func (m *Model) live() bool { return m.opts.Session != nil && !m.sessionDone }

// syncKeys enables exactly the bindings that would do something now, so the
// help line never offers what would not work.
func (m *Model) syncKeys() {
	k := m.c.km
	live := m.live()
	sel, selOK := m.selectedEvent()
	client := selOK && sel.Dir == wire.ClientToServer
	serverReq := selOK && sel.Dir == wire.ServerToClient && sel.Frame.Msg.Kind == wire.KindRequest
	if m.focus == focusInFlight {
		r, ok := m.inflight.selected()
		serverReq = ok && r.Dir == wire.ServerToClient
	}
	_, inflightOK := m.inflight.selected()

	// Quitting runs the ladder only when there is a server to stop.
	if live {
		k.Quit.SetHelp("q", "quit (ladder; again: kill)")
	} else {
		k.Quit.SetHelp("q", "quit")
	}
	k.Compose.SetEnabled(live)
	k.Shutdown.SetEnabled(live)
	k.Restart.SetEnabled(m.opts.Session != nil)
	k.Resend.SetEnabled(live && client && m.focus == focusFrames)
	k.EditResend.SetEnabled(live && client && m.focus == focusFrames)
	k.Answer.SetEnabled(live && serverReq && (m.focus == focusFrames || m.focus == focusInFlight))
	k.Cancel.SetEnabled(live && m.focus == focusInFlight && inflightOK)
	k.Env.SetEnabled(m.focus == focusProcess && m.process.info != nil)
	k.CopyRaw.SetEnabled(selOK)
	k.CopyPretty.SetEnabled(selOK)
	k.NextFinding.SetEnabled(len(m.c.ix.flagged) > 0)
	k.PrevFinding.SetEnabled(len(m.c.ix.flagged) > 0)
	k.Follow.SetEnabled(!m.frames.follow)
	k.TabNext.SetEnabled(true)
	k.TabPrev.SetEnabled(true)
	k.ShowFrame.SetEnabled(m.focus == focusInFlight && inflightOK)
}

func (m *Model) selectedEvent() (session.Event, bool) {
	seq := m.frames.SelectedSeq()
	if seq == 0 {
		return session.Event{}, false
	}
	ev, ok := m.c.ix.log.Get(seq)
	return ev, ok && ev.Frame != nil
}

// key routes a key press: the filter prompt and the composer take keys
// first; then global keys; then the focused pane.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.km
	m.syncKeys()
	if !m.quitRequested {
		m.message = "" // feedback lasts until the next key
	}
	if m.filtering {
		return m.filterKey(msg)
	}
	if m.exp.step != exportOff {
		return m.exportKey(msg)
	}
	if m.composer.open && m.focus == focusComposer {
		return m.composerKey(msg)
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Help) || msg.String() == "esc" || key.Matches(msg, k.Quit):
			m.showHelp = false
			m.help.ShowAll = false
		case key.Matches(msg, k.Down), key.Matches(msg, k.PageDown):
			m.helpScroll++
		case key.Matches(msg, k.Up), key.Matches(msg, k.PageUp):
			m.helpScroll = max(0, m.helpScroll-1)
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		m.help.ShowAll = m.showHelp
		m.helpScroll = 0
		return nil
	case key.Matches(msg, k.FocusNext):
		m.cycleFocus(1)
		return nil
	case key.Matches(msg, k.FocusPrev):
		m.cycleFocus(-1)
		return nil
	case key.Matches(msg, k.Filter):
		m.filtering = true
		if m.c.ix.filt != nil {
			m.filterIn.SetValue(m.c.ix.filt.src)
		}
		m.filterIn.CursorEnd()
		return m.filterIn.Focus()
	case key.Matches(msg, k.NextFinding):
		m.jumpFinding(1)
		return nil
	case key.Matches(msg, k.PrevFinding):
		m.jumpFinding(-1)
		return nil
	case key.Matches(msg, k.Follow):
		m.frames.follow = true
		m.stderr.follow = true
		m.refresh()
		return nil
	case key.Matches(msg, k.Compose):
		m.openComposer()
		return nil
	case key.Matches(msg, k.Shutdown):
		s := m.opts.Session
		m.setMessage("shutdown ladder started: stdin closed, then SIGTERM, then SIGKILL", false)
		return func() tea.Msg { s.Shutdown(); return nil }
	case key.Matches(msg, k.Restart):
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
	case key.Matches(msg, k.CopyRaw), key.Matches(msg, k.CopyPretty):
		return m.copyFrame(key.Matches(msg, k.CopyPretty))
	case key.Matches(msg, k.TabNext):
		m.detail.setTab(m.detail.tab + 1)
		m.refresh()
		return nil
	case key.Matches(msg, k.TabPrev):
		m.detail.setTab(m.detail.tab - 1)
		m.refresh()
		return nil
	case key.Matches(msg, k.Export):
		return m.startExport()
	}
	return m.paneKey(msg)
}

func (m *Model) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.km
	page := 0
	switch m.focus {
	case focusFrames:
		page = max(m.frames.rows()-1, 1)
	default:
		page = 5
	}
	delta := 0
	switch {
	case key.Matches(msg, k.Up):
		delta = -1
	case key.Matches(msg, k.Down):
		delta = 1
	case key.Matches(msg, k.PageUp):
		delta = -page
	case key.Matches(msg, k.PageDown):
		delta = page
	case key.Matches(msg, k.Top):
		delta = -1 << 30
	case key.Matches(msg, k.Bottom):
		delta = 1 << 30
	}
	switch m.focus {
	case focusFrames:
		switch {
		case delta != 0:
			if delta == 1<<30 {
				m.frames.follow = true
				m.frames.sync()
			} else if delta == -1<<30 {
				m.frames.top0()
			} else {
				m.frames.move(delta)
			}
			m.refresh()
		case key.Matches(msg, k.Resend):
			return m.resend()
		case key.Matches(msg, k.EditResend):
			if ev, ok := m.selectedEvent(); ok {
				m.composer.openText(fmt.Sprintf("edit of frame #%d", ev.Seq), string(frameText(ev.Frame)))
				m.focusComposer()
			}
		case key.Matches(msg, k.Answer):
			if ev, ok := m.selectedEvent(); ok {
				m.composer.openWith([]template{answerTemplate(ev.Frame.Msg.ID, ev.Frame.Msg.Method)}, 0)
				m.focusComposer()
			}
		}
	case focusDetail:
		if delta != 0 {
			m.detail.scrollBy(delta)
		}
	case focusStderr:
		if delta != 0 {
			m.stderr.scrollBy(delta)
		}
	case focusInFlight:
		switch {
		case delta != 0:
			m.inflight.move(delta)
		case key.Matches(msg, k.Cancel):
			return m.cancelSelected()
		case key.Matches(msg, k.Answer):
			if r, ok := m.inflight.selected(); ok {
				m.composer.openWith([]template{answerTemplate(r.ID, r.Method)}, 0)
				m.focusComposer()
			}
		case key.Matches(msg, k.ShowFrame):
			if r, ok := m.inflight.selected(); ok {
				m.frames.selectSeq(r.Seq)
				m.refresh()
			}
		}
	case focusProcess:
		switch {
		case key.Matches(msg, k.Env):
			m.process.showEnv = !m.process.showEnv
			m.process.scroll = 0
		case delta != 0 && m.process.showEnv:
			m.process.scroll = max(0, m.process.scroll+delta)
		}
	}
	return nil
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

func (m *Model) focusComposer() {
	if m.focus != focusComposer {
		m.lastFocus = m.focus
	}
	m.focus = focusComposer
	m.composer.ta.Focus()
}

func (m *Model) jumpFinding(d int) {
	fl := m.c.ix.flagged
	if len(fl) == 0 {
		return
	}
	cur := m.frames.SelectedSeq()
	var target uint64
	if d > 0 {
		for _, s := range fl { // flagged is sorted; a binary search would do, but n/N is rare
			if s > cur {
				target = s
				break
			}
		}
		if target == 0 {
			target = fl[0] // wrap
		}
	} else {
		for i := len(fl) - 1; i >= 0; i-- {
			if fl[i] < cur {
				target = fl[i]
				break
			}
		}
		if target == 0 {
			target = fl[len(fl)-1]
		}
	}
	if m.c.ix.filt != nil {
		// A flagged frame hidden by the filter: clear the filter so it shows.
		if ev, ok := m.c.ix.log.Get(target); ok && !m.c.ix.filt.match(&ev, m.c.ix) {
			m.c.ix.setFilter(nil)
			m.setMessage("filter cleared to show the finding", false)
		}
	}
	m.frames.selectSeq(target)
	m.detail.setTab(tabFindings)
	m.refresh()
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.km
	switch {
	case msg.String() == "ctrl+c":
		return m.quit()
	case key.Matches(msg, k.ApplyFilter):
		f, err := parseFilter(m.filterIn.Value())
		if err != nil {
			m.setMessage("filter: "+err.Error(), true)
			return nil
		}
		m.filtering = false
		m.filterIn.Blur()
		sel := m.frames.SelectedSeq()
		m.c.ix.setFilter(f)
		m.frames.selSeq = sel
		m.setMessage("", false)
		m.refresh()
		return nil
	case key.Matches(msg, k.CancelFilter):
		m.filtering = false
		m.filterIn.Blur()
		m.filterIn.SetValue("")
		if m.c.ix.filt != nil {
			sel := m.frames.SelectedSeq()
			m.c.ix.setFilter(nil)
			m.frames.selSeq = sel
			m.refresh()
		}
		return nil
	}
	if m.messageBad {
		m.setMessage("", false) // editing again: the prompt replaces the error
	}
	var cmd tea.Cmd
	m.filterIn, cmd = m.filterIn.Update(msg)
	return cmd
}

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
	c := templateCtx{era: ix.hs.Era, version: ix.hs.ProtocolVersion, tools: ix.tools}
	if et, ok := m.opts.Session.(eraTeller); ok && et.Era() != session.EraUnknown {
		c.era, c.version = et.Era(), et.ProtocolVersion()
	}
	c.id = fmt.Sprint(ix.nextFreeID())
	if mi, ok := m.opts.Session.(idMinter); ok {
		if id := mi.NextID(); id.IsValid() {
			c.id = id.String()
			if id.Kind == wire.IDInt && id.Num < ix.nextFreeID() {
				c.id = fmt.Sprint(ix.nextFreeID())
			}
		}
	}
	if r, ok := m.inflight.selected(); ok && r.Dir == wire.ClientToServer {
		c.cancelID = r.ID.String()
	}
	return c
}

func (m *Model) openComposer() {
	if !m.live() {
		return
	}
	if !m.composer.open {
		m.composer.openWith(templates(m.templateContext()), 0)
	}
	m.focusComposer()
}

func (m *Model) composerKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.km
	p := m.composer
	switch {
	case key.Matches(msg, k.CloseComposer):
		p.close()
		m.focus = m.lastFocus
		return nil
	case key.Matches(msg, k.FocusNext):
		// tab leaves the composer (the draft stays); it never inserts a tab.
		m.cycleFocus(1)
		return nil
	case key.Matches(msg, k.FocusPrev):
		m.cycleFocus(-1)
		return nil
	case key.Matches(msg, k.NextTemplate):
		// Refresh the templates: the id and the tools may have changed.
		idx := p.tmplIdx
		p.tmpls = templates(m.templateContext())
		p.tmplIdx = idx
		p.cycle(1)
		return nil
	case key.Matches(msg, k.PrevTemplate):
		idx := p.tmplIdx
		p.tmpls = templates(m.templateContext())
		p.tmplIdx = idx
		p.cycle(-1)
		return nil
	case key.Matches(msg, k.Send):
		return m.sendComposed(false)
	case key.Matches(msg, k.SendRaw):
		return m.sendComposed(true)
	case key.Matches(msg, k.Editor):
		return m.editInEditor()
	case key.Matches(msg, k.ClearComposer):
		p.big = ""
		p.ta.Reset()
		p.title, p.status, p.confirm = "by hand", "", ""
		return nil
	case msg.String() == "ctrl+c":
		return m.quit()
	}
	if p.big != "" {
		return nil // a big draft is not edited here (see composerMaxEdit)
	}
	var cmd tea.Cmd
	p.ta, cmd = p.ta.Update(msg)
	return cmd
}

// sendComposed checks and sends the composer's text. raw sends the text as
// typed (plus a newline if it has none), unchecked, to show a server bad
// framing on purpose.
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
			p.status, p.statusBad = "✖ "+err.Error()+" — fix it, or ctrl+r sends the bytes raw", true
			return nil
		}
		if c.isReq && p.confirm != text {
			if w := reuseWarning(m.c.ix, m.inflight.reqs, m.templateContext().era, c.id); w != "" {
				p.status, p.statusBad, p.confirm = w, false, text
				return nil
			}
		}
		out = c.bytes
	}
	p.status, p.statusBad, p.confirm = "", false, ""
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

func (m *Model) resend() tea.Cmd {
	ev, ok := m.selectedEvent()
	if !ok || ev.Dir != wire.ClientToServer || !m.live() {
		return nil
	}
	raw := ev.Frame.Raw()
	s := m.opts.Session
	seq := ev.Seq
	m.frames.follow = true
	return func() tea.Msg { return resultMsg{fmt.Sprintf("resent frame #%d as is", seq), s.Send(raw)} }
}

func (m *Model) cancelSelected() tea.Cmd {
	r, ok := m.inflight.selected()
	if !ok || !m.live() {
		return nil
	}
	if r.Dir != wire.ClientToServer {
		m.setMessage("only the client's own requests can be cancelled; a: answer it", true)
		return nil
	}
	s := m.opts.Session
	if c, ok := s.(canceller); ok {
		return func() tea.Msg { return resultMsg{"cancelled " + r.ID.String(), c.Cancel(r.ID)} }
	}
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"cancelled by hand"}}`+"\n", r.ID.String())
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
	msg := fmt.Sprintf("copied frame #%d (%s, %s) to the clipboard", ev.Seq, what, humanBytes(int64(len(text))))
	if len(text) > osc52Comfortable {
		// The copy goes through the terminal, which may drop it silently.
		msg = fmt.Sprintf("sent frame #%d (%s, %s) to the terminal's clipboard (OSC 52): many terminals refuse a copy this large", ev.Seq, what, humanBytes(int64(len(text))))
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
