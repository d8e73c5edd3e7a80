package ui

import (
	"fmt"
	"sort"
	"strings"

	"linesman/session"
	"linesman/session/report"
	"linesman/wire"
)

// stderrPane shows the server's stderr interleaved with process events,
// notes and findings not on a frame, all on the log's clock. It follows the
// newest line, or, when the frame list is not following, shows the lines
// around the selected frame with a marker where the frame falls.
type stderrPane struct {
	c      *common
	w, h   int
	follow bool
	top    int // first shown entry when not following
}

func (p *stderrPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p *stderrPane) rows() int { return max(p.h-1, 0) }

func (p *stderrPane) scrollBy(d int) {
	n := len(p.c.ix.events)
	if p.follow {
		p.top = max(0, n-p.rows())
	}
	p.top = max(0, min(p.top+d, n-p.rows()))
	p.follow = p.top >= n-p.rows()
}

// Render draws the pane; anchor is the Seq of the selected frame when the
// lines around it should be shown (0: follow the newest).
func (p *stderrPane) Render(focused bool, anchor uint64) string {
	ix := p.c.ix
	evs := ix.events
	rows := p.rows()
	// The header counts the rows the pane lists: stderr lines and events.
	extra := fmt.Sprintf("%d lines", len(evs))
	if len(evs) == 1 {
		extra = "1 line"
	}
	top := max(0, len(evs)-rows)
	mark := -1
	switch {
	case !p.follow:
		top = max(0, min(p.top, len(evs)-rows))
	case anchor != 0:
		// The entries logged before the frame fill the top half.
		i := sort.Search(len(evs), func(i int) bool { return evs[i] > anchor })
		mark = i
		top = max(0, min(i-rows/2, len(evs)-rows+1))
		extra += fmt.Sprintf("  around frame #%d", anchor)
	}
	lines := []string{p.c.titleLine(p.w, "stderr & events", focused, p.c.st.Subtle.Render(extra))}
	for i := top; len(lines) <= rows && i <= len(evs); i++ {
		if i == mark {
			lines = append(lines, p.c.st.Accent.Render(fit(fmt.Sprintf("%*s ▸ frame #%d ", colTime, "", anchor), p.w)))
			if len(lines) > rows {
				break
			}
		}
		if i == len(evs) {
			break
		}
		ev, ok := ix.log.Get(evs[i])
		if !ok {
			continue
		}
		lines = append(lines, p.row(&ev))
	}
	if len(evs) == 0 {
		lines = append(lines, p.c.st.Subtle.Render("  nothing on stderr yet"))
	}
	return block(lines, p.w, p.h)
}

func (p *stderrPane) row(ev *session.Event) string {
	st := p.c.st
	tm := st.Subtle.Render(fmt.Sprintf("%*s", colTime, fmtDur(ev.At)))
	var glyph, text string
	switch ev.Type {
	case session.EventStderr:
		glyph = st.Stderr.Render("┃")
		text = st.Stderr.Render(wire.Visible(ev.Stderr.Content, wire.Pictures))
	case session.EventProcess:
		glyph = st.Accent.Render("◆")
		text = processText(ev.Process)
	case session.EventNote, session.EventEra, session.EventRestart:
		glyph = st.Note.Render("ℹ")
		text = wire.VisibleString(ev.Note, wire.Pictures)
	case session.EventFinding:
		f := ev.Finding
		glyph = st.Severity(f.Severity).Render(severityGlyph(f.Severity))
		text = st.Severity(f.Severity).Render(wire.VisibleString(f.Code, wire.Pictures)) + " " + wire.VisibleString(f.Message, wire.Pictures)
		if f.FrameSeq != 0 {
			text += st.Subtle.Render(fmt.Sprintf(" (frame #%d)", f.FrameSeq))
		}
	}
	return truncate(tm+" "+glyph+" "+text, p.w)
}

func processText(e *session.ProcessEvent) string {
	switch e.State {
	case session.StateExiting:
		return "shutdown: " + stepText(e.Step)
	case session.StateExited:
		s := "exited"
		if e.Signal != "" {
			s += " by " + e.Signal
		} else {
			s += fmt.Sprintf(" with code %d", e.ExitCode)
		}
		if e.Step != session.StepNone {
			s += " after " + stepText(e.Step)
		}
		return s
	}
	if e.Detail != "" {
		return wire.VisibleString(e.Detail, wire.Pictures)
	}
	return fmt.Sprintf("%s pid %d", e.State, e.Pid)
}

func stepText(s session.ShutdownStep) string {
	switch s {
	case session.StepStdinClose:
		return "stdin closed"
	case session.StepSIGTERM:
		return "SIGTERM"
	case session.StepSIGKILL:
		return "SIGKILL"
	default:
		return "none"
	}
}

// inflightPane lists requests still open, both directions.
type inflightPane struct {
	c    *common
	w, h int
	sel  int
	reqs []session.Request // refreshed by the root on each update
}

func (p *inflightPane) SetSize(w, h int) { p.w, p.h = w, h }

// refresh takes the projection's list of requests in flight.
func (p *inflightPane) refresh() {
	p.reqs = p.c.ix.tr.InFlight()
	p.sel = max(0, min(p.sel, len(p.reqs)-1))
}

func (p *inflightPane) selected() (session.Request, bool) {
	if p.sel >= 0 && p.sel < len(p.reqs) {
		return p.reqs[p.sel], true
	}
	return session.Request{}, false
}

func (p *inflightPane) move(d int) { p.sel = max(0, min(p.sel+d, len(p.reqs)-1)) }

func (p *inflightPane) Render(focused bool) string {
	st := p.c.st
	lines := []string{p.c.titleLine(p.w, "In flight", focused, st.Subtle.Render(fmt.Sprintf("%d", len(p.reqs))))}
	rows := max(p.h-1, 0)
	top := max(0, p.sel-rows+1)
	for i := top; i < len(p.reqs) && len(lines) <= rows; i++ {
		r := p.reqs[i]
		glyph := "→"
		if r.Dir == wire.ServerToClient {
			glyph = "←"
		}
		s := fmt.Sprintf("%s %-4s %s %s", glyph, wire.VisibleString(r.ID.String(), wire.Pictures), humanAge(p.c.now-r.SentAt), wire.VisibleString(r.Method, wire.Pictures))
		if r.HasProgress {
			prog := fmt.Sprintf(" %g", r.Progress)
			if r.Total > 0 {
				prog += fmt.Sprintf("/%g", r.Total)
			}
			if r.ProgressMessage != "" {
				prog += " " + wire.VisibleString(r.ProgressMessage, wire.Pictures)
			}
			s += st.Accent.Render(prog)
		}
		if i == p.sel && focused {
			lines = append(lines, st.Selected.Render(fit("▌"+s, p.w)))
		} else {
			lines = append(lines, " "+s)
		}
	}
	if len(p.reqs) == 0 {
		lines = append(lines, st.Subtle.Render("  nothing in flight"))
	}
	return block(lines, p.w, p.h)
}

// processPane shows the server process: from the log's process events, and
// from the live session's snapshot when there is one.
type processPane struct {
	c       *common
	w, h    int
	showEnv bool
	scroll  int
	info    *processInfo // from the live session, nil in read-only mode
}

// processInfo is what the live session tells beyond the log.
type processInfo struct {
	Command      []string
	Env          []string
	Dir          string
	PendingWrite int64
}

func (p *processPane) SetSize(w, h int) { p.w, p.h = w, h }

func (p *processPane) Render(focused bool) string {
	st := p.c.st
	v := &p.c.ix.proc
	ix := p.c.ix
	lines := []string{}
	var state string
	switch {
	case !v.seen:
		state = "○ not started"
	case v.State == session.StateExited:
		state = "■ exited"
		if v.Signal != "" {
			state += " by " + v.Signal
		} else {
			state += fmt.Sprintf(" code %d", v.ExitCode)
		}
		if v.Step != session.StepNone {
			state += " · ended by " + v.Step.String()
			if v.ShutdownTook > 0 {
				state += " in " + humanAge(v.ShutdownTook)
			}
		} else {
			state += " · on its own"
		}
		state += " · ran " + humanAge(v.ExitedAt-v.StartedAt)
	case v.State == session.StateExiting:
		state = "◐ exiting: " + stepText(v.Step)
	default:
		state = fmt.Sprintf("● %s pid %d · up %s", v.State, v.Pid, humanAge(p.c.now-v.StartedAt))
	}
	if v.seen && v.State == session.StateExited && v.Pid != 0 {
		state += fmt.Sprintf(" · pid %d", v.Pid)
	}
	extra := ""
	if v.Restarts > 0 {
		extra = st.Subtle.Render(fmt.Sprintf("restarted %d×", v.Restarts))
	}
	lines = append(lines, p.c.titleLine(p.w, "Process", focused, extra))
	if p.showEnv && p.info != nil {
		body := []string{" cwd " + wire.VisibleString(p.info.Dir, wire.Pictures), " env (as the child got it):"}
		for _, e := range p.info.Env {
			body = append(body, "  "+wire.VisibleString(e, wire.Pictures))
		}
		p.scroll = max(0, min(p.scroll, len(body)-(p.h-1)))
		lines = append(lines, body[p.scroll:]...)
		return block(lines, p.w, p.h)
	}
	lines = append(lines, " "+state)
	cmd := v.Detail
	if p.info != nil && len(p.info.Command) > 0 {
		cmd = report.ShellJoin(p.info.Command)
	}
	if cmd != "" {
		lines = append(lines, st.Subtle.Render(" cmd ")+wire.VisibleString(cmd, wire.Pictures))
	}
	io := fmt.Sprintf("→ %s  ← %s  stderr %s", humanBytes(ix.bytesC2S), humanBytes(ix.bytesS2C), humanBytes(ix.bytesStderr))
	if p.info != nil {
		io += fmt.Sprintf("  pending %s", humanBytes(p.info.PendingWrite))
	}
	lines = append(lines, " "+io)
	if len(v.Steps) > 0 {
		lines = append(lines, st.Subtle.Render(" ladder ")+strings.Join(v.Steps, " → "))
	}
	if p.info != nil {
		lines = append(lines, st.Subtle.Render(" E: env and cwd"))
	}
	return block(lines, p.w, p.h)
}
