package session

import (
	"bytes"
	"fmt"

	"linesman/wire"
)

// A gap: the bytes a tap's scribe passes over unjudged when it falls behind
// its budget, logged as they are, in pieces that end at a line end, with a
// note of how many (see "Falling behind" in inlet_scribe.go).

// gapped reports whether the reader of d returned a gap whose bytes were
// not taken yet: the framer is emitting the lines the gap cut. Only the
// scribe of d may call it (read sets it on the same goroutine).
func (q *scribeQueue) gapped(d wire.Dir) bool {
	return q.dirs[dirIndex(d)].inGap
}

// takeUnjudged takes the unjudged chunks at the front of d's queue (the
// reader returned errScribeGap there). Only the scribe of d may call it.
func (q *scribeQueue) takeUnjudged(d wire.Dir) []*scribeChunk {
	q.mu.Lock()
	defer q.mu.Unlock()
	jd := &q.dirs[dirIndex(d)]
	jd.inGap = false
	// The other scribe may wait for these chunks to leave the queue (their
	// tickets come before what it read): tell it they have.
	defer q.cond.Broadcast()
	// jd.last stays the gap's first ticket (read set it) until the gap is
	// logged: the other scribe logs nothing that came after the gap began
	// (the answers to what it holds) before the whole gap is in the log,
	// which a reader frames where the gap's last piece is.
	var out []*scribeChunk
	for len(jd.chunks) > 0 && jd.chunks[0].unjudged {
		c := jd.chunks[0]
		jd.chunks[0] = nil
		jd.chunks = jd.chunks[1:]
		jd.held -= int64(len(c.data))
		out = append(out, c)
	}
	return out
}

// unjudgedPiece is the size past which an unjudged run is logged up to its
// last line end: a capture record of it stays far below what a reader
// takes for a line.
const unjudgedPiece = 256 << 10

// unjudgedRun gathers the bytes of a gap, the lines it cut first, and logs
// them ([eventlog.EventUnjudged]) in pieces that end at a line end, the
// last one (Last) when the scribe frames again, then the note. The queued
// chunks of the gap are logged as they are (see take), so that passing
// bytes over costs no copy of them.
type unjudgedRun struct {
	p            *proc
	d            wire.Dir
	buf          []byte // gathered, not logged yet
	bytes, lines int64  // of the whole gap
}

// add gathers a copy of b, logging what was gathered up to its last line
// end once it reaches unjudgedPiece.
func (g *unjudgedRun) add(b []byte) {
	g.count(b)
	g.gather(b)
}

func (g *unjudgedRun) count(b []byte) {
	g.bytes += int64(len(b))
	g.lines += int64(bytes.Count(b, []byte{'\n'}))
}

func (g *unjudgedRun) gather(b []byte) {
	g.buf = append(g.buf, b...)
	if len(g.buf) < unjudgedPiece {
		return
	}
	if i := bytes.LastIndexByte(g.buf, '\n'); i >= 0 {
		piece := g.buf[:i+1]
		g.buf = append([]byte(nil), g.buf[i+1:]...)
		g.p.s.logUnjudged(g.d, piece, false)
	}
}

// take logs the bytes of a queued chunk of the gap, whose buffer is the
// log's from now on: what was gathered, with b's first line, as one piece
// (a copy of that line), then b up to its last line end as it is; the rest
// of b is gathered.
func (g *unjudgedRun) take(b []byte) {
	g.count(b)
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		g.gather(b)
		return
	}
	if len(g.buf) > 0 {
		g.p.s.logUnjudged(g.d, append(g.buf, b[:i+1]...), false)
		g.buf = nil
		b = b[i+1:]
	}
	if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
		g.p.s.logUnjudged(g.d, b[:j+1], false)
		b = b[j+1:]
	}
	g.buf = append(g.buf, b...)
}

// end logs what is left of the gap, and the note, if there was one.
func (g *unjudgedRun) end() {
	if g.bytes == 0 {
		return
	}
	g.p.s.logUnjudged(g.d, g.buf, true)
	g.p.s.note(fmt.Sprintf("the tap fell behind: %d bytes (%d lines) %s were passed on without being framed or judged; the capture holds them, and check --from judges them",
		g.bytes, g.lines, dirWords(g.d)))
	g.buf, g.bytes, g.lines = nil, 0, 0
}

func dirWords(d wire.Dir) string {
	if d == wire.ServerToClient {
		return "from the server to the host"
	}
	return "from the host to the server"
}
