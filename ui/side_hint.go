package ui

import (
	"fmt"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// quietHint is how long a request may wait with the server silent before
// the In flight pane suggests why: a server that buffers its stdout (C
// stdio and Python do when stdout is a pipe) answers into a buffer nobody
// sees until it fills or the process exits.
const quietHint = 5 * time.Second

// hint is the In flight pane's suggestion, wrapped to the pane, when a
// request of the client has waited quietHint and the server has written no
// frame since it was sent; nil otherwise. It reads the model's clock
// (common.now), which tests fix.
func (p *inflightPane) hint() []string {
	ix := p.c.ix
	if ix.proc.Seen && ix.proc.State == eventlog.StateExited {
		return nil // its exit says more than a hint would
	}
	var oldest *eventlog.Request
	for i := range p.reqs {
		if r := &p.reqs[i]; r.Dir == wire.ClientToServer && (oldest == nil || r.SentAt < oldest.SentAt) {
			oldest = r
		}
	}
	if oldest == nil || p.c.now-max(ix.lastS2C, oldest.SentAt) < quietHint {
		return nil
	}
	s := fmt.Sprintf("no bytes from the server since %ss, %s ago; is its stdout buffered? see explain unflushed-output",
		fmtDur(ix.lastS2C), humanAge(p.c.now-ix.lastS2C))
	if ix.lastS2C == 0 {
		s = fmt.Sprintf("no bytes from the server yet (%s); is its stdout buffered? see explain unflushed-output", humanAge(p.c.now))
	}
	out := hangWrap(s, max(p.w-1, 10), 0)
	for i := range out {
		out[i] = " " + out[i]
	}
	return out
}

// hintRows is how many rows the hint takes now.
func (p *inflightPane) hintRows() int { return len(p.hint()) }

// need is how many rows the Process pane has to show (its title
// included): what Render draws when not listing the environment.
func (p *processPane) need() int {
	v := &p.c.ix.proc
	n := 3 // title, state, bytes
	if v.Detail != "" || p.info != nil && len(p.info.Command) > 0 {
		n++
	}
	if len(v.Steps) > 0 {
		n++
	}
	if p.info != nil {
		n++
	}
	return n
}
