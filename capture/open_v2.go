package capture

import "linesman/session/eventlog"

// typedClockVersion is the first format version whose files record, as
// typed records, what the fold's clock and the process told it: "timeout"
// (the session's clock reached a request's deadline), "stdin-closed" and
// "end" (the exit, once the pipes were drained). Files before it (and the
// logs of other tools) do not; for them, v2Facts gives the fold the same
// typed events, read off what those files do record, without appending them.
const typedClockVersion = 3

// v2Facts applies, before ev is appended, the typed events a file written
// before typedClockVersion left implicit:
//   - a shutdown step that closed stdin is the stdin-closed event;
//   - an exit is the end event, applied just before the next record (the
//     live session told its tracker once the pipes were drained: at the
//     time of the findings it logged then, when those come next), unless a
//     restart comes next (the restart forgets the old process);
//   - a finding about a client request still in flight whose deadline the
//     finding's time has reached is the live clock's timeout: the fold is
//     ticked at that moment, so that a later answer is late there too.
//
// The findings the applied events settle are in the file already.
func (rd *reader) v2Facts(ev *eventlog.Event) {
	tr := rd.c.Tracker
	if rd.exitPending {
		rd.v2SettleExit(ev)
	}
	switch ev.Type {
	case eventlog.EventProcess:
		switch p := ev.Process; {
		case p.State == eventlog.StateExiting && p.Step == eventlog.StepStdinClose:
			tr.Apply(&eventlog.Event{Type: eventlog.EventStdinClosed, Stdin: &eventlog.StdinEvent{}, At: ev.At})
		case p.State == eventlog.StateExited:
			rd.exitPending, rd.exitAt = true, ev.At
		}
	case eventlog.EventFinding:
		if seq := ev.Finding.FrameSeq; seq != 0 {
			r, ok := tr.RequestBySeq(seq)
			if ok && r.Dir == ev.Finding.Dir && r.State == eventlog.ReqInFlight && r.Deadline != 0 && ev.At >= r.Deadline {
				tr.Apply(&eventlog.Event{Type: eventlog.EventTimeout, At: ev.At})
			}
		}
	}
}

// v2SettleExit applies the end event of an exit read earlier, now that next
// (nil at the end of the records) says whether a restart followed.
func (rd *reader) v2SettleExit(next *eventlog.Event) {
	rd.exitPending = false
	if next != nil && next.Type == eventlog.EventRestart {
		return
	}
	at := rd.exitAt
	if next != nil && next.Type == eventlog.EventFinding {
		at = next.At
	}
	rd.c.Tracker.Apply(&eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{Exited: true}, At: at})
	rd.ended = true
}

// v2Finish settles an exit that was the last record.
func (rd *reader) v2Finish() {
	if rd.exitPending {
		rd.v2SettleExit(nil)
	}
}
