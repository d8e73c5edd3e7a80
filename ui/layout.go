package ui

// The layout: a rectangle per pane, computed on a resize and again when
// what the panes hold changes their needs (a few times early in a session,
// then not at all once every pane is full). Space goes by need: a pane
// with little to show gives what it does not use to the others, so at
// start the few frames leave room for the stderr lines that explain a
// server that exited at once, and at 160 columns a near-empty frame list
// does not hold half the screen.
//
// In the wide layout the left column's rows go between the frame list and
// the detail by need too, but the detail's need changes with the
// selection, and a frame list that grew and shrank with every selected
// frame would jump under the cursor. So the detail's rows are held with
// hysteresis ([holdRows]): they grow when the selected frame is cut (with
// room to spare), shrink only when a whole step of them stays empty, and
// are decided afresh on a resize. Moving among frames of similar size
// moves nothing; at most one jump follows a much larger or smaller frame.

// paneNeeds is how many rows each pane could use now, capped at the
// screen's height (so that once every pane is full, the layout holds
// still).
type paneNeeds struct {
	frames, stderr, inflight, process int
	composer                          bool
	stderrEmpty                       bool
	detail                            int // the detail's held rows (wide; 0 before the first fit)
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
		detail:      m.detailRows,
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
// stderr on the right. The detail keeps its held rows (n.detail, see
// [Model.fitDetail]) and the frame list takes the rest, or only what it
// needs, the detail taking what it leaves; in flight and process take
// what they need (up to a quarter and 30%), stderr the rest, and the right
// column is as wide as the left once stderr has lines.
func (m *Model) layoutWide(W, body int, n paneNeeds) {
	r := &m.rects
	lw := W * 50 / 100
	if n.stderrEmpty {
		lw = W * 58 / 100
	}
	rw := W - lw - 1
	lo, hi, _ := detailBounds(body)
	dh := n.detail
	if dh == 0 {
		dh = body - body/2 // before the first fit: half, as it was
	}
	fh := clamp(n.frames, 4, body-clamp(dh, lo, hi))
	r[focusFrames] = rect{0, 1, lw, fh}
	r[focusDetail] = rect{0, 1 + fh, lw, body - fh}
	ih := clamp(n.inflight, 3, max(body/4, 3))
	ph := clamp(n.process, 4, max(body*30/100, 6))
	r[focusInFlight] = rect{lw + 1, 1, rw, ih}
	r[focusProcess] = rect{lw + 1, 1 + ih, rw, ph}
	r[focusStderr] = rect{lw + 1, 1 + ih + ph, rw, body - ih - ph}
	r[focusComposer] = r[focusDetail]
}

// detailBounds are the wide layout's limits on the detail's held rows:
// at least lo (a quarter of the body), at most hi (what leaves the frame
// list 40%), changed in steps of step rows.
func detailBounds(body int) (lo, hi, step int) {
	hi = max(body-max(body*40/100, 4), 3)
	lo = min(max(body/4, 3), hi)
	return lo, hi, max(body/4, 2)
}

// holdRows is the hysteresis of the detail's rows: cur, the rows held,
// given the selected frame's need. A need above cur grows them to the need
// and half a step more; a need a step or more below shrinks them to the
// need and half a step; anything between keeps cur. So the detail never
// shows a step of empty rows while the frame list is cut, and frames of
// like sizes never move the layout.
func holdRows(cur, need, lo, hi, step int) int {
	t := clamp(need, lo, hi)
	switch {
	case cur == 0 || t > cur || cur-t >= step:
		return clamp(t+step/2, lo, hi)
	}
	return clamp(cur, lo, hi)
}

// fitDetail holds the detail's rows for what it shows now (the wide
// layout) and lays the panes out again when they change. The open
// composer, which takes the detail's place, gets the most.
func (m *Model) fitDetail() {
	if !m.wide {
		return
	}
	body := m.height - 2
	lo, hi, step := detailBounds(body)
	need := len(m.detail.lines) + 1 // and the title
	if m.composer.open {
		need = body
	}
	if rows := holdRows(m.detailRows, need, lo, hi, step); rows != m.detailRows {
		m.detailRows = rows
		m.layout()
		m.frames.sync()
		m.detail.refresh(m.frames.SelectedSeq())
	}
}

// clamp bounds v to [lo, hi] (lo wins when hi < lo).
func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }
