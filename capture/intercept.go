package capture

import (
	"errors"
	"strconv"

	"linesman/session/eventlog"
)

// appendIntercept appends the members of an intercept record: the step
// (held, released, edited, dropped), the hold's number, the direction, the
// server's frame it concerns (frameSeq), the frame held or as edited
// (lines, as a frame record's), the filter matched, linesman's answer to a
// dropped request, then its words.
func appendIntercept(buf []byte, ev *eventlog.Event) []byte {
	if ie := ev.Intercept; ie != nil {
		buf = append(buf, `,"action":`...)
		buf = appendString(buf, []byte(ie.Action))
		buf = append(buf, `,"hold":`...)
		buf = strconv.AppendUint(buf, ie.Hold, 10)
		buf = append(buf, `,"dir":"`...)
		buf = append(buf, ie.Dir.String()...)
		buf = append(buf, '"')
		if ie.FrameSeq != 0 {
			buf = append(buf, `,"frameSeq":`...)
			buf = strconv.AppendUint(buf, ie.FrameSeq, 10)
		}
		if ie.Filter != "" {
			buf = append(buf, `,"filter":`...)
			buf = appendString(buf, []byte(ie.Filter))
		}
		if ie.Answer != "" {
			buf = append(buf, `,"answer":`...)
			buf = appendString(buf, []byte(ie.Answer))
		}
	}
	if f := ev.Frame; f != nil {
		buf = append(buf, `,"lines":[`...)
		for i := range f.Lines {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '{')
			buf = appendLine(buf, &f.Lines[i])
			buf = append(buf, '}')
		}
		buf = append(buf, ']')
	}
	buf = append(buf, `,"note":`...)
	return appendString(buf, []byte(ev.Note))
}

// intercept decodes an intercept record into ev (its frameSeq still the
// writer's; the frame classified on its own, as the other side got it).
func (rd *reader) intercept(rec *rawRecord, ev *eventlog.Event) error {
	dir, err := parseDir(rec.Dir)
	if err != nil {
		return err
	}
	switch a := eventlog.InterceptAction(rec.Action); a {
	case eventlog.InterceptHeld, eventlog.InterceptReleased, eventlog.InterceptEdited, eventlog.InterceptDropped:
	default:
		return errors.New(`"action" is not held, released, edited or dropped`)
	}
	ie := &eventlog.InterceptEvent{Action: eventlog.InterceptAction(rec.Action), Hold: rec.Hold, Dir: dir,
		Filter: rec.Filter, Answer: rec.Answer}
	if rec.FrameSeq != 0 {
		ie.FrameSeq = rd.mapSeq(rec.FrameSeq)
	}
	ev.Type, ev.Intercept, ev.Note = eventlog.EventIntercept, ie, rec.Note
	if len(rec.Lines) > 0 {
		_, f, _, err := rec.frame()
		if err != nil {
			return err
		}
		ev.Dir, ev.Frame = dir, rebuildFrame(f.Lines, rd.maxFrame)
	}
	return nil
}
