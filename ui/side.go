package ui

import (
	"fmt"
	"strings"

	"linesman/session/eventlog"
	"linesman/session/report"
	"linesman/wire"
)

func processText(e *eventlog.ProcessEvent) string {
	switch e.State {
	case eventlog.StateExiting:
		return "shutdown: " + stepText(e.Step)
	case eventlog.StateExited:
		s := "exited"
		if e.Signal != "" {
			s += " by " + wire.VisibleString(e.Signal, wire.Pictures) // a capture's word: inert
		} else {
			s += fmt.Sprintf(" with code %d", e.ExitCode)
		}
		if e.Step != eventlog.StepNone {
			s += " after " + stepText(e.Step)
		}
		return s
	}
	if e.Detail != "" {
		return wire.VisibleString(e.Detail, wire.Pictures)
	}
	return fmt.Sprintf("%s pid %d", e.State, e.Pid)
}

func stepText(s eventlog.ShutdownStep) string {
	switch s {
	case eventlog.StepStdinClose:
		return "stdin closed"
	case eventlog.StepSIGTERM:
		return "SIGTERM"
	case eventlog.StepSIGKILL:
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
	reqs []eventlog.Request // refreshed by the root on each update
	wrap bool               // long rows wrap (zoomed)
}

func (p *inflightPane) SetSize(w, h int) { p.w, p.h = w, h }

// refresh takes the projection's list of requests in flight.
func (p *inflightPane) refresh() {
	p.reqs = p.c.ix.tr.InFlight()
	p.sel = max(0, min(p.sel, len(p.reqs)-1))
}

func (p *inflightPane) selected() (eventlog.Request, bool) {
	if p.sel >= 0 && p.sel < len(p.reqs) {
		return p.reqs[p.sel], true
	}
	return eventlog.Request{}, false
}

func (p *inflightPane) move(d int) { p.sel = max(0, min(p.sel+d, len(p.reqs)-1)) }

func (p *inflightPane) Render(focused bool) string {
	st := p.c.st
	hint := p.hint()
	extra := st.Subtle.Render(fmt.Sprintf("%d", len(p.reqs)))
	if len(hint) > 0 {
		// The title says it in a few words; the rows under the requests
		// say it whole (all of it when zoomed).
		extra += " " + st.Warning.Render("▲ silent "+humanAge(p.c.now-p.c.ix.lastS2C))
	}
	lines := []string{p.c.titleLine(p.w, "In flight", focused, extra)}
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
	for _, l := range hint {
		lines = append(lines, st.Warning.Render(l))
	}
	if p.wrap {
		lines = wrapRows(lines, p.w)
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
	wrap    bool         // long lines wrap (zoomed)
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
	case !v.Seen:
		state = "○ not started"
	case v.State == eventlog.StateExited:
		state = "■ exited"
		if v.Signal != "" {
			state += " by " + wire.VisibleString(v.Signal, wire.Pictures)
		} else {
			state += fmt.Sprintf(" code %d", v.ExitCode)
		}
		if v.Step != eventlog.StepNone && !v.ByHost {
			state += " · ended by " + v.Step.String()
		} else {
			state += " · " + eventlog.HowEnded(v.Step, v.AfterEOF, v.ByHost)
		}
		if v.Step != eventlog.StepNone && v.ShutdownTook > 0 {
			state += " in " + humanAge(v.ShutdownTook)
		}
		state += " · ran " + humanAge(v.ExitedAt-v.StartedAt)
	case v.State == eventlog.StateExiting:
		state = "◐ exiting: " + stepText(v.Step)
	default:
		state = fmt.Sprintf("● %s pid %d · up %s", v.State, v.Pid, humanAge(p.c.now-v.StartedAt))
	}
	if v.Seen && v.State == eventlog.StateExited && v.Pid != 0 {
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
		lines = append(lines, st.Subtle.Render(" ladder ")+strings.Join(stepsText(v.Steps), " → "))
	}
	if p.info != nil {
		lines = append(lines, st.Subtle.Render(" E: env and cwd"))
	}
	if p.wrap {
		lines = wrapRows(lines, p.w)
	}
	return block(lines, p.w, p.h)
}

// stepsText spells the shutdown steps taken, each with its log time.
func stepsText(steps []eventlog.StepAt) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = fmtDur(s.At) + " " + s.Step.String()
	}
	return out
}
