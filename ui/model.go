package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"linesman/capture"
	"linesman/session/eventlog"
	"linesman/themes"
	"linesman/wire"
)

// Server is the live session the UI drives. *session.Session satisfies it.
// The UI also uses, when the value has them, NextID, CompleteRequest,
// Cancel, Era, ProtocolVersion and ServerInfo (see the optional interfaces
// below), so it works with sessions that do not do the JSON-RPC
// bookkeeping.
type Server interface {
	Send(raw []byte) error
	Shutdown()
	Kill()
	Restart() error
	Done() <-chan struct{}
}

type (
	idMinter   interface{ NextID() wire.ID }
	completer  interface{ CompleteRequest(line []byte) []byte }
	canceller  interface{ Cancel(id wire.ID) error }
	handshaker interface {
		Handshake(ctx context.Context) error
	}
)

// Options configure the UI.
type Options struct {
	Log *eventlog.Log
	// Tracker is the projection of Log (pairing, in flight, handshake);
	// nil: nobody folds Log (a log filled by hand), and the UI runs the
	// fold itself.
	Tracker *eventlog.Tracker
	// Session is the live server; nil means read-only (a capture): no
	// composer and no process control.
	Session Server
	// ReadOnly says why there is no composer when Session is nil ("" = a
	// capture has no server); a followed tap says its host drives it.
	ReadOnly string
	// Controller, with Session nil, intercepts for the session followed
	// (view --follow of a tap started with --intercept): i, a, e and d
	// work through it.
	Controller Controller
	// NextSource, when set, names what the T key switches to (another live
	// tap): T ends Run with ErrSwitch, and the caller opens that one.
	NextSource string
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
	picker   *picker // t: tools, prompts, resources, requests (picker.go)
	form     *form   // the form of the tool, prompt or template picked, when open

	focus      focusID
	lastFocus  focusID // where focus returns when the composer closes
	help       help.Model
	showHelp   bool
	helpScroll int // first line of the full help shown
	filtering  bool
	filterIn   textinput.Model
	icepting   bool            // the intercept prompt (i) is open
	icptIn     textinput.Model // the interception filter typed
	searching  bool            // the Detail pane's search prompt is open
	searchIn   textinput.Model // what to search for in the frame
	exp        exportPrompt    // the export prompt (X), when open
	faultAsk   bool            // the fault prompt (!) is open

	flist     findingsView // the findings list (F), when open
	findAt    uint64       // the place n/N or the list reached last
	findSel   uint64       // the frame selected then (another selection restarts n from it)
	zoomed    bool         // the focused pane fills the screen (z)
	zoomFocus focusID      // the pane zoomed
	page      *pageView    // a line opened whole, or the message log (M)
	msgLog    []string     // the messages shown, for M

	message    string // one-line feedback at the bottom ("sent", errors)
	messageBad bool

	quitRequested bool // the first quit started the ladder
	switching     bool // T: Run returns ErrSwitch
	sessionDone   bool

	draftArmed    bool            // esc just closed the composer keeping a draft: esc again clears it
	resendConfirm uint64          // the frame whose resend as is (ctrl+r) was warned about
	asked         map[string]bool // list requests the picker sent (listMissing)

	width, height int
	rects         [numPanes + 1]rect
	laidOut       paneNeeds // the needs the rects were computed for
	detailRows    int       // the detail's held rows (wide layout; 0: decide afresh)
	remote        *remote   // Options.Controller as the keys' interceptor
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
		opts.Log = eventlog.NewLog(0)
	}
	if opts.Now == nil {
		opts.Now = opts.Log.Since
	}
	m := &Model{opts: opts, isDark: true, stop: make(chan struct{})}
	m.c = &common{km: DefaultKeyMap(), ix: newIndex(opts.Log, opts.Tracker)}
	m.setTheme()
	m.frames = framesPane{c: m.c, follow: true}
	m.detail = detailPane{c: m.c}
	m.stderr = stderrPane{c: m.c, follow: true}
	m.inflight = inflightPane{c: m.c}
	m.process = processPane{c: m.c}
	m.flist = findingsView{c: m.c}
	m.composer = newComposer(m.c)
	m.composer.logf = m.logMessage
	m.picker = newPicker(m.c)
	m.help = help.New()
	m.help.Styles = m.c.st.Help
	m.filterIn = textinput.New()
	m.filterIn.SetStyles(m.c.st.TextInput)
	m.filterIn.Prompt = "/"
	m.filterIn.Placeholder = "method:tools/ id:3 dir:s2c kind:error code:* sev:warning text"
	m.icptIn = textinput.New()
	m.icptIn.SetStyles(m.c.st.TextInput)
	m.icptIn.Prompt = "intercept: "
	m.icptIn.Placeholder = "method:tools/call tool:NAME dir:s2c … (empty: off)"
	m.searchIn = textinput.New()
	m.searchIn.SetStyles(m.c.st.TextInput)
	m.searchIn.Prompt = "search in the frame: "
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
		m.searchIn.SetStyles(st.TextInput)
		m.icptIn.SetStyles(st.TextInput)
		m.picker.in.SetStyles(st.TextInput)
	}
}

// cycleTheme switches to the next theme of themes.Names and says which.
func (m *Model) cycleTheme() {
	names := themes.Names()
	cur := m.opts.Theme
	if cur == "" {
		cur = "auto"
	}
	next := names[0]
	for i, n := range names {
		if n == cur {
			next = names[(i+1)%len(names)]
		}
	}
	m.opts.Theme = next
	m.setTheme()
	m.detail.key = detailKey{} // rebuild with the new colours
	m.setMessage("theme "+next+" (C: the next one; --theme chooses at start)", false)
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
	m.relayout()
	m.frames.sync()
	m.detail.refresh(m.frames.SelectedSeq())
	m.fitDetail()
	m.refreshPicker()
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
			p := m.composer
			p.setDraft(msg.text)
			p.confirm = ""
			if d := describeDraft(msg.text); msg.text != p.base {
				p.title, p.base, p.edits = "from $EDITOR: "+firstNonEmpty(d, "not one JSON object"), msg.text, ""
			}
		}
		return m, nil
	case tea.KeyPressMsg:
		cmd := m.key(msg)
		m.afterKey()
		return m, cmd
	case tea.MouseClickMsg:
		if !m.showHelp && !m.pickerOpen() {
			m.click(msg.Mouse())
		}
		return m, nil
	case tea.MouseWheelMsg:
		mo := msg.Mouse()
		d := 3
		if mo.Button == tea.MouseWheelUp {
			d = -3
		}
		if !m.pickerOpen() {
			m.scrollAt(mo.X, mo.Y, d)
		}
		return m, nil
	}
	return m, m.updateInputs(msg)
}

// updateInputs gives a message that is not a key (a cursor blink, a paste)
// to the text input being typed in, if any.
func (m *Model) updateInputs(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if cmd, ok := m.updatePicker(msg); ok {
		return cmd
	}
	switch {
	case m.composer.open && m.composer.big == "":
		m.composer.ta, cmd = m.composer.ta.Update(msg)
	case m.filtering:
		m.filterIn, cmd = m.filterIn.Update(msg)
	case m.icepting:
		m.icptIn, cmd = m.icptIn.Update(msg)
	case m.searching:
		m.searchIn, cmd = m.searchIn.Update(msg)
	case m.exp.step == exportName:
		m.exp.in, cmd = m.exp.in.Update(msg)
	}
	return cmd
}

func (m *Model) setMessage(s string, bad bool) {
	m.message, m.messageBad = s, bad
	m.logMessage(s, bad)
}

// live reports whether there is a server to send to.
func (m *Model) live() bool { return m.opts.Session != nil && !m.sessionDone }
