package capture

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// rawRecord is any record as decoded from JSON; which members are set
// depends on Type.
type rawRecord struct {
	Type string `json:"type"`
	Seq  uint64 `json:"seq"`
	At   int64  `json:"at"`

	Dir   string    `json:"dir"`
	Lines []rawLine `json:"lines"` // frame
	rawLine

	State          string `json:"state"` // process
	Step           string `json:"step"`
	Pid            int    `json:"pid"`
	ExitCode       int    `json:"exitCode"`
	Signal         string `json:"signal"`
	ShutdownTookNs int64  `json:"shutdownTookNs"`
	Detail         string `json:"detail"`
	AfterEOF       bool   `json:"afterEOF"`

	Code     string `json:"code"` // finding
	Severity string `json:"severity"`
	Message  string `json:"message"`
	FrameSeq uint64 `json:"frameSeq"`

	Note string `json:"note"`

	Era     string `json:"era"` // era
	Version string `json:"version"`
	// ProbeAbandoned: the session gave up on its era probe (era).
	ProbeAbandoned bool     `json:"probeAbandoned"`
	N              int      `json:"n"` // restart
	Command        []string `json:"command"`

	ByHost bool `json:"byHost"` // stdin-closed
	Exited bool `json:"exited"` // end

	Kind   string          `json:"kind"` // fault
	Spec   string          `json:"spec"`
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`

	Action string `json:"action"` // intercept
	Hold   uint64 `json:"hold"`
	Filter string `json:"filter"`
	Answer string `json:"answer"`

	FromSeq uint64 `json:"fromSeq"` // dropped
	Count   uint64 `json:"count"`

	Last bool `json:"last"` // unjudged: the gap ends here
}

// rawLine is one physical line of a frame record, or a stderr record.
type rawLine struct {
	JSON      json.RawMessage `json:"json"`
	Text      *string         `json:"text"`
	B64       *string         `json:"b64"`
	Term      string          `json:"term"`
	Len       int64           `json:"len"`
	Truncated bool            `json:"truncated"`

	// msg and pre: a frame's line embedded as JSON, classified as it was
	// decoded (wire.PrepareValue); pre is zero when it was not.
	msg wire.Message
	pre wire.Prepared
}

func (l *rawLine) line() (wire.Line, error) {
	var out wire.Line
	switch {
	case l.JSON != nil:
		out.Content = l.JSON
	case l.Text != nil:
		out.Content = []byte(*l.Text)
	case l.B64 != nil:
		b, err := base64.StdEncoding.DecodeString(*l.B64)
		if err != nil {
			return out, fmt.Errorf("bad base64: %w", err)
		}
		out.Content = b
	default:
		return out, errors.New(`a line with none of "json", "text" or "b64"`)
	}
	t, err := parseTerm(l.Term)
	if err != nil {
		return out, err
	}
	out.Term = t
	out.Length = l.Len
	out.Truncated = l.Truncated
	if out.Length < int64(len(out.Content)) {
		return out, fmt.Errorf("len %d is shorter than the %d bytes kept", l.Len, len(out.Content))
	}
	return out, nil
}

// commandBytes is the argv a header's commandB64 holds, byte for byte, when
// it is whole; else command as the JSON strings have it.
func commandBytes(command, b64 []string) []string {
	if len(b64) != len(command) {
		return command
	}
	out := make([]string, len(b64))
	for i, w := range b64 {
		b, err := base64.StdEncoding.DecodeString(w)
		if err != nil {
			return command
		}
		out[i] = string(b)
	}
	return out
}

// decode turns an event record into its event; known is false for a
// record type this version does not know.
// For a frame, pre is what was prepared of its line (see rawRecord.frame).
func (rd *reader) decode(rec *rawRecord) (ev eventlog.Event, pre wire.Prepared, known bool, err error) {
	ev = eventlog.Event{At: time.Duration(rec.At)}
	switch rec.Type {
	case "frame":
		ev.Type = eventlog.EventFrame
		ev.Dir, ev.Frame, pre, err = rec.frame()
	case "stderr":
		var l wire.Line
		l, err = rec.rawLine.line()
		ev.Type, ev.Stderr = eventlog.EventStderr, &l
	case "process":
		ev.Type = eventlog.EventProcess
		ev.Process, err = rec.process()
	case "finding":
		ev.Type = eventlog.EventFinding
		ev.Finding, err = rec.finding()
		if err == nil && rec.FrameSeq != 0 {
			ev.Finding.FrameSeq = rd.mapSeq(rec.FrameSeq)
		}
	case "note":
		ev.Type, ev.Note = eventlog.EventNote, rec.Note
		if rd.version == 1 {
			rd.v1Note(&ev)
		}
	case "era":
		var era eventlog.Era
		era, err = parseEra(rec.Era)
		ev.Type, ev.Era, ev.Note = eventlog.EventEra, &eventlog.EraDecision{Era: era, Version: rec.Version, ProbeAbandoned: rec.ProbeAbandoned}, rec.Note
	case "restart":
		ev.Type, ev.Restart, ev.Note = eventlog.EventRestart, &eventlog.RestartEvent{N: rec.N, Command: rec.Command}, rec.Note
	case "timeout":
		ev.Type = eventlog.EventTimeout
	case "stdin-closed":
		ev.Type, ev.Stdin, ev.Note = eventlog.EventStdinClosed, &eventlog.StdinEvent{ByHost: rec.ByHost}, rec.Note
	case "end":
		ev.Type, ev.End = eventlog.EventEnd, &eventlog.EndEvent{Exited: rec.Exited}
	case "fault":
		ev.Type, ev.Fault, ev.Note = eventlog.EventFault, rec.fault(), rec.Note
	case "intercept":
		err = rd.intercept(rec, &ev)
	default:
		return ev, pre, false, nil
	}
	return ev, pre, true, err
}

// frame decodes a frame record's lines; the frame is classified later, in
// rebuild, with its neighbours. A frame of one line that the decoder
// classified (rawLine.pre) holds its message already, and pre says the
// rest.
func (rec *rawRecord) frame() (dir wire.Dir, f *wire.Frame, pre wire.Prepared, err error) {
	dir, err = parseDir(rec.Dir)
	if err != nil {
		return 0, nil, pre, err
	}
	if len(rec.Lines) == 0 {
		return 0, nil, pre, errors.New("a frame with no lines")
	}
	var lines []wire.Line
	if len(rec.Lines) == 1 {
		one := new(frameOfOne) // the frame and its line in one allocation
		f, lines = &one.Frame, one.line[:]
		if l := &rec.Lines[0]; l.pre.OK() {
			f.Msg, pre = l.msg, l.pre
		}
	} else {
		f, lines = new(wire.Frame), make([]wire.Line, len(rec.Lines))
	}
	for i := range rec.Lines {
		if lines[i], err = rec.Lines[i].line(); err != nil {
			return 0, nil, wire.Prepared{}, err
		}
	}
	f.Lines = lines
	return dir, f, pre, nil
}

// frameOfOne holds a frame of one line and its line.
type frameOfOne struct {
	wire.Frame
	line [1]wire.Line
}

// finding decodes a finding record (its frameSeq still the writer's).
func (rec *rawRecord) finding() (*eventlog.LoggedFinding, error) {
	sev, err := parseSeverity(rec.Severity)
	if err != nil {
		return nil, err
	}
	lf := &eventlog.LoggedFinding{Finding: wire.Finding{Code: rec.Code, Severity: sev, Message: rec.Message}}
	if rec.Dir != "" {
		if lf.Dir, err = parseDir(rec.Dir); err != nil {
			return nil, err
		}
	}
	return lf, nil
}

func (rec *rawRecord) process() (*eventlog.ProcessEvent, error) {
	p := &eventlog.ProcessEvent{
		Pid:          rec.Pid,
		ExitCode:     rec.ExitCode,
		Signal:       rec.Signal,
		ShutdownTook: time.Duration(rec.ShutdownTookNs),
		Detail:       rec.Detail,
		AfterEOF:     rec.AfterEOF,
		ByHost:       rec.ByHost,
	}
	switch rec.State {
	case "starting":
		p.State = eventlog.StateStarting
	case "running":
		p.State = eventlog.StateRunning
	case "exiting":
		p.State = eventlog.StateExiting
	case "exited":
		p.State = eventlog.StateExited
	default:
		return nil, fmt.Errorf("unknown process state %q", rec.State)
	}
	switch rec.Step {
	case "exit", "":
		p.Step = eventlog.StepNone
	case "stdin-close":
		p.Step = eventlog.StepStdinClose
	case "sigterm":
		p.Step = eventlog.StepSIGTERM
	case "sigkill":
		p.Step = eventlog.StepSIGKILL
	default:
		return nil, fmt.Errorf("unknown shutdown step %q", rec.Step)
	}
	return p, nil
}

func parseDir(s string) (wire.Dir, error) {
	switch s {
	case "c2s":
		return wire.ClientToServer, nil
	case "s2c":
		return wire.ServerToClient, nil
	}
	return 0, fmt.Errorf("unknown direction %q", s)
}

func parseEra(s string) (eventlog.Era, error) {
	switch s {
	case "legacy":
		return eventlog.EraLegacy, nil
	case "modern":
		return eventlog.EraModern, nil
	case "unknown":
		return eventlog.EraUnknown, nil
	}
	return 0, fmt.Errorf("unknown era %q", s)
}

func parseSeverity(s string) (wire.Severity, error) {
	switch s {
	case "note":
		return wire.SeverityNote, nil
	case "warning":
		return wire.SeverityWarning, nil
	case "error":
		return wire.SeverityError, nil
	}
	return 0, fmt.Errorf("unknown severity %q", s)
}
