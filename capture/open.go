package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Capture is a capture file read back into a live-looking session: its Log
// and Tracker are what a session that had seen the same bytes would hold.
type Capture struct {
	Log     *eventlog.Log
	Tracker *eventlog.Tracker
	Header  Header

	// Records is the number of event records read.
	Records uint64
	// Dropped counts the events the recorder lost to the live log's
	// retention limit ("dropped" records); they are not in Log.
	Dropped uint64
	// Torn is the length in bytes of a last record that was cut short (a
	// recorder killed while writing it) and skipped; 0 when there was none.
	Torn int
	// Skipped describes the records that could not be read (not JSON, a
	// record that contradicts those before it, a line longer than any
	// record can be) and were skipped, so that the rest of the file still
	// opens: the first maxSkippedKept of them; SkippedCount counts all.
	Skipped      []SkippedRecord
	SkippedCount int
}

// SkippedRecord is a line of a capture file that Open skipped.
type SkippedRecord struct {
	Line   int    // its line number in the file, from 1
	Bytes  int    // its length
	Reason string // why it could not be read
}

// Unread says, in one line for a report, what of the file was not read:
// the records skipped (with the first few line numbers and reasons) and a
// torn last record; "" when everything was read.
func (c *Capture) Unread() string {
	var parts []string
	if c.SkippedCount > 0 {
		var first []string
		for _, sk := range c.Skipped[:min(len(c.Skipped), 3)] {
			first = append(first, fmt.Sprintf("line %d: %s", sk.Line, sk.Reason))
		}
		more := ""
		if c.SkippedCount > len(first) {
			more = "; …"
		}
		parts = append(parts, fmt.Sprintf("%d record(s) could not be read and were skipped (%s%s): what this report says of them is missing", c.SkippedCount, strings.Join(first, "; "), more))
	}
	if c.Torn > 0 {
		parts = append(parts, fmt.Sprintf("the last record was cut short (%d bytes) and was skipped", c.Torn))
	}
	return strings.Join(parts, "; ")
}

// maxSkippedKept bounds the skipped records described one by one.
const maxSkippedKept = 100

// skip records that the line lineNo of n bytes was skipped, and why.
func (rd *reader) skip(lineNo, n int, reason string) {
	rd.c.SkippedCount++
	if len(rd.c.Skipped) < maxSkippedKept {
		rd.c.Skipped = append(rd.c.Skipped, SkippedRecord{Line: lineNo, Bytes: n, Reason: reason})
	}
}

// ErrNotCapture is returned (wrapped) by Open and Follow for a file that is
// not a linesman capture.
var ErrNotCapture = errors.New("not a linesman capture")

// OpenOptions tune how a capture is read back.
type OpenOptions struct {
	// Retention is the memory budget of the refilled Log (0: eventlog.DefaultRetention).
	Retention int64
	// NoProtocolRules rebuilds the findings with the bare fold, without the
	// protocol rules (session/protocol): what linesman 0.1.0 judged.
	NoProtocolRules bool
	// NoSchemaJudge rebuilds them without the schema judge (schema-invalid):
	// to measure what it costs (BenchmarkOpenSchemaRatio).
	NoSchemaJudge bool
}

// Open reads the capture at path into a fresh eventlog.Log, as a live session
// would have filled it: the header's start time is the log's start, every
// event is appended with its recorded time, and every frame's findings are
// recomputed from its raw bytes by the wire package and a fresh
// eventlog.Tracker. A torn last record is skipped and reported in Torn.
func Open(path string) (*Capture, error) {
	return OpenWith(path, OpenOptions{})
}

// OpenWith is Open with options.
func OpenWith(path string, opts OpenOptions) (*Capture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	defer f.Close()
	rd := newReader(f, path, opts)
	if err := rd.poll(); err != nil {
		if errors.Is(err, ErrNotCapture) && rd.c == nil && rd.line == 2 {
			// Not a capture from its first line: a log another tool wrote?
			c, ferr := openForeign(path, opts)
			if errors.Is(ferr, ErrUnknownFormat) {
				return nil, fmt.Errorf("%w, nor a conversation log linesman reads (%s)", err, knownLogs)
			}
			return c, ferr
		}
		return nil, err
	}
	if rd.c == nil {
		return nil, fmt.Errorf("capture: %s: %w (no complete header record)", path, ErrNotCapture)
	}
	if err := rd.end(); err != nil {
		return nil, err
	}
	return rd.c, nil
}

// reader turns the bytes of a capture file into log events. It keeps the
// partial last line (if any) pending, so that Follow can wait for its end
// and Open can report it as torn.
type reader struct {
	src    io.Reader
	path   string
	opts   OpenOptions
	offset int64 // bytes read from src so far
	line   int   // number of the next line in the file, from 1, for errors
	lines  lineBuffer
	rec    rawRecord // the record being decoded, reused

	c       *Capture
	lastSeq uint64 // the writer's Seq of the last event read

	queue       []eventlog.Event // events read, their frames not rebuilt yet
	prepared    []wire.Prepared  // what the decoder classified of their frames, by index (see alignPrepared)
	rebuilder   rebuilder
	exitPending bool          // an exit was read; the tracker is told with the next event
	exitAt      time.Duration // when it was logged
	segments    []seqShift    // how the writer's Seqs map to the refilled log's
	gaps        [2][]byte     // unjudged bytes of a gap not ended yet, by direction (unjudged.go)
	maxFrame    int
	version     int // the file's format version
	// ended: an "end" record was applied (the process exited).
	ended bool
}

// seqShift says that the writer's Seqs from From on are Shift more than
// the refilled log's, and that the Missing writer's Seqs just before From
// have no event there (dropped, or an unjudged piece). Shift is negative
// after a record that became several events (the frames of a gap).
type seqShift struct {
	From    uint64
	Shift   int64
	Missing uint64
}

// record handles one complete line of the file.
func (rd *reader) record(b []byte) error {
	lineNo := rd.line
	rd.line++
	if rd.c == nil {
		return rd.header(b)
	}
	// A bad record is skipped, with its line number, not fatal: one bad
	// line must not make the rest of a shared file unreadable.
	rec := &rd.rec
	lent, err := decodeLending(b, rec)
	if err != nil {
		rd.skip(lineNo, len(b), err.Error())
		return nil
	}
	queued := len(rd.queue)
	if err := rd.event(rec); err != nil {
		rd.skip(lineNo, len(b), fmt.Sprintf("%s record: %v", rec.Type, err))
	}
	if lent > 0 && len(rd.queue) > queued {
		lb := &rd.lines
		lb.lent = append(lb.lent, queued)
		lb.lentBytes += lent
	}
	return nil
}

func (rd *reader) header(b []byte) error {
	var h headerRecord
	if err := json.Unmarshal(b, &h); err != nil || h.Type != "header" || h.Format != FormatName {
		return fmt.Errorf("capture: %s: %w (the first line is not a %s header)", rd.path, ErrNotCapture, FormatName)
	}
	if h.Version < 1 {
		// Not newer, broken: "upgrade linesman" would send the user astray.
		return fmt.Errorf("capture: %s: %w (its header has no valid format version: %d)", rd.path, ErrNotCapture, h.Version)
	}
	if h.Version > FormatVersion {
		by := "a newer linesman"
		if h.Linesman != "" {
			by = "linesman " + inert(h.Linesman) // the file's word: inert
		}
		return fmt.Errorf("capture: %s is format version %d, written by %s; this linesman (%s) reads versions up to %d: upgrade linesman",
			rd.path, h.Version, by, eventlog.Version, FormatVersion)
	}
	rd.maxFrame = h.MaxFrame
	rd.version = h.Version
	h.Command = commandBytes(h.Command, h.CommandB64)
	rd.c = &Capture{
		Log:     eventlog.NewLogAt(h.Start, rd.opts.Retention),
		Tracker: eventlog.NewTracker(eventlog.TrackerOptions{Timeout: time.Duration(h.TimeoutNs), NoProtocolRules: rd.opts.NoProtocolRules, NoSchemaJudge: rd.opts.NoSchemaJudge}),
		Header:  h.Header,
	}
	return nil
}

// event appends one event record to the log.
func (rd *reader) event(rec *rawRecord) error {
	c := rd.c
	if rec.Type == "dropped" {
		if rec.FromSeq <= rd.lastSeq {
			return fmt.Errorf("fromSeq %d is not after the last event (%d)", rec.FromSeq, rd.lastSeq)
		}
		rd.skipTo(rec.FromSeq + rec.Count)
		c.Dropped += rec.Count
		return nil
	}
	if rec.Type == "unjudged" {
		return rd.unjudged(rec)
	}
	ev, pre, known, err := rd.decode(rec)
	if err != nil || !known {
		// An unknown record type is from a newer minor revision: skip it,
		// keep the rest.
		return err
	}
	if rec.Seq <= rd.lastSeq {
		return fmt.Errorf("seq %d is not after the last event (%d)", rec.Seq, rd.lastSeq)
	}
	if rec.Seq != rd.lastSeq+1 {
		// A gap without a "dropped" record: account for it all the same.
		rd.skipTo(rec.Seq)
	}
	rd.lastSeq = rec.Seq
	c.Records++
	if pre.OK() {
		rd.alignPrepared()
		rd.prepared = append(rd.prepared, pre)
	}
	rd.queue = append(rd.queue, ev)
	return nil
}

// alignPrepared makes prepared as long as the queue: what was prepared of
// each queued frame, by its index (zero for the rest).
func (rd *reader) alignPrepared() {
	for len(rd.prepared) < len(rd.queue) {
		rd.prepared = append(rd.prepared, wire.Prepared{})
	}
}

// flush rebuilds the queued frames and appends the queued events in order.
func (rd *reader) flush() {
	rd.lendOrCopy()
	if len(rd.queue) == 0 {
		return
	}
	rd.alignPrepared()
	rd.rebuilder.rebuild(rd.queue, rd.prepared, rd.maxFrame)
	clear(rd.prepared)
	rd.prepared = rd.prepared[:0]
	for i := range rd.queue {
		rd.append(rd.queue[i])
		rd.queue[i] = eventlog.Event{}
	}
	rd.queue = rd.queue[:0]
}

// append adds ev to the log the way a live session does: the tracker
// applies it ([eventlog.Tracker.Apply], the fold's only door) with the Seq it
// is about to get (the reader is the log's only appender, so the next Seq is
// known before the append; Log.AppendWith would stamp the event with the
// clock of now, not the recorded time). What the fold settles on its own (a
// timeout's, an exit's findings) is in the file already, as the live session
// logged it, and is not added twice.
func (rd *reader) append(ev eventlog.Event) {
	log, tr := rd.c.Log, rd.c.Tracker
	if rd.version < typedClockVersion {
		rd.v2Facts(&ev)
	}
	first, next := log.Bounds()
	if ev.Type == eventlog.EventFrame {
		if outside, passed := tr.Forget(first); passed {
			log.Reserve(outside)
		}
	}
	// A recorded time of zero would make Append read the clock of now.
	if ev.At == 0 {
		ev.At = 1
	}
	ev.Seq = next
	tr.Apply(&ev)
	switch ev.Type {
	case eventlog.EventEnd:
		rd.ended = true
	case eventlog.EventRestart:
		rd.ended = false
	}
	log.Append(ev)
}

// finish settles what the end of the records leaves open. After an exit the
// tracker settled it already (an "end" record), and the live session logged
// what it settled. A log that stops without one (another tool's, a
// recording cut short) is ended here: the fold judges what only the end
// settles, and its findings are logged.
func (rd *reader) finish() {
	if rd.version < typedClockVersion {
		rd.v2Finish()
	}
	rd.frameGaps()
	if rd.ended {
		return
	}
	last := rd.lastAt()
	end := eventlog.Event{Type: eventlog.EventEnd, End: &eventlog.EndEvent{}, At: last}
	for _, lf := range rd.c.Tracker.Apply(&end) {
		rd.append(eventlog.Event{Type: eventlog.EventFinding, At: last, Finding: &lf})
	}
}

// lastAt is the time of the last event in the log (1 when there is none).
func (rd *reader) lastAt() time.Duration {
	log := rd.c.Log
	if first, next := log.Bounds(); next > first {
		if ev, ok := log.Get(next - 1); ok {
			return ev.At
		}
	}
	return 1
}

// skipTo records that the writer's events before seq are missing, so that
// later Seqs (and findings pointing at frames) map onto the refilled log.
func (rd *reader) skipTo(seq uint64) {
	if seq <= rd.lastSeq+1 {
		return
	}
	missing := seq - 1 - rd.lastSeq
	rd.shift(seq, int64(missing), missing)
	rd.lastSeq = seq - 1
}

// shift records that the writer's Seqs from "from" on are by more than
// the refilled log's, the missing ones before it without an event.
func (rd *reader) shift(from uint64, by int64, missing uint64) {
	if n := len(rd.segments); n > 0 {
		by += rd.segments[n-1].Shift
	}
	rd.segments = append(rd.segments, seqShift{From: from, Shift: by, Missing: missing})
}

// mapSeq maps a writer's Seq onto the refilled log's, 0 for an event that
// was dropped.
func (rd *reader) mapSeq(seq uint64) uint64 {
	i := sort.Search(len(rd.segments), func(i int) bool { return rd.segments[i].From > seq })
	var shift int64
	if i > 0 {
		shift = rd.segments[i-1].Shift
	}
	if i < len(rd.segments) {
		if s := rd.segments[i]; seq >= s.From-s.Missing {
			return 0
		}
	}
	return uint64(int64(seq) - shift)
}
