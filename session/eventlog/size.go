package eventlog

import (
	"unsafe"

	"linesman/wire"
)

// approxSize is what an event costs the retention budget as the log
// stores it (see stored): the structs it holds, the capacity (not just the
// length) of its byte slices, and the strings the classification and
// findings keep. It errs on the high side, so that the budget bounds the
// heap the log really pins.
func (e *Event) approxSize() int64 {
	s := store(e)
	return s.size()
}

// payloadSize is what an event's members cost beyond the Event itself.
func (e *Event) payloadSize() int64 {
	n := int64(len(e.Note)) + frameSize(e.Frame)
	if e.Stderr != nil {
		n += int64(unsafe.Sizeof(*e.Stderr)) + int64(cap(e.Stderr.Content))
	}
	if e.Unjudged != nil {
		n += int64(unsafe.Sizeof(*e.Unjudged)) + int64(cap(e.Unjudged.Bytes))
	}
	if e.Process != nil {
		n += int64(unsafe.Sizeof(*e.Process)) + int64(len(e.Process.Detail)+len(e.Process.Signal))
	}
	if e.Finding != nil {
		n += int64(unsafe.Sizeof(*e.Finding)) + int64(len(e.Finding.Message))
	}
	if e.Era != nil {
		n += int64(unsafe.Sizeof(*e.Era)) + int64(len(e.Era.Version))
	}
	if e.Restart != nil {
		n += int64(unsafe.Sizeof(*e.Restart))
		for _, a := range e.Restart.Command {
			n += int64(len(a)) + 16
		}
	}
	return n
}

// frameSize is what a logged frame costs the budget: its struct, lines,
// bytes, the strings its classification and findings keep, and the
// tracker's record of a request.
func frameSize(f *wire.Frame) int64 {
	if f == nil {
		return 0
	}
	n := int64(unsafe.Sizeof(*f)) + int64(cap(f.Lines))*int64(unsafe.Sizeof(wire.Line{}))
	for _, l := range f.Lines {
		n += int64(cap(l.Content))
	}
	n += int64(f.Msg.KeptSize())
	n += int64(cap(f.Findings)) * int64(unsafe.Sizeof(wire.Finding{}))
	switch {
	case f.Msg.Kind == wire.KindRequest:
		n += TrackedCost // the tracker's record of it lives as long as the frame
	case f.Msg.Method == "notifications/progress":
		n += progressCost
	}
	for _, x := range f.Findings {
		n += int64(len(x.Message))
	}
	return n
}

// progressCost is what the tracker keeps of a progress notification as
// long as its frame: its entry in the map of the requests progress belongs
// to (Tracker.progressFor, two words and the map's own room for them).
const progressCost = 48
