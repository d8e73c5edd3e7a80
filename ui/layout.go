package ui

// The layout: a rectangle per pane, computed on a resize and again when
// what the panes hold changes their needs (a few times early in a session,
// then not at all once every pane is full). Space goes by need: a pane
// with little to show gives what it does not use to the others, so at
// start the few frames leave room for the stderr lines that explain a
// server that exited at once, and at 160 columns a near-empty frame list
// does not hold half the screen.

// paneNeeds is how many rows each pane could use now, capped at the
// screen's height (so that once every pane is full, the layout holds
// still).
type paneNeeds struct {
	frames, stderr, inflight, process int
	composer                          bool
	stderrEmpty                       bool
}

// needs measures the panes' needs: their rows plus the title.
func (m *Model) needs() paneNeeds {
	ix := m.c.ix
	limit := m.height
	n := paneNeeds{
		frames:      min(len(ix.view())+1, limit),
		stderr:      min(len(ix.events)+1, limit),
		inflight:    min(len(m.inflight.reqs)+1+m.inflight.hintRows(), limit),
		process:     m.process.need(),
		composer:    m.composer.open,
		stderrEmpty: len(ix.events) == 0,
	}
	return n
}

// layout computes the panes' rectangles for the screen's size and the
// panes' needs, and sizes the panes. Compact (under wideWidth columns):
// frames across the top, detail beside in-flight and process in the
// middle, stderr at the bottom. Wide: frames over detail on the left,
// in-flight, process and stderr on the right.
func (m *Model) layout() {
	n := m.needs()
	m.laidOut = n
	W, body := m.width, m.height-2 // status bar and help line
	m.wide = W >= wideWidth
	if m.wide {
		m.layoutWide(W, body, n)
	} else {
		m.layoutCompact(W, body, n)
	}
	m.zoomRect()
	r := &m.rects
	m.frames.SetSize(r[focusFrames].w, r[focusFrames].h)
	m.detail.SetSize(r[focusDetail].w, r[focusDetail].h)
	m.inflight.SetSize(r[focusInFlight].w, r[focusInFlight].h)
	m.process.SetSize(r[focusProcess].w, r[focusProcess].h)
	m.stderr.SetSize(r[focusStderr].w, r[focusStderr].h)
	m.composer.SetSize(r[focusComposer].w, r[focusComposer].h)
	m.help.SetWidth(W)
	m.filterIn.SetWidth(W - 2)
	m.icptIn.SetWidth(W - 12)
	m.searchIn.SetWidth(W - 22)
}

// relayout lays the panes out again when their needs changed.
func (m *Model) relayout() {
	if m.needs() != m.laidOut {
		m.layout()
	}
}

// layoutCompact stacks three bands. The frame list takes up to 40% of the
// body, stderr 25% plus what the frames leave unused, the middle (detail,
// in flight, process, or the composer) the rest — at least 35% while the
// composer is open.
func (m *Model) layoutCompact(W, body int, n paneNeeds) {
	r := &m.rects
	fshare := max(body*40/100, 4)
	fh := clamp(n.frames, 3, fshare)
	sh := clamp(n.stderr, 3, max(body*25/100, 3)+fshare-fh)
	if n.composer {
		sh = min(sh, max(body*25/100, 3))
	}
	mh := body - fh - sh
	if least := max(body*35/100, 6); mh < least { // the middle keeps its share
		sh = max(3, sh-(least-mh))
		mh = body - fh - sh
	}
	rw := min(max(W*38/100, 26), 48)
	dw := W - rw - 1
	r[focusFrames] = rect{0, 1, W, fh}
	r[focusDetail] = rect{0, 1 + fh, dw, mh}
	ih := clamp(n.inflight, 2, mh*45/100)
	if mh-ih < n.process { // the process pane's lines first, in-flight keeps 2
		ih = max(2, mh-n.process)
	}
	r[focusInFlight] = rect{dw + 1, 1 + fh, rw, ih}
	r[focusProcess] = rect{dw + 1, 1 + fh + ih, rw, mh - ih}
	r[focusStderr] = rect{0, 1 + fh + mh, W, sh}
	r[focusComposer] = rect{0, 1 + fh, W, mh}
}

// layoutWide puts frames over detail on the left, in flight, process and
// stderr on the right. The frame list takes up to half the height, the
// detail the rest; in flight and process take what they need (up to a
// quarter and 30%), stderr the rest, and the right column is as wide as
// the left once stderr has lines.
func (m *Model) layoutWide(W, body int, n paneNeeds) {
	r := &m.rects
	lw := W * 50 / 100
	if n.stderrEmpty {
		lw = W * 58 / 100
	}
	rw := W - lw - 1
	fh := clamp(n.frames, 4, body/2)
	r[focusFrames] = rect{0, 1, lw, fh}
	r[focusDetail] = rect{0, 1 + fh, lw, body - fh}
	ih := clamp(n.inflight, 3, max(body/4, 3))
	ph := clamp(n.process, 4, max(body*30/100, 6))
	r[focusInFlight] = rect{lw + 1, 1, rw, ih}
	r[focusProcess] = rect{lw + 1, 1 + ih, rw, ph}
	r[focusStderr] = rect{lw + 1, 1 + ih + ph, rw, body - ih - ph}
	r[focusComposer] = r[focusDetail]
}

// clamp bounds v to [lo, hi] (lo wins when hi < lo).
func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }
