package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// A Binding is one key's whole story, after lazygit's: its keys and help
// text, where it applies, why it does nothing right now (if it does not),
// and what it does. The table of bindings ([DefaultKeyMap]) drives dispatch
// ([Model.key]), the help line and the ? screen, and the key table of
// docs/inspector.md ([MarkdownTable]). Whether a key is offered in the help and whether it
// acts are decided by the same function, so the help never offers a key
// that would be refused, and a refused key says why.
type Binding struct {
	key.Binding // keys and help text; enabled from disabled before each render

	// group is the title the binding is listed under in the ? screen and
	// docs/inspector.md ("" = not listed: a key that repeats a listed one in a
	// place of its own, such as ctrl+c in a prompt).
	group string
	// scope is where the binding applies (see [Model.keyScope]).
	scope scope
	// disabled says why the binding does nothing now; nil or "" means it
	// acts. A disabled key pressed shows the reason instead of acting.
	disabled func(m *Model) string
	// desc, when set, gives the help text for the current state.
	desc func(m *Model) string
	// bar, when set, is the shorter text the key bar shows (the ? screen
	// and docs/inspector.md give the whole description).
	bar string
	// run acts on the key.
	run func(m *Model, msg tea.KeyPressMsg) tea.Cmd
}

// why is the reason b does nothing now, "" when it acts.
func (b *Binding) why(m *Model) string {
	if b.disabled == nil {
		return ""
	}
	return b.disabled(m)
}

// matches reports whether msg is one of b's keys, enabled or not (key.Matches
// ignores disabled bindings, and a disabled key must still say why).
func (b *Binding) matches(msg tea.KeyPressMsg) bool {
	return slices.Contains(b.Keys(), msg.String())
}

// scope is a set of the places a key can be pressed in.
type scope uint32

const (
	scopeMain         scope = 1 << iota // the main screen, whichever pane has the focus
	scopeMove                           // the main screen: moves in the focused pane
	scopeFrames                         // the Frames pane has the focus
	scopeInFlight                       // the In flight pane has the focus
	scopeProcess                        // the Process pane has the focus
	scopeComposer                       // the composer has the focus
	scopeFilter                         // the filter prompt is open
	scopeExportFormat                   // the export prompt asks for a format
	scopeExportName                     // the export prompt asks for a file name
	scopeHelp                           // the ? screen is shown
	scopeStderr                         // the stderr & events pane has the focus
	scopeFindings                       // the findings list (F) is open
	scopePage                           // a page (a line opened whole, the messages) is open
	scopePicker                         // the picker (t) is open
	scopeForm                           // a tool's, prompt's or template's form is open
	scopeDraftKept                      // esc just closed the composer, keeping its draft
	scopeDetail                         // the Detail pane has the focus
	scopeDetailSearch                   // the Detail pane has the focus and a search
	scopeSearch                         // the Detail pane's search prompt is open
	scopeFaultKind                      // the fault prompt (!) asks for a kind
	scopeIntercept                      // the intercept prompt (i) is open
	scopeHeld                           // the Frames pane has the focus and its selected frame is held

	scopePanes  = scopeFrames | scopeHeld | scopeDetail | scopeDetailSearch | scopeInFlight | scopeProcess | scopeStderr
	scopeExport = scopeExportFormat | scopeExportName
	scopeTyping = scopeComposer | scopeFilter | scopeIntercept | scopeSearch | scopeExport | scopePicker | scopeForm | scopeFaultKind
)

// keyScope is where a key pressed now lands: a prompt or the composer takes
// keys first, then the ? screen, then the main screen and the focused pane.
func (m *Model) keyScope() scope {
	switch {
	case m.filtering:
		return scopeFilter
	case m.icepting:
		return scopeIntercept
	case m.searching:
		return scopeSearch
	case m.exp.step == exportFormat:
		return scopeExportFormat
	case m.exp.step == exportName:
		return scopeExportName
	case m.faultAsk:
		return scopeFaultKind
	case m.form != nil:
		return scopeForm
	case m.picker.open:
		return scopePicker
	case m.composer.open && m.focus == focusComposer:
		return scopeComposer
	case m.page != nil:
		return scopePage | scopeMove
	case m.flist.open:
		return scopeFindings | scopeMove
	case m.showHelp:
		return scopeHelp | scopeMove
	}
	return scopeMain | scopeMove | m.paneScope() | m.draftScope()
}

// paneScope is the scope of the focused pane's own keys.
func (m *Model) paneScope() scope {
	switch m.focus {
	case focusFrames:
		if _, held := m.selectedHold(); held {
			return scopeFrames | scopeHeld
		}
		return scopeFrames
	case focusDetail:
		if m.detail.search.query != "" {
			return scopeDetail | scopeDetailSearch
		}
		return scopeDetail
	case focusInFlight:
		return scopeInFlight
	case focusProcess:
		return scopeProcess
	case focusStderr:
		return scopeStderr
	}
	return 0
}

// KeyMap is every key binding of the UI, in one table: the named fields are
// for the help line, all lists them in the order of the ? screen.
type KeyMap struct {
	// Main screen.
	FocusNext, FocusPrev, Help, Quit, Filter, NextFinding, PrevFinding *Binding
	Follow, Compose, Shutdown, Restart, CopyRaw, CopyPretty            *Binding
	TabNext, TabPrev, Export, Switch                                   *Binding
	Findings, Zoom, Messages, Theme, Latency, Intercept                *Binding
	// Movement in the focused pane.
	Up, Down, PageUp, PageDown, Top, Bottom *Binding
	// Frames pane; its held frame (intercept.go).
	Resend, EditResend, AnswerFrame *Binding
	ReleaseHeld, EditHeld, DropHeld *Binding
	// Reading a frame (detail_search.go).
	Unfold, PairJump, Search, SearchNext, SearchPrev, ApplySearch, CancelSearch *Binding
	// In-flight pane.
	Cancel, AnswerInFlight, ShowFrame *Binding
	// Process pane.
	Env, ProcessWhole *Binding
	// stderr & events pane.
	OpenEntry *Binding
	// Findings list and pages.
	GotoFinding, CloseFindings, ClosePage *Binding
	// Composer.
	Send, RawMode, NextTemplate, PrevTemplate, Editor, ClearComposer, CloseComposer *Binding
	// Filter and intercept prompts.
	ApplyFilter, CancelFilter, ApplyIntercept, CancelIntercept *Binding
	// Export prompt.
	ExportFormat, WriteExport, CancelExport *Binding
	// Fault prompt (fault.go).
	Fault, FaultKind, CancelFault *Binding
	// The picker, the form, the composer's history (picker_keys.go).
	pickerKeys

	all []*Binding
}

// Why a key does nothing, said when it is pressed.
const (
	whyReadOnly   = "a capture is read-only: there is no server"
	whyExited     = "the server has exited (R restarts it)"
	whyNoFrame    = "no frame is selected"
	whyNoRequest  = "no request in flight is selected"
	whyNoFindings = "no finding in this session"
	whyFollowing  = "already following the newest frames"
	whyNoProcess  = "nothing is known of the process's environment here"
	whyNoOtherTap = "no other live tap to switch to (linesman taps lists them)"
)

// DefaultKeyMap returns the key bindings. Vim keys and arrows both move.
// The order in which the bindings are added is the order of the ? screen
// and of docs/inspector.md.
func DefaultKeyMap() *KeyMap {
	k := &KeyMap{}
	k.addMain()
	k.addPanes()
	k.addReading()
	k.addTyping()
	k.addSeeing()
	k.addFault()
	return k
}

// add appends one binding to the table.
func (k *KeyMap) add(group string, sc scope, keys []string, helpKey, desc string, run func(*Model, tea.KeyPressMsg) tea.Cmd) *Binding {
	b := &Binding{Binding: key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc)), group: group, scope: sc, run: run}
	k.all = append(k.all, b)
	return b
}

func keys(k ...string) []string { return k }

// addMain adds the keys of the main screen, whichever pane has the focus.
func (k *KeyMap) addMain() {
	const main = "Everywhere"
	add := k.add
	k.FocusNext = add(main, scopeMain, keys("tab"), "tab", "next pane", act((*Model).focusNext))
	k.FocusPrev = add(main, scopeMain, keys("shift+tab"), "shift+tab", "previous pane", act((*Model).focusPrev))
	k.Help = add(main, scopeMain, keys("?"), "?", "keys", act((*Model).openHelp))
	k.Quit = add(main, scopeMain, keys("q", "ctrl+c"), "q", "quit (ladder; again: kill)", actCmd((*Model).quit))
	k.Quit.desc = func(m *Model) string {
		if m.live() { // quitting runs the ladder only when there is a server to stop
			return "quit (ladder; again: kill)"
		}
		return "quit"
	}
	k.Filter = add(main, scopeMain, keys("/"), "/", "filter frames", actCmd((*Model).openFilter))
	k.NextFinding = add(main, scopeMain, keys("n"), "n", "next finding", act(func(m *Model) { m.jumpFinding(1) }))
	k.NextFinding.disabled = (*Model).whyNoFindings
	k.PrevFinding = add(main, scopeMain, keys("N"), "N", "previous finding", act(func(m *Model) { m.jumpFinding(-1) }))
	k.PrevFinding.disabled = (*Model).whyNoFindings
	k.Intercept = add(main, scopeMain, keys("i"), "i", "intercept: hold the frames a filter matches", actCmd((*Model).openIntercept))
	k.Intercept.disabled = (*Model).whyNoIntercept
	k.Intercept.bar = "intercept"
	k.Follow = add(main, scopeMain, keys("f"), "f", "follow newest", act((*Model).followNewest))
	k.Follow.disabled = func(m *Model) string { return when(m.frames.follow, whyFollowing) }
	k.Compose = add(main, scopeMain, keys("c"), "c", "compose a request", act((*Model).openComposer))
	k.Compose.disabled = (*Model).whyNotLive
	k.addPickOpen(main)
	k.Shutdown = add(main, scopeMain, keys("S"), "S", "shutdown ladder", actCmd((*Model).shutdown))
	k.Shutdown.disabled = (*Model).whyNotLive
	k.Restart = add(main, scopeMain, keys("R"), "R", "restart server", actCmd((*Model).restart))
	k.Restart.disabled = func(m *Model) string { return when(m.opts.Session == nil, m.whyNotLive()) }
	k.CopyRaw = add(main, scopeMain, keys("y"), "y", "copy frame (raw)", actCmd(func(m *Model) tea.Cmd { return m.copyFrame(false) }))
	k.CopyRaw.disabled = (*Model).whyNoFrame
	k.CopyPretty = add(main, scopeMain, keys("Y"), "Y", "copy frame (pretty)", actCmd(func(m *Model) tea.Cmd { return m.copyFrame(true) }))
	k.CopyPretty.disabled = (*Model).whyNoFrame
	k.TabNext = add(main, scopeMain, keys("]", "right", "l"), "]/→", "next detail tab", act(func(m *Model) { m.moveTab(1) }))
	k.TabPrev = add(main, scopeMain, keys("[", "left", "h"), "[/←", "previous detail tab", act(func(m *Model) { m.moveTab(-1) }))
	k.Export = add(main, scopeMain, keys("X"), "X", "export to a file", actCmd((*Model).startExport))
	k.Switch = add(main, scopeMain, keys("T"), "T", "next live tap", actCmd((*Model).switchSource))
	k.Switch.disabled = func(m *Model) string { return when(m.opts.NextSource == "", whyNoOtherTap) }
	k.Switch.desc = func(m *Model) string {
		if m.opts.NextSource != "" {
			return "switch to " + m.opts.NextSource
		}
		return "next live tap"
	}
}

// addPanes adds the keys that move in the focused pane and those of each
// pane.
func (k *KeyMap) addPanes() {
	const moving = "Moving"
	add := k.add
	k.Up = add(moving, scopeMove, keys("up", "k"), "↑/k", "up", act(func(m *Model) { m.moveFocused(moveUp) }))
	k.Down = add(moving, scopeMove, keys("down", "j"), "↓/j", "down", act(func(m *Model) { m.moveFocused(moveDown) }))
	k.PageUp = add(moving, scopeMove, keys("pgup", "ctrl+b"), "pgup", "page up", act(func(m *Model) { m.moveFocused(movePageUp) }))
	k.PageDown = add(moving, scopeMove, keys("pgdown", "ctrl+f", "space"), "pgdn", "page down", act(func(m *Model) { m.moveFocused(movePageDown) }))
	k.Top = add(moving, scopeMove, keys("home", "g"), "g", "first", act(func(m *Model) { m.moveFocused(moveTop) }))
	k.Bottom = add(moving, scopeMove, keys("G", "end"), "G", "last", act(func(m *Model) { m.moveFocused(moveBottom) }))

	// A held frame's keys come first: on its row, a and e act on the hold.
	k.ReleaseHeld = add("Frames", scopeHeld, keys("a"), "a", "release the held frame as it is", actCmd((*Model).releaseHeld))
	k.ReleaseHeld.disabled = (*Model).whyNotHeld
	k.ReleaseHeld.bar = "release"
	k.EditHeld = add("Frames", scopeHeld, keys("e"), "e", "edit the held frame (ctrl+s releases the edit)", act((*Model).editHeld))
	k.EditHeld.disabled = (*Model).whyNotHeld
	k.EditHeld.bar = "edit held"
	k.DropHeld = add("Frames", scopeHeld, keys("d"), "d", "drop the held frame (a request is answered with an error)", actCmd((*Model).dropHeld))
	k.DropHeld.disabled = (*Model).whyNotHeld
	k.DropHeld.bar = "drop"
	k.Resend = add("Frames", scopeFrames, keys("r"), "r", "resend (a fresh id)", actCmd((*Model).resend))
	k.Resend.disabled = (*Model).whyNoClientFrame
	k.EditResend = add("Frames", scopeFrames, keys("e"), "e", "edit and resend (pretty, a fresh id)", act((*Model).editResend))
	k.EditResend.disabled = (*Model).whyNoClientFrame
	k.addResendAsIs()
	k.AnswerFrame = add("Frames", scopeFrames, keys("a"), "a", "answer server request", act((*Model).answerFrame))
	k.AnswerFrame.disabled = (*Model).whyNoServerRequestFrame
	k.Cancel = add("In flight", scopeInFlight, keys("x"), "x", "cancel request", actCmd((*Model).cancelSelected))
	k.Cancel.disabled = (*Model).whyNoCancel
	k.AnswerInFlight = add("In flight", scopeInFlight, keys("a"), "a", "answer server request", act((*Model).answerInFlight))
	k.AnswerInFlight.disabled = (*Model).whyNoServerRequestInFlight
	k.ShowFrame = add("In flight", scopeInFlight, keys("enter"), "enter", "select its frame", act((*Model).showInFlightFrame))
	k.ShowFrame.disabled = (*Model).whyNoInFlight
	k.Env = add("Process", scopeProcess, keys("E"), "E", "env and cwd", act((*Model).toggleEnv))
	k.Env.disabled = func(m *Model) string { return when(m.process.info == nil, whyNoProcess) }
}

// addReading adds the keys that read one frame: unfold, the pair, the
// search in it and its prompt.
func (k *KeyMap) addReading() {
	const det = "Detail"
	add := k.add
	k.Unfold = add("Everywhere", scopeMain, keys("o"), "o", "unfold _meta and long strings", act((*Model).toggleUnfold))
	k.Unfold.disabled = (*Model).whyNoFolds
	k.Unfold.bar = "unfold"
	k.Unfold.desc = func(m *Model) string {
		return when(m.detail.unfold, "fold _meta and long strings") + when(!m.detail.unfold, "unfold _meta and long strings")
	}
	k.PairJump = add(det, scopeFrames|scopeDetail, keys("x"), "x", "go to the paired request or answer (also in Frames)", act((*Model).gotoPair))
	k.PairJump.disabled = (*Model).whyNoPair
	k.PairJump.bar = "go to pair"
	k.Search = add(det, scopeDetail, keys("/"), "/", "search in the frame", actCmd((*Model).openSearch))
	k.SearchNext = add(det, scopeDetailSearch, keys("n"), "n", "next match", act(func(m *Model) { m.nextMatch(1) }))
	k.SearchNext.disabled = (*Model).whyNoMatches
	k.SearchPrev = add(det, scopeDetailSearch, keys("N"), "N", "previous match", act(func(m *Model) { m.nextMatch(-1) }))
	k.SearchPrev.disabled = (*Model).whyNoMatches
	k.ApplySearch = add("Search prompt", scopeSearch, keys("enter"), "enter", "go to the first match", act((*Model).applySearch))
	k.CancelSearch = add("Search prompt", scopeSearch, keys("esc"), "esc", "clear the search", act((*Model).cancelSearch))
}

// addTyping adds the keys of the composer and the prompts (where other keys
// are typed), and of the ? screen.
func (k *KeyMap) addTyping() {
	add := k.add
	const comp = "Composer"
	k.Send = add(comp, scopeComposer, keys("ctrl+s"), "ctrl+s", "send (id, _meta, jsonrpc filled in; raw mode: as typed)", actCmd(func(m *Model) tea.Cmd { return m.sendComposed(m.composer.raw) }))
	k.Send.desc = func(m *Model) string { return when(m.composer.raw, "send as typed") + when(!m.composer.raw, "send") }
	k.RawMode = add(comp, scopeComposer, keys("ctrl+r"), "ctrl+r", "raw mode on/off (send the bytes as typed, unchecked)", act((*Model).toggleRaw))
	k.RawMode.desc = func(m *Model) string {
		return when(m.composer.raw, "complete mode") + when(!m.composer.raw, "raw mode")
	}
	k.NextTemplate = add(comp, scopeComposer, keys("ctrl+t"), "ctrl+t", "next template", act(func(m *Model) { m.cycleTemplate(1) }))
	k.PrevTemplate = add(comp, scopeComposer, keys("ctrl+y"), "ctrl+y", "previous template", act(func(m *Model) { m.cycleTemplate(-1) }))
	k.Editor = add(comp, scopeComposer, keys("ctrl+o"), "ctrl+o", "edit in $EDITOR", actCmd((*Model).editInEditor))
	k.ClearComposer = add(comp, scopeComposer, keys("ctrl+x"), "ctrl+x", "clear (write from scratch)", act((*Model).clearComposer))
	k.CloseComposer = add(comp, scopeComposer, keys("esc"), "esc", "close composer (the draft stays)", act((*Model).closeComposer))
	k.addHistory(comp)
	// tab leaves the composer (the draft stays); it never inserts a tab.
	add("", scopeComposer, keys("tab"), "tab", "next pane", act((*Model).focusNext))
	add("", scopeComposer, keys("shift+tab"), "shift+tab", "previous pane", act((*Model).focusPrev))

	k.ApplyFilter = add("Filter prompt", scopeFilter, keys("enter"), "enter", "apply filter", act((*Model).applyFilter))
	k.CancelFilter = add("Filter prompt", scopeFilter, keys("esc"), "esc", "clear filter", act((*Model).cancelFilter))
	k.ApplyIntercept = add("Intercept", scopeIntercept, keys("enter"), "enter", "hold what the filter matches (empty: intercept off)", act((*Model).applyIntercept))
	k.CancelIntercept = add("Intercept", scopeIntercept, keys("esc"), "esc", "cancel (the filter armed stays)", act((*Model).cancelIntercept))

	k.ExportFormat = add("Export prompt", scopeExportFormat, keys("r", "f", "t", "l", "o"), "r/f/t/l/o", "replay, findings, transcript, latency, OTLP", (*Model).exportChooseKey)
	k.WriteExport = add("Export prompt", scopeExportName, keys("enter"), "enter", "write file", actCmd((*Model).writeExportFile))
	k.CancelExport = add("Export prompt", scopeExport, keys("esc"), "esc", "cancel", act((*Model).cancelExport))
	k.addPicker()

	// ctrl+c quits from a prompt or the composer too (listed under Quit).
	add("", scopeTyping, keys("ctrl+c"), "ctrl+c", "quit", actCmd(func(m *Model) tea.Cmd {
		m.exp, m.faultAsk = exportPrompt{}, false
		return m.quit()
	}))
	// The ? screen: the keys that opened it (and esc, q) close it; the
	// movement keys scroll it (see [Model.moveOverlay]).
	add("", scopeHelp, keys("?", "esc", "q", "ctrl+c"), "?", "close the help", act((*Model).closeHelp))
}

// addSeeing adds the keys that show things whole: the findings list, zoom,
// a line opened whole and the message log (see findings.go, zoom.go).
func (k *KeyMap) addSeeing() {
	add := k.add
	const main = "Everywhere"
	k.Findings = add(main, scopeMain, keys("F"), "F", "all findings", act((*Model).openFindings))
	k.Findings.disabled = (*Model).whyNoFindings
	k.Zoom = add(main, scopeMain, keys("z"), "z", "zoom pane (wraps)", act((*Model).toggleZoom))
	k.Zoom.desc = func(m *Model) string { return when(m.zoomed, "all panes") + when(!m.zoomed, "zoom pane (wraps)") }
	k.Messages = add(main, scopeMain, keys("M"), "M", "message log", act((*Model).openMessageLog))
	k.Theme = add(main, scopeMain, keys("C"), "C", "next theme (auto, dark, high-contrast, light, none)", act((*Model).cycleTheme))
	k.Theme.disabled = func(m *Model) string { return when(m.opts.NoColor, "NO_COLOR is set: the colourless theme stays") }
	k.Latency = add(main, scopeMain, keys("L"), "L", "latency per method and tool", act((*Model).openLatency))
	k.OpenEntry = add("stderr & events", scopeStderr, keys("enter"), "enter", "open the line whole", act((*Model).openEntry))
	k.OpenEntry.disabled = func(m *Model) string { return when(m.stderr.selected() == 0, "no line is selected") }
	k.ProcessWhole = add("Process", scopeProcess, keys("enter"), "enter", "zoom (wraps)", act((*Model).toggleZoom))
	k.GotoFinding = add("Findings list", scopeFindings, keys("enter"), "enter", "go to the finding", act((*Model).gotoSelectedFinding))
	k.CloseFindings = add("Findings list", scopeFindings, keys("esc", "F", "q"), "esc", "close", act((*Model).closeFindings))
	add("", scopeFindings, keys("ctrl+c"), "ctrl+c", "quit", actCmd((*Model).quit))
	k.ClosePage = add("Page", scopePage, keys("esc", "q", "enter"), "esc", "close", act((*Model).closePage))
	add("", scopePage, keys("ctrl+c"), "ctrl+c", "quit", actCmd((*Model).quit))
}

// act and actCmd adapt handlers to a Binding's run.
func act(f func(*Model)) func(*Model, tea.KeyPressMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyPressMsg) tea.Cmd { f(m); return nil }
}

func actCmd(f func(*Model) tea.Cmd) func(*Model, tea.KeyPressMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyPressMsg) tea.Cmd { return f(m) }
}

// when returns why if cond holds, else "".
func when(cond bool, why string) string {
	if cond {
		return why
	}
	return ""
}

// key routes a key press through the table: the first binding of the
// current scope whose keys match acts, or says why it does not; a key no
// binding claims goes to the prompt or composer being typed in.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	m.syncKeys()
	if !m.quitRequested {
		m.message = "" // feedback lasts until the next key
	}
	where := m.keyScope()
	m.draftArmed = false // only the key right after the closing esc may clear the draft
	if b := m.c.km.lookup(where, msg); b != nil {
		if why := b.why(m); why != "" {
			m.setMessage(why, true)
			return nil
		}
		return b.run(m, msg)
	}
	if where&scopeMain != 0 {
		if why := m.c.km.elsewhere(msg); why != "" {
			m.setMessage(why, true) // a pane's key pressed in another pane
			return nil
		}
	}
	return m.typed(where, msg)
}

// lookup is the binding of msg in scope where: the focused pane's own
// first (n is the next match in a searched Detail pane, the next finding
// elsewhere), then the table's order.
func (k *KeyMap) lookup(where scope, msg tea.KeyPressMsg) *Binding {
	for _, pass := range [...]scope{scopePanes, ^scopePanes} {
		for _, b := range k.all {
			if b.scope&where&pass != 0 && b.matches(msg) {
				return b
			}
		}
	}
	return nil
}

// elsewhere says where msg acts when it is a key of other panes than the
// focused one ("" when it is not): "x (cancel request) acts in the In
// flight pane: tab to it".
func (k *KeyMap) elsewhere(msg tea.KeyPressMsg) string {
	var found []*Binding
	for _, b := range k.all {
		if b.scope&scopePanes != 0 && b.group != "" && b.matches(msg) {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s (%s) acts in the %s pane: tab to it", msg.String(), found[0].Help().Desc, found[0].group)
	}
	var names []string
	for _, b := range found {
		if !slices.Contains(names, b.group) {
			names = append(names, b.group)
		}
	}
	last := len(names) - 1
	list := strings.Join(names[:last], ", ") + " and " + names[last]
	if last == 0 {
		list = names[0]
	}
	return fmt.Sprintf("%s acts in the %s panes: tab to one", msg.String(), list)
}

// syncKeys enables exactly the bindings that would act now, from the same
// reasons dispatch consults, so the help line never offers what would not
// work. A pane's own keys count as enabled only while that pane has the
// focus (the ? screen lists them all).
func (m *Model) syncKeys() {
	focused := m.paneScope()
	for _, b := range m.c.km.all {
		on := b.why(m) == "" && (b.scope&scopePanes == 0 || b.scope&focused != 0)
		b.SetEnabled(on)
		if b.desc != nil {
			b.SetHelp(b.Help().Key, b.desc(m))
		}
	}
}

// keyGroup is a titled set of bindings, for the full help and the docs.
type keyGroup struct {
	Title    string
	Bindings []*Binding
}

// groups lists the listed bindings by group, the groups in the order of
// their first binding in the table, the bindings in the table's order.
func (k *KeyMap) groups() []keyGroup {
	var out []keyGroup
	at := map[string]int{}
	for _, b := range k.all {
		if b.group == "" {
			continue
		}
		i, ok := at[b.group]
		if !ok {
			i = len(out)
			at[b.group] = i
			out = append(out, keyGroup{Title: b.group})
		}
		out[i].Bindings = append(out[i].Bindings, b)
	}
	return out
}

// MarkdownTable renders every listed binding as a Markdown table (the
// key table of docs/inspector.md is generated from it, and a test keeps the
// two equal).
func MarkdownTable() string {
	k := DefaultKeyMap()
	var sb strings.Builder
	sb.WriteString("| where | keys | action |\n|---|---|---|\n")
	for _, g := range k.groups() {
		for _, b := range g.Bindings {
			keys := make([]string, 0, len(b.Keys()))
			for _, s := range b.Keys() {
				keys = append(keys, "`"+s+"`")
			}
			fmt.Fprintf(&sb, "| %s | %s | %s |\n", g.Title, strings.Join(keys, " "), b.Help().Desc)
		}
	}
	return sb.String()
}
