// Package report is what a run of linesman concludes: the JSON report schema
// that scripts and CI read, the human text report, the headless exit-status
// policy ([SignalStatus] and [Report.ExitStatus]) and the shell quoting of
// a command for reading ([ShellJoin]), and the checks of a finished run
// beyond the protocol: its [Policy] (check's --expect-tool and the like) and
// its drift from a recorded [Baseline].
//
// It reads a [eventlog.Log] and its [eventlog.Tracker]; it starts no process
// and keeps no bookkeeping of its own.
package report

import (
	"encoding/json"
	"io"
	"iter"
	"slices"
	"strconv"
	"syscall"
	"time"

	"linesman/session/eventlog"
	"linesman/session/hosts"
	"linesman/wire"
)

// A Report is what the headless modes print: one session summed up, built
// from the event Log, the Tracker's requests and what the handshake learned.
// Its JSON form is a stable schema that scripts and CI read: fields may be
// added, never renamed (see docs/report.md, "The JSON report").
type Report struct {
	Linesman        string          `json:"linesman"`
	Mode            string          `json:"mode,omitempty"`
	Command         []string        `json:"command"`
	Era             string          `json:"era"`
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      json.RawMessage `json:"serverInfo"`
	Process         Process         `json:"process"`
	Stderr          []string        `json:"stderr"`
	// StderrLines counts every stderr line of the session; Stderr holds at
	// most the last Meta.StderrLimit of those the log retained.
	StderrLines int `json:"stderrLines"`
	// Frames, Requests and Findings list what the log retained (all of it
	// unless Dropped says otherwise); Totals and Summary count everything.
	Frames   []Frame   `json:"frames"`
	Requests []Request `json:"requests"`
	Findings []Finding `json:"findings"`
	// Host counts the findings that hold the host (the client side) at
	// fault: the host section ([wire.PartyOf]).
	Host Host `json:"host"`
	// Latency sums up the time of the client's requests per method, from
	// every request listed that ended (p50, p95, max, count).
	Latency []MethodLatency `json:"latency"`
	// LatencyByTool is the same of tools/call, per tool.
	LatencyByTool []MethodLatency `json:"latencyByTool"`
	// Rules says, per family of rules, whether it held, was broken or was
	// not observed in the session.
	Rules   []Rule  `json:"rules"`
	Summary Summary `json:"summary"`
	Totals  Totals  `json:"totals"`
	// Notes are what linesman itself logged: era decisions, restarts. The
	// retention budget never drops them.
	Notes   []Note   `json:"linesmanNotes"`
	Dropped *Dropped `json:"dropped,omitempty"`
	// Definitions are the tools, prompts and resources the server listed
	// (absent when it listed none): what linesman diff compares.
	Definitions *Definitions `json:"definitions,omitempty"`
	// Error is a failure of linesman's own run, when there was one.
	Error string `json:"error,omitempty"`
	// Interrupted is set when linesman was interrupted (^C, SIGTERM,
	// SIGHUP): it stopped early and exits with [SignalStatus] of the signal
	// InterruptedBy names (130 when it names none).
	Interrupted bool `json:"interrupted,omitempty"`
	// Seconds is how long the run took, start to exit, for the CI reports
	// (0 when the report was not made by a run: a capture, --from). It is
	// not in the JSON report, which a capture's export reproduces exactly.
	Seconds float64 `json:"-"`
	// InterruptedBy names the signal that interrupted the run ("SIGTERM").
	InterruptedBy string `json:"interruptedBy,omitempty"`

	// indexed: Frames were built from a log, in its order (frameAt finds
	// them); false for a report read back from JSON.
	indexed bool
	// procFold folds the process events of a log that has no projection
	// (nil when the projection tells the process status).
	procFold  *eventlog.ProcessStatus
	stderrAll []string // every retained stderr line (the text report shows a tail)
	// hostSection: Meta.HostSection.
	hostSection bool
	// retained counts the frames the log retained, listed or not
	// (Meta.FindingFrames).
	retained int
	// lister lists, while FromLog runs with Meta.FindingFrames, a frame
	// that a finding logged later points at (nil otherwise).
	lister *frameLister
}

// Meta is what a report needs that the log does not hold. The handshake
// facts (era, protocol version, serverInfo) are not here: they are the
// projection's ([eventlog.Tracker.Handshake]), read from the tracker.
type Meta struct {
	Mode    string   // "check", "send", "export", ...
	Command []string // the server's argv
	// StderrLimit bounds the stderr lines in the JSON report (the last
	// ones are kept); 0 means 1000, negative means no limit.
	StderrLimit int
	// FrameText puts each frame's text into the report, whole, or cut at
	// FrameTextLimit bytes when that is positive (an explicit cap: send's
	// --max-text), which TextTruncated then says.
	FrameText      bool
	FrameTextLimit int
	// Error is a failure of linesman's own run (the handshake never
	// finished, the server could not be started), shown in the report.
	Error string
	// Interrupted says linesman was interrupted and stopped early;
	// InterruptSignal is the signal that did it (0: unknown). The report's
	// exit status is then [SignalStatus] of it.
	Interrupted     bool
	InterruptSignal syscall.Signal
	// HostSection has the text report show the host section even when
	// it is empty (check --from: a recording's client is a host).
	HostSection bool
	// Applied names the CI rule families the run applied (wire.FamilyPolicy
	// when a policy flag was given, wire.FamilyDrift with a baseline): they
	// are listed in Rules, held when none of their findings was raised.
	Applied []string
	// FindingFrames lists in Frames only the frames a finding points at:
	// all that the text report (send's aside: it lists every frame),
	// JUnit and SARIF read. The JSON report lists every frame, so a run
	// that writes it leaves this false. (Under a flood, the list of every
	// frame was a tenth of a check's CPU, for a text report that shows
	// none of them.)
	FindingFrames bool
}

// FromLog builds a report from a log, the tracker that saw its frames (nil:
// no requests list and no handshake facts) and meta. It is what Build uses,
// and what capture uses to export findings from a capture file in the same
// schema. Pairing and handshake facts come from the tracker, as the UI
// reads them.
func FromLog(log *eventlog.Log, tr *eventlog.Tracker, meta Meta) Report {
	var hs eventlog.Handshake
	if tr != nil {
		hs = tr.Handshake()
	}
	r := Report{
		Linesman:        eventlog.Version,
		Mode:            meta.Mode,
		Command:         hosts.RedactCommand(meta.Command), // reports are shared
		Era:             hs.Era.String(),
		ProtocolVersion: hs.ProtocolVersion,
		ServerInfo:      hs.ServerInfo,
		Stderr:          []string{},
		Frames:          []Frame{},
		Requests:        []Request{},
		Findings:        []Finding{},
		Host:            Host{Codes: []string{}},
		Latency:         []MethodLatency{},
		LatencyByTool:   []MethodLatency{},
		Notes:           []Note{},
		Error:           meta.Error,
		hostSection:     meta.HostSection,
		Interrupted:     meta.Interrupted,
		InterruptedBy:   stopSignalNames[meta.InterruptSignal],
		indexed:         true,
	}
	if r.Command == nil {
		r.Command = []string{}
	}
	if len(r.ServerInfo) == 0 || !json.Valid(r.ServerInfo) {
		r.ServerInfo = json.RawMessage("null")
	}
	textLimit := meta.FrameTextLimit
	if tr == nil {
		r.procFold = &eventlog.ProcessStatus{}
	}

	r.addLog(log, meta, textLimit)

	if tr != nil {
		r.Process = processBlock(tr.Process())
	} else {
		r.Process = processBlock(*r.procFold)
	}
	if tr != nil {
		r.Requests = slices.Grow(r.Requests, tr.NumRequests()) // not doubled past a million
		r.addRequests(tr.EachRequest())
		r.Latency, r.LatencyByTool = latencyOfTracker(tr)
		if d := DefinitionsOf(tr); len(d.Listed) > 0 {
			r.Definitions = d
		}
	}
	r.keepStderr(meta.StderrLimit)
	r.addTotals(log, tr)
	r.addRules(tr, meta.Applied)
	return r
}

// addLog adds what the log holds: its frames (all of them, or with
// Meta.FindingFrames those a finding points at) and the findings on them
// and apart, its stderr, and (without a tracker) the process events.
func (r *Report) addLog(log *eventlog.Log, meta Meta, textLimit int) {
	first, next := log.Bounds()
	// Read the log in slices so that a huge log is not copied at once, into
	// one buffer (a fresh one a slice was a tenth of a flood's report).
	const chunk = 4096
	buf := make([]eventlog.Event, 0, min(next-first, chunk))
	// Frames and Findings are sized first, by the log's count of what it
	// holds: grown from empty, Frames were a fifth of judging a recorded
	// flood; sized by the number of events, they were 100 MB unused for a
	// log of a million timeouts' findings, and Findings doubled past it; a
	// pass over the log to count them read every frame twice.
	kept := log.Kept()
	frames, findings := max(kept.Frames, 0), max(kept.Findings, 0)
	if meta.FindingFrames {
		r.lister = &frameLister{log: log, meta: meta}
	} else {
		r.Frames = make([]Frame, 0, frames)
	}
	r.Findings = make([]Finding, 0, findings)
	for from := first; from < next; from += chunk {
		to := min(from+chunk, next)
		if r.lister == nil {
			buf = log.AppendRange(buf[:0], from, to)
		} else {
			// The frames without a finding are not listed: the log
			// leaves them out, and they are counted, never read.
			var skipped int
			buf, skipped = log.AppendListed(buf[:0], from, to)
			r.retained += skipped
		}
		for _, ev := range buf {
			if r.lister != nil {
				r.lister.passed = ev.Seq - 1 // every frame before ev was come to
			}
			r.addEvent(ev, meta, textLimit)
		}
		if r.lister != nil {
			r.lister.passed = to - 1
		}
	}
	r.lister = nil
}

// addTotals fills the counts of the whole session (totals, summary,
// stderrLines), the notes, and what the retention budget dropped.
func (r *Report) addTotals(log *eventlog.Log, tr *eventlog.Tracker) {
	t := log.Totals()
	r.Totals = Totals{
		Frames:      ByDir{C2S: int64(t.Frames[wire.ClientToServer]), S2C: int64(t.Frames[wire.ServerToClient])},
		Bytes:       ByDir{C2S: t.Bytes[wire.ClientToServer], S2C: t.Bytes[wire.ServerToClient]},
		StderrLines: int(t.StderrLines),
		Requests:    map[string]int{},
		Findings:    t.Findings,
	}
	if r.Totals.Findings == nil {
		r.Totals.Findings = map[string]int{}
	}
	if tr != nil {
		for state, n := range tr.RequestCounts() {
			r.Totals.Requests[state.String()] = n
		}
	}
	r.StderrLines = r.Totals.StderrLines
	r.Summary = Summary{
		Errors:   t.Severities[wire.SeverityError],
		Warnings: t.Severities[wire.SeverityWarning],
		Notes:    t.Severities[wire.SeverityNote],
		Frames:   int(r.Totals.Frames.C2S + r.Totals.Frames.S2C),
	}
	notes, lost := log.Notes()
	for _, ev := range notes {
		if ev.IsNote() {
			r.Notes = append(r.Notes, Note{Seq: ev.Seq, Time: reportTime(ev.Wall), Text: ev.Note})
		}
	}
	listed := 0
	for _, n := range t.Findings {
		listed += n
	}
	listed -= len(r.Findings)
	if n, b := log.Dropped(); n > 0 || lost > 0 {
		r.Dropped = &Dropped{Events: n, Bytes: b, Frames: r.Summary.Frames - r.retained, Findings: listed, Notes: lost}
	}
}

// addRequests lists the tracker's requests and marks each answer frame
// with the request it answered (as the tracker paired them).
func (r *Report) addRequests(reqs iter.Seq[eventlog.Request]) {
	for q := range reqs {
		rq := Request{
			Dir:    q.Dir.String(),
			ID:     idJSON(q.ID),
			Method: q.Method,
			State:  q.State.String(),
			Seq:    q.Seq,
			Late:   q.Late,
			Tool:   q.Tool(),
		}
		if q.CallSeq != 0 {
			cs := q.CallSeq
			rq.Call = &cs
		}
		if q.State != eventlog.ReqInFlight && q.EndedAt >= q.SentAt {
			ms := durationMs(q.EndedAt - q.SentAt)
			rq.Ms = &ms
		}
		if q.ResponseSeq != 0 {
			rs := q.ResponseSeq
			rq.ResponseSeq = &rs
			if i, ok := r.frameAt(rs); ok {
				r.Frames[i].InReplyTo = &ReplyTo{Seq: q.Seq, Method: q.Method}
			}
		}
		r.Requests = append(r.Requests, rq)
	}
}

// keepStderr keeps the last limit stderr lines (0: 1000, negative: all).
func (r *Report) keepStderr(limit int) {
	if limit == 0 {
		limit = 1000
	}
	r.StderrLines = len(r.stderrAll)
	if limit > 0 && len(r.stderrAll) > limit {
		r.Stderr = append(r.Stderr, r.stderrAll[len(r.stderrAll)-limit:]...)
	} else {
		r.Stderr = append(r.Stderr, r.stderrAll...)
	}
}

// addEvent folds one log event into the report.
func (r *Report) addEvent(ev eventlog.Event, meta Meta, textLimit int) {
	switch ev.Type {
	case eventlog.EventFrame:
		if ev.Frame != nil {
			r.addFrame(ev, meta, textLimit)
		}
	case eventlog.EventFinding:
		if ev.Finding != nil {
			r.addLoggedFinding(ev.Finding)
		}
	case eventlog.EventStderr:
		if ev.Stderr != nil {
			r.stderrAll = append(r.stderrAll, string(ev.Stderr.Content))
		}
	case eventlog.EventProcess:
		if ev.Process != nil && r.procFold != nil {
			r.procFold.Fold(ev.Process, ev.At)
		}
	}
}

// addLoggedFinding adds a finding logged apart from a frame; one that
// points at a frame is listed on it too.
func (r *Report) addLoggedFinding(lf *eventlog.LoggedFinding) {
	var seq *uint64
	wrote := lf.Dir // who wrote what it concerns, for its fix
	if lf.FrameSeq != 0 {
		s := lf.FrameSeq
		seq = &s
		if i, ok := r.frameFor(s); ok {
			r.Frames[i].Findings = append(r.Frames[i].Findings, lf.Code)
			if wrote == 0 {
				wrote = r.Frames[i].wrote
			}
		}
	}
	var dir *string
	if lf.Dir != 0 {
		dir = dirName(lf.Dir)
	}
	r.addFinding(lf.Finding, seq, dir, wrote, false)
}

// dirNames spells each direction once, for the Dir of the findings that
// name one: a string of its own each was 13 MB of a million timeouts.
// Nothing changes a report's strings through its pointers.
var dirNames = func() (out [3]string) {
	for d := range out {
		out[d] = wire.Dir(d).String()
	}
	return out
}()

func dirName(d wire.Dir) *string {
	if int(d) < len(dirNames) {
		return &dirNames[d]
	}
	s := d.String()
	return &s
}

// processBlock is the report's process block: the projection's process
// status (eventlog.ProcessStatus), in the report's spelling.
func processBlock(p eventlog.ProcessStatus) Process {
	out := Process{Restarts: p.Restarts, Pid: p.Pid}
	if !p.Seen {
		return out
	}
	out.State = p.State.String()
	if p.State == eventlog.StateExited {
		if p.Signal == "" && p.ExitCode >= 0 {
			c := p.ExitCode
			out.ExitCode = &c
		}
		if p.Signal != "" {
			s := p.Signal
			out.Signal = &s
		}
		e := p.Step.String()
		out.EndedBy = &e
		out.ShutdownMs = durationMs(p.ShutdownTook)
		out.AfterEOF, out.EndedByHost = p.AfterEOF, p.ByHost
	}
	return out
}

// addFinding lists a finding (Summary and Totals count them all, listed or
// not); wrote is the direction of what it concerns, which chooses its fix
// ([wire.Info.FixFor]) and, with onFrame (raised on that frame as it was
// judged), its party ([wire.PartyOf]).
func (r *Report) addFinding(f wire.Finding, seq *uint64, dir *string, wrote wire.Dir, onFrame bool) {
	sev := f.Severity
	party := wire.PartyOf(f.Code, wrote, onFrame)
	rf := Finding{Code: f.Code, Seq: seq, Dir: dir, Party: party.String(), Message: f.Message}
	if info, ok := wire.Lookup(f.Code); ok {
		if sev == 0 {
			sev = info.Severity
		}
		rf.Title = info.Title
		rf.Fix = info.FixFor(wrote)
	}
	rf.Severity = sev.String()
	r.Findings = append(r.Findings, rf)
	if party == wire.PartyHost {
		r.Host.count(rf)
	}
}

// count adds a host finding to the block.
func (h *Host) count(f Finding) {
	switch f.Severity {
	case "error":
		h.Errors++
	case "warning":
		h.Warnings++
	default:
		h.Notes++
	}
	if !slices.Contains(h.Codes, f.Code) {
		h.Codes = append(h.Codes, f.Code)
	}
}

// ExitStatus is the headless exit status the report calls for:
// [SignalStatus] when linesman was interrupted, 1 when any finding is an error (or linesman's
// own run failed), else 0.
func (r *Report) ExitStatus() int {
	status, _ := r.ExitStatusAt("error")
	return status
}

// FailOnLevels are the values of --fail-on, most severe first.
var FailOnLevels = []string{"error", "warning", "note"}

// ExitStatusAt is the exit status under --fail-on failOn: 1 when a finding
// of that severity or a more severe one was raised (or the run failed),
// [SignalStatus] when interrupted, else 0. ok is false for an unknown level.
func (r *Report) ExitStatusAt(failOn string) (status int, ok bool) {
	count := 0
	switch failOn {
	case "note":
		count += r.Summary.Notes
		fallthrough
	case "warning":
		count += r.Summary.Warnings
		fallthrough
	case "error":
		count += r.Summary.Errors
	default:
		return 0, false
	}
	if r.Interrupted {
		return r.interruptStatus(), true
	}
	if count > 0 || r.Error != "" {
		return 1, true
	}
	return 0, true
}

// WriteJSON writes the report as one indented JSON document and a newline.
// Controls that encoding/json leaves raw (C1, bidi and other format
// controls, DEL) are \u escapes ([wire.InertJSON]): the report is read on
// terminals too.
func (r *Report) WriteJSON(w io.Writer) error {
	return writeIndented(w, r)
}

// jsonNull is the id of a frame that has none, shared by all of them (a
// flood of notifications is most frames; no one writes to a report's ids).
var jsonNull = json.RawMessage("null")

// idJSON renders an id as the JSON report spells it: a number, a string, or
// null when absent.
func idJSON(id wire.ID) json.RawMessage {
	switch id.Kind {
	case wire.IDInt:
		return json.RawMessage(strconv.FormatInt(id.Num, 10))
	case wire.IDString:
		b, _ := json.Marshal(id.Str)
		return b
	case wire.IDOther:
		if json.Valid([]byte(id.Str)) {
			return json.RawMessage(id.Str)
		}
		b, _ := json.Marshal(id.Str)
		return b
	default:
		return jsonNull
	}
}

// reportTimeLayout is RFC 3339 with nanoseconds always spelled out.
const reportTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// reportTime spells t in reportTimeLayout. A report spells the time of
// every frame, so the years time.Format would spell alike are spelled here
// directly (Format parses its layout each time: 5% of reading a capture).
func reportTime(t time.Time) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.Format(reportTimeLayout)
	}
	hour, minute, sec := t.Clock()
	var b [30]byte
	digits := func(at, n, v int) {
		for i := at + n - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	digits(0, 4, year)
	b[4] = '-'
	digits(5, 2, int(month))
	b[7] = '-'
	digits(8, 2, day)
	b[10] = 'T'
	digits(11, 2, hour)
	b[13] = ':'
	digits(14, 2, minute)
	b[16] = ':'
	digits(17, 2, sec)
	b[19] = '.'
	digits(20, 9, t.Nanosecond())
	b[29] = 'Z'
	return string(b[:])
}

// durationMs is d in milliseconds, rounded to the microsecond.
func durationMs(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}
