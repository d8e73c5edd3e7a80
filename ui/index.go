package ui

import (
	"bytes"
	"encoding/json"
	"sort"
	"time"

	"linesman/session"
	"linesman/wire"
)

// index is what the UI knows about the log, kept up to date incrementally:
// each batch of new events is read once (ingest), and everything the panes
// need afterwards is a slice lookup or a map hit. It holds Seqs, not events;
// rows fetch their event from the log when they are drawn, so rendering
// costs what is on screen, not what is in the log.
//
// An index is owned by the UI goroutine (Update); it is not safe for
// concurrent use.
type index struct {
	log  *session.Log
	next uint64 // the next Seq to ingest

	frames   []uint64 // Seqs of frame events, in log order
	filtered []uint64 // the frames matching filt (when filt != nil)
	filt     *filter
	events   []uint64 // Seqs of stderr, process, note and loose finding events (the stderr pane)

	// later holds findings logged after their frame (timeouts, unflushed
	// output), by the frame's Seq.
	later map[uint64][]wire.Finding
	// flagged holds the Seqs of frames with at least one finding, in order,
	// for next/previous finding.
	flagged []uint64

	counts       [4]int // findings per severity (index wire.Severity)
	bytesC2S     int64
	bytesS2C     int64
	bytesStderr  int64
	frameCount   [3]int // per wire.Dir
	stderrLines  int
	firstDropped uint64
	prunedAt     uint64 // first retained Seq at the last prune

	// Request/response pairing, both directions: request Seq <-> response Seq.
	pair    map[uint64]uint64
	open    map[reqKey]uint64 // requests not answered yet (fallback in-flight list)
	usedIDs map[wire.ID]bool  // ids the client used on requests
	maxID   int64             // largest integer id the client used

	proc procView
	hs   handshakeView
	// tools seen in the last tools/list result, for composer skeletons.
	tools []toolInfo
	// watch remembers the client requests whose answers the UI reads
	// (handshake, tools/list), by id.
	watch map[reqKey]string
}

type reqKey struct {
	dir wire.Dir // the direction of the request
	id  wire.ID
}

// procView is the process as the log tells it.
type procView struct {
	seen         bool
	State        session.ProcessState
	Step         session.ShutdownStep
	Pid          int
	StartedAt    time.Duration
	ExitedAt     time.Duration
	ExitCode     int
	Signal       string
	ShutdownTook time.Duration
	Detail       string
	Restarts     int
	Steps        []string // shutdown steps as they happened, with their times
}

// handshakeView is what the handshake told: era, version, server.
type handshakeView struct {
	Era             session.Era
	ProtocolVersion string
	ServerName      string
	ServerVersion   string
}

type toolInfo struct {
	Name   string
	Schema json.RawMessage
}

func newIndex(log *session.Log) *index {
	first, _ := log.Bounds()
	return &index{
		log:     log,
		next:    first,
		later:   map[uint64][]wire.Finding{},
		pair:    map[uint64]uint64{},
		open:    map[reqKey]uint64{},
		usedIDs: map[wire.ID]bool{},
		watch:   map[reqKey]string{},
	}
}

// ingestBatch bounds how many events one ingest copies out of the log at a
// time, so the lock is held briefly even when the log grew by millions.
const ingestBatch = 4096

// ingest reads every event appended since the last call. It returns whether
// anything changed.
func (x *index) ingest() bool {
	first, next := x.log.Bounds()
	changed := false
	if first > x.next {
		x.next = first // dropped before we saw them
	}
	for x.next < next {
		to := min(next, x.next+ingestBatch)
		for _, ev := range x.log.Range(x.next, to) {
			x.add(&ev)
		}
		x.next = to
		changed = true
	}
	if first > x.firstDropped {
		x.firstDropped = first
		x.frames = trimBefore(x.frames, first)
		x.filtered = trimBefore(x.filtered, first)
		x.events = trimBefore(x.events, first)
		x.flagged = trimBefore(x.flagged, first)
		x.prune(first)
		changed = true
	}
	return changed
}

// prune forgets pairings and late findings of dropped frames, now and then
// (each prune walks the maps, so it waits until a quarter of what they hold
// may be stale).
func (x *index) prune(first uint64) {
	if first-x.prunedAt < uint64(len(x.frames)/4+1024) {
		return
	}
	x.prunedAt = first
	for k, v := range x.pair {
		if k < first && v < first {
			delete(x.pair, k)
		}
	}
	for k := range x.later {
		if k < first {
			delete(x.later, k)
		}
	}
}

func trimBefore(s []uint64, first uint64) []uint64 {
	i := sort.Search(len(s), func(i int) bool { return s[i] >= first })
	if i == 0 {
		return s
	}
	return s[i:]
}

func (x *index) add(ev *session.Event) {
	switch ev.Type {
	case session.EventFrame:
		x.addFrame(ev)
	case session.EventStderr:
		x.events = append(x.events, ev.Seq)
		x.stderrLines++
		if ev.Stderr != nil {
			x.bytesStderr += ev.Stderr.Length + int64(len(ev.Stderr.Term.Bytes()))
		}
	case session.EventProcess:
		x.events = append(x.events, ev.Seq)
		x.addProcess(ev)
	case session.EventNote:
		x.events = append(x.events, ev.Seq)
	case session.EventFinding:
		x.events = append(x.events, ev.Seq)
		if f := ev.Finding; f != nil {
			x.counts[sevIndex(f.Severity)]++
			if f.FrameSeq != 0 {
				if len(x.later[f.FrameSeq]) == 0 && !x.frameFlagged(f.FrameSeq) {
					x.insertFlagged(f.FrameSeq)
				}
				x.later[f.FrameSeq] = append(x.later[f.FrameSeq], f.Finding)
			}
		}
	}
}

func sevIndex(s wire.Severity) int {
	if s > wire.SeverityError {
		return int(wire.SeverityError)
	}
	return int(s)
}

func (x *index) frameFlagged(seq uint64) bool {
	i := sort.Search(len(x.flagged), func(i int) bool { return x.flagged[i] >= seq })
	return i < len(x.flagged) && x.flagged[i] == seq
}

func (x *index) insertFlagged(seq uint64) {
	i := sort.Search(len(x.flagged), func(i int) bool { return x.flagged[i] >= seq })
	x.flagged = append(x.flagged, 0)
	copy(x.flagged[i+1:], x.flagged[i:])
	x.flagged[i] = seq
}

func (x *index) addFrame(ev *session.Event) {
	f := ev.Frame
	if f == nil {
		return
	}
	x.frames = append(x.frames, ev.Seq)
	if x.filt != nil && x.filt.match(ev, x) {
		x.filtered = append(x.filtered, ev.Seq)
	}
	if len(f.Findings) > 0 {
		x.flagged = append(x.flagged, ev.Seq)
		for _, fd := range f.Findings {
			x.counts[sevIndex(fd.Severity)]++
		}
	}
	if int(ev.Dir) < len(x.frameCount) {
		x.frameCount[ev.Dir]++
	}
	switch ev.Dir {
	case wire.ClientToServer:
		x.bytesC2S += f.Size()
	case wire.ServerToClient:
		x.bytesS2C += f.Size()
	}

	m := &f.Msg
	switch {
	case m.Kind == wire.KindRequest && m.ID.IsValid():
		x.open[reqKey{ev.Dir, m.ID}] = ev.Seq
		if ev.Dir == wire.ClientToServer {
			x.usedIDs[m.ID] = true
			if m.ID.Kind == wire.IDInt && m.ID.Num > x.maxID {
				x.maxID = m.ID.Num
			}
			switch m.Method {
			case "initialize", "server/discover", "tools/list":
				x.watch[reqKey{ev.Dir, m.ID}] = m.Method
			}
		}
	case m.Kind.IsResponse():
		k := reqKey{opposite(ev.Dir), m.ID}
		if req, ok := x.open[k]; ok {
			delete(x.open, k)
			x.pair[req] = ev.Seq
			x.pair[ev.Seq] = req
		}
		if method, ok := x.watch[k]; ok {
			delete(x.watch, k)
			x.answered(method, f)
		}
	case m.Kind == wire.KindNotification && m.Method == "notifications/cancelled" && ev.Dir == wire.ClientToServer:
		delete(x.open, reqKey{wire.ClientToServer, m.RequestID})
	}
}

func opposite(d wire.Dir) wire.Dir {
	if d == wire.ClientToServer {
		return wire.ServerToClient
	}
	return wire.ClientToServer
}

// answered reads what the UI needs from the answer to one of its own
// handshake or listing requests.
func (x *index) answered(method string, f *wire.Frame) {
	if f.Msg.Kind != wire.KindResult {
		return
	}
	var r struct {
		Result struct {
			ProtocolVersion   string   `json:"protocolVersion"`
			SupportedVersions []string `json:"supportedVersions"`
			ServerInfo        struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(frameText(f), &r) != nil {
		return
	}
	switch method {
	case "initialize":
		x.hs.Era = session.EraLegacy
		x.hs.ProtocolVersion = r.Result.ProtocolVersion
		x.hs.ServerName, x.hs.ServerVersion = r.Result.ServerInfo.Name, r.Result.ServerInfo.Version
	case "server/discover":
		x.hs.Era = session.EraModern
		x.hs.ProtocolVersion = r.Result.ProtocolVersion
		if x.hs.ProtocolVersion == "" && len(r.Result.SupportedVersions) > 0 {
			x.hs.ProtocolVersion = r.Result.SupportedVersions[0]
		}
		x.hs.ServerName, x.hs.ServerVersion = r.Result.ServerInfo.Name, r.Result.ServerInfo.Version
	case "tools/list":
		x.tools = x.tools[:0]
		for _, t := range r.Result.Tools {
			x.tools = append(x.tools, toolInfo{Name: t.Name, Schema: t.InputSchema})
		}
	}
}

func (x *index) addProcess(ev *session.Event) {
	p := ev.Process
	if p == nil {
		return
	}
	v := &x.proc
	switch p.State {
	case session.StateStarting, session.StateRunning:
		if v.seen && v.State == session.StateExited {
			v.Restarts++
			*v = procView{Restarts: v.Restarts}
			// A restart loses what was in flight.
			clear(x.open)
		}
		if !v.seen || p.State == session.StateStarting {
			v.StartedAt = ev.At
		}
		if p.Detail != "" && v.Detail == "" {
			v.Detail = p.Detail
		}
	case session.StateExiting:
		v.Steps = append(v.Steps, fmtDur(ev.At)+" "+p.Step.String())
	case session.StateExited:
		v.ExitedAt = ev.At
		v.ExitCode, v.Signal, v.ShutdownTook = p.ExitCode, p.Signal, p.ShutdownTook
		clear(x.open)
	}
	v.seen = true
	v.State = p.State
	v.Step = p.Step
	if p.Pid != 0 {
		v.Pid = p.Pid
	}
}

// view is the frame list the frames pane shows: all frames, or the filtered ones.
func (x *index) view() []uint64 {
	if x.filt != nil {
		return x.filtered
	}
	return x.frames
}

// setFilter replaces the filter and rebuilds the filtered list (the one
// place that costs O(frames): a deliberate user action, not a render).
func (x *index) setFilter(f *filter) {
	x.filt = f
	x.filtered = nil
	if f == nil {
		return
	}
	for lo := 0; lo < len(x.frames); lo += ingestBatch {
		seqs := x.frames[lo:min(len(x.frames), lo+ingestBatch)]
		for _, ev := range x.log.Range(seqs[0], seqs[len(seqs)-1]+1) {
			if ev.Type == session.EventFrame && f.match(&ev, x) {
				x.filtered = append(x.filtered, ev.Seq)
			}
		}
	}
}

// findings returns every finding on the frame: those it was logged with and
// those logged about it later.
func (x *index) findings(ev *session.Event) []wire.Finding {
	late := x.later[ev.Seq]
	if len(late) == 0 {
		return ev.Frame.Findings
	}
	return append(append([]wire.Finding(nil), ev.Frame.Findings...), late...)
}

// worst returns the highest severity of the findings, or 0.
func worst(fs []wire.Finding) wire.Severity {
	var w wire.Severity
	for _, f := range fs {
		w = max(w, f.Severity)
	}
	return w
}

// frameText returns the JSON text of a frame: its lines joined (a
// multi-line frame is one value spread over lines).
func frameText(f *wire.Frame) []byte {
	if len(f.Lines) == 1 {
		return f.Lines[0].Content
	}
	var b bytes.Buffer
	for i, l := range f.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(l.Content)
	}
	return b.Bytes()
}

// nextFreeID is the smallest integer id above every id the client used.
func (x *index) nextFreeID() int64 { return x.maxID + 1 }
