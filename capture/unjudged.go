package capture

import (
	"fmt"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// A tap whose scribe fell behind records what it passed over as "unjudged"
// records: the bytes of one direction exactly as they crossed the wire,
// in pieces that end at a line end, the last of a gap marked "last". The
// reader gathers a gap's pieces and frames them, as the live framer would
// have from the gap's start, when the gap ends: each frame is an event of
// its own, judged by the refilled log's tracker like every other.

// unjudged takes an unjudged record: one piece of a gap.
func (rd *reader) unjudged(rec *rawRecord) error {
	dir, err := parseDir(rec.Dir)
	if err != nil {
		return err
	}
	l, err := rec.rawLine.line()
	if err != nil {
		return err
	}
	if rec.Seq <= rd.lastSeq {
		return fmt.Errorf("seq %d is not after the last event (%d)", rec.Seq, rd.lastSeq)
	}
	rd.skipTo(rec.Seq)
	rd.lastSeq = rec.Seq
	rd.c.Records++
	i := gapIndex(dir)
	rd.gaps[i] = append(rd.gaps[i], l.Content...)
	n := 0
	if rec.Last {
		n = rd.frameGap(dir, time.Duration(rec.At))
	}
	if n != 1 {
		// The writer's Seq became n events: the later ones map 1-n
		// further on (a piece that became none has no event).
		missing := uint64(0)
		if n == 0 {
			missing = 1
		}
		rd.shift(rec.Seq+1, int64(1-n), missing)
	}
	return nil
}

// frameGap frames the gathered bytes of dir's gap and appends the frames,
// after the events read before them; it returns how many.
func (rd *reader) frameGap(dir wire.Dir, at time.Duration) int {
	i := gapIndex(dir)
	b := rd.gaps[i]
	rd.gaps[i] = nil
	if len(b) == 0 {
		return 0
	}
	rd.flush()
	frames := wire.FramesOf(b, wire.Options{MaxFrame: rd.maxFrame})
	for _, f := range frames {
		rd.append(eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f, At: at})
	}
	return len(frames)
}

// frameGaps frames the gaps still open when the records end (a tap that
// was killed in the middle of one).
func (rd *reader) frameGaps() {
	for _, d := range []wire.Dir{wire.ClientToServer, wire.ServerToClient} {
		if len(rd.gaps[gapIndex(d)]) > 0 {
			rd.frameGap(d, rd.lastAt())
		}
	}
}

func gapIndex(d wire.Dir) int {
	if d == wire.ServerToClient {
		return 1
	}
	return 0
}
