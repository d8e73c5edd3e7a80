package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Interception (i): a filter, in the frame filter's language, arms the
// session's interceptor; a frame that matches is held (the session keeps
// it: session/intercept.go), shown on its row as held, and the row's keys
// release it (a), edit it in the composer (e; ctrl+s releases the edit,
// checked as a frame the composer sends) or drop it (d). What is held is
// the projection's fact ([eventlog.Tracker.Held]); the UI only asks the
// session to act.

// interceptor is what a session offers for interception
// (*session.Session does).
type interceptor interface {
	SetInterceptor(match func(wire.Dir, *wire.Frame) bool, filter string)
	Release(hold uint64, edited []byte) error
	Drop(hold uint64) error
}

// Controller intercepts for a session the UI only follows (a tap started
// with --intercept, followed by view --follow, controls it through its
// socket): the filter goes as its words, to be matched where the frames
// are.
type Controller interface {
	Arm(filter string) error // "" disarms
	Release(hold uint64, edited []byte) error
	Drop(hold uint64) error
}

// InterceptMatcher parses src in the frame filter's language into the
// match an interceptor holds frames with (what i arms), reading tr for a
// frame's request (safe on the session's goroutines). It returns nil for
// an empty filter.
func InterceptMatcher(src string, tr *eventlog.Tracker) (func(wire.Dir, *wire.Frame) bool, error) {
	f, err := parseFilter(src)
	if err != nil || f == nil {
		return nil, err
	}
	return func(dir wire.Dir, fr *wire.Frame) bool { return f.matchLive(dir, fr, tr) }, nil
}

// remote adapts a Controller to the interceptor the keys use; arming's
// error is kept for the message.
type remote struct {
	Controller
	err error
}

func (r *remote) SetInterceptor(_ func(wire.Dir, *wire.Frame) bool, filter string) {
	r.err = r.Arm(filter)
}

// icepter is the session's interceptor, the followed tap's controller, or
// nil.
func (m *Model) icepter() interceptor {
	if m.opts.Controller != nil {
		if m.remote == nil {
			m.remote = &remote{Controller: m.opts.Controller}
		}
		return m.remote
	}
	ic, _ := m.opts.Session.(interceptor)
	return ic
}

func (m *Model) whyNoIntercept() string {
	if m.opts.Controller != nil {
		return when(m.c.ix.proc.State == eventlog.StateExited, "the tap's server has exited")
	}
	if why := m.whyNotLive(); why != "" {
		return why
	}
	return when(m.icepter() == nil, "this session cannot hold frames")
}

// openIntercept opens the intercept prompt on the filter armed now.
func (m *Model) openIntercept() tea.Cmd {
	m.icepting = true
	m.icptIn.SetValue(m.c.icptFilter)
	m.icptIn.CursorEnd()
	return m.icptIn.Focus()
}

// applyIntercept arms interception with the prompt's filter, or disarms it
// when the prompt is empty.
func (m *Model) applyIntercept() {
	src := m.icptIn.Value()
	f, err := parseFilter(src)
	if err != nil {
		m.setMessage("intercept: "+err.Error(), true)
		return
	}
	m.icepting = false
	m.icptIn.Blur()
	ic := m.icepter()
	if f == nil {
		ic.SetInterceptor(nil, "")
		if m.armFailed() {
			return
		}
		m.c.icptFilter = ""
		m.setMessage("intercept off: frames pass as they come (held ones stay held)", false)
		return
	}
	tr := m.c.ix.tr
	ic.SetInterceptor(func(dir wire.Dir, fr *wire.Frame) bool { return f.matchLive(dir, fr, tr) }, f.src)
	if m.armFailed() {
		return
	}
	m.c.icptFilter = f.src
	m.setMessage("intercept on: frames matching "+f.src+" are held (a release, e edit, d drop)", false)
}

// armFailed says why a followed tap did not take the filter, if it did not.
func (m *Model) armFailed() bool {
	if m.remote == nil || m.remote.err == nil {
		return false
	}
	m.setMessage("intercept: the tap did not take it: "+wire.VisibleString(m.remote.err.Error(), wire.Pictures), true)
	m.remote.err = nil
	return true
}

func (m *Model) cancelIntercept() {
	m.icepting = false
	m.icptIn.Blur()
}

// selectedHold is the hold of the frame selected in the Frames pane, if it
// is held now.
func (m *Model) selectedHold() (eventlog.Hold, bool) {
	seq := m.frames.SelectedSeq()
	if seq == 0 || m.c.ix.intercepts == 0 {
		return eventlog.Hold{}, false
	}
	for _, h := range m.c.ix.tr.Held() {
		if h.Seq == seq {
			return h, true
		}
	}
	return eventlog.Hold{}, false
}

func (m *Model) whyNotHeld() string {
	if _, ok := m.selectedHold(); !ok {
		return "the selected frame is not held"
	}
	return m.whyNoIntercept()
}

// heldFrame is the frame a hold holds: a client's as held, a server's as
// logged.
func (m *Model) heldFrame(h eventlog.Hold) *wire.Frame {
	if h.Frame != nil {
		return h.Frame
	}
	ev, _ := m.c.ix.log.Get(h.Seq)
	return ev.Frame
}

func (m *Model) releaseHeld() tea.Cmd {
	h, _ := m.selectedHold()
	return m.sendRelease(h.Hold, nil, fmt.Sprintf("released held #%d as it was", h.Hold))
}

func (m *Model) dropHeld() tea.Cmd {
	h, _ := m.selectedHold()
	ic := m.icepter()
	what := fmt.Sprintf("dropped held #%d", h.Hold)
	if f := m.heldFrame(h); f != nil && f.Msg.Kind == wire.KindRequest {
		what += fmt.Sprintf(" (linesman answered the request with JSON-RPC error %d)", eventlog.CodeInterceptDropped)
	}
	return func() tea.Msg { return resultMsg{what, ic.Drop(h.Hold)} }
}

// editHeld opens the held frame in the composer, pretty printed: ctrl+s
// releases the edit.
func (m *Model) editHeld() {
	h, _ := m.selectedHold()
	f := m.heldFrame(h)
	if f == nil {
		m.setMessage("the held frame is no longer in the log", true)
		return
	}
	m.composer.openText(fmt.Sprintf("edit of held #%d (%s; ctrl+s releases it)", h.Hold, h.Dir), prettyText(frameText(f)))
	m.composer.hold, m.composer.holdDir = h.Hold, h.Dir
	m.focusComposer()
}

// sendRelease releases a hold (edited nil: as it was).
func (m *Model) sendRelease(hold uint64, edited []byte, what string) tea.Cmd {
	ic := m.icepter()
	return func() tea.Msg { return resultMsg{what, ic.Release(hold, edited)} }
}

// icptStatus is the Frames pane title's word on interception: what is
// held and the filter armed ("" when neither).
func (c *common) icptStatus() string {
	out := ""
	if c.ix.intercepts > 0 {
		if n := len(c.ix.tr.Held()); n > 0 {
			out = fmt.Sprintf("  ⏸ %d held", n)
		}
	}
	if c.icptFilter != "" {
		out += "  i:" + wire.VisibleString(c.icptFilter, wire.Pictures)
	}
	return out
}

// holdMark is a row's word on interception: what became of the frame
// ("" for a frame never held).
func holdMark(a eventlog.InterceptAction) string {
	switch a {
	case eventlog.InterceptHeld:
		return "⏸ held "
	case eventlog.InterceptEdited:
		return "✎ edited "
	case eventlog.InterceptDropped:
		return "✗ dropped "
	case eventlog.InterceptReleased:
		return "▷ released "
	}
	return ""
}

// releaseComposed releases the held frame the composer edits, with out
// (checked as the composer checks a frame, or the bytes as typed in raw
// mode).
func (m *Model) releaseComposed(out []byte, raw bool) tea.Cmd {
	p := m.composer
	hold := p.hold
	p.status, p.statusBad, p.confirm = "", false, ""
	p.loaded, p.kept, p.hold = p.value(), false, 0
	p.close()
	m.focus = focusFrames
	what := fmt.Sprintf("released held #%d as edited", hold)
	if raw {
		what += " (raw)"
	}
	return m.sendRelease(hold, out, what)
}
