package eventlog

import (
	"linesman/session/protocol"
	"linesman/wire"
)

// rules runs the protocol rules (package session/protocol) inside the
// fold: [Tracker.judge] hands it every frame, after the frame's
// bookkeeping, with the facts of the projection (era, version, declared
// capabilities), so the rules judge live, on view and export, on captures
// and foreign logs, and in tests alike, and never work out a handshake fact
// the projection already holds.
type rules struct {
	judge *protocol.Judge
	// requests are the request frames in flight by Seq, for their answers:
	// the fold pairs an answer with a request (Judged.Request.Seq); the
	// rules need the request's params, which the fold does not keep.
	requests map[uint64]*wire.Frame
	// factsAt is the handshake's ResultSeq and RequestSeq when the facts
	// were last handed over, so that they are copied only when they change.
	factsAt [2]uint64
	era     Era
	version string
	// host is the host rules' state (host.go).
	host hostBook
}

// maxRequestFrames bounds rules.requests (requests never answered).
const maxRequestFrames = 4096

func newRules() *rules {
	return &rules{judge: protocol.New(), requests: map[uint64]*wire.Frame{}}
}

// restarted forgets the conversation: a fresh process starts over.
func (r *rules) restarted() {
	r.judge.Restarted()
	r.host = hostBook{}
	clear(r.requests)
	r.factsAt = [2]uint64{}
}

// frame judges one frame; the findings go onto the frame.
func (r *rules) frame(j *Judged, hs *Handshake) {
	r.facts(hs)
	in := protocol.Input{Seq: j.Seq, Dir: j.Dir, Frame: j.Frame, Params: j.Params}
	switch j.Frame.Msg.Kind {
	case wire.KindRequest:
		if len(r.requests) >= maxRequestFrames {
			clear(r.requests)
		}
		r.requests[j.Seq] = j.Frame
	case wire.KindResult, wire.KindError:
		if j.Request != nil {
			in.Request = r.requests[j.Request.Seq]
			delete(r.requests, j.Request.Seq)
		}
	}
	r.judge.Frame(in)
}

// facts hands the judge the projection's handshake facts when they changed.
func (r *rules) facts(hs *Handshake) {
	at := [2]uint64{hs.ResultSeq, hs.RequestSeq}
	if at == r.factsAt && hs.Era == r.era && hs.ProtocolVersion == r.version {
		return
	}
	r.factsAt, r.era, r.version = at, hs.Era, hs.ProtocolVersion
	era := protocol.EraUnknown
	switch hs.Era {
	case EraLegacy:
		era = protocol.EraLegacy
	case EraModern:
		era = protocol.EraModern
	}
	if !hs.EraPinned && era == protocol.EraUnknown {
		era = protocol.EraUnknown
	}
	r.judge.SetFacts(protocol.Facts{
		Era: era, Version: hs.ProtocolVersion,
		ServerCapabilities: hs.ServerCapabilities, ClientCapabilities: hs.ClientCapabilities,
	})
}

// Coverage tells, per rule family, whether its rules held, were broken or
// were not observed in the session so far; counts are the warnings and
// errors raised, by code.
func (t *Tracker) Coverage(counts map[string]int) []protocol.FamilyStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rules == nil {
		return nil
	}
	return t.rules.judge.Coverage(counts)
}
