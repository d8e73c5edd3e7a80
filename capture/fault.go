package capture

import (
	"strconv"

	"linesman/session/eventlog"
	"linesman/wire"
)

// appendFault appends the members of a fault record: the fault linesman
// injected (kind, the --fault spec, the request it concerns), then its
// words.
func appendFault(buf []byte, ev *eventlog.Event) []byte {
	if f := ev.Fault; f != nil {
		buf = append(buf, `,"kind":`...)
		buf = appendString(buf, []byte(f.Kind))
		buf = append(buf, `,"spec":`...)
		buf = appendString(buf, []byte(f.Spec))
		if f.Method != "" {
			buf = append(buf, `,"method":`...)
			buf = appendString(buf, []byte(f.Method))
		}
		switch f.ID.Kind {
		case wire.IDInt:
			buf = append(buf, `,"id":`...)
			buf = strconv.AppendInt(buf, f.ID.Num, 10)
		case wire.IDString:
			buf = append(buf, `,"id":`...)
			buf = appendString(buf, []byte(f.ID.Str))
		}
	}
	buf = append(buf, `,"note":`...)
	return appendString(buf, []byte(ev.Note))
}

// fault decodes a fault record's payload.
func (rec *rawRecord) fault() *eventlog.FaultEvent {
	f := &eventlog.FaultEvent{Kind: eventlog.FaultKind(rec.Kind), Spec: rec.Spec, Method: rec.Method}
	if len(rec.ID) > 0 {
		m, _ := wire.Classify([]byte(`{"jsonrpc":"2.0","id":` + string(rec.ID) + `,"result":{}}`))
		f.ID = m.ID
	}
	return f
}
