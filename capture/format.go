package capture

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"linesman/session/eventlog"
	"linesman/wire"
)

// FormatName is the value of the header's "format" member.
const FormatName = "linesman-capture"

// FormatVersion is the version of the capture format this package writes.
// Open reads every version up to this one; a reader meeting a newer version
// refuses the file rather than misreading it. Adding optional members to a
// record does not change the version; changing the meaning of one does.
//
// Version 2 records era decisions and restarts as typed records ("era",
// "restart"); in version 1 they were notes, whose wording Open still reads
// for version-1 files only. Version 3 records what the session's clock and
// process told the fold as typed records too ("timeout", "stdin-closed",
// "end"); for earlier files Open reads them off the records (open_v2.go).
// An "era" record carries "probeAbandoned": true when the session gave up
// on its own era probe (a member older readers ignore). An "intercept"
// record (a frame linesman held, released, edited or dropped) is a record
// type older readers skip, as they skip every type they do not know.
const FormatVersion = typedClockVersion

// Header is the first record of a capture: what was recorded, where and when.
type Header struct {
	Format   string   `json:"format"`   // FormatName
	Version  int      `json:"version"`  // FormatVersion when written
	Linesman string   `json:"linesman"` // eventlog.Version of the writer
	Command  []string `json:"command"`  // the server's argv
	// CommandB64 is the argv again, each word in base64, written only when
	// a word is not valid UTF-8 (a JSON string would hold U+FFFD in its
	// place, and a replay would run another command); a reader takes the
	// bytes from it.
	CommandB64 []string  `json:"commandB64,omitempty"`
	Cwd        string    `json:"cwd"`   // the server's working directory
	Env        []EnvVar  `json:"env"`   // the server's environment: names, values only when asked
	Start      time.Time `json:"start"` // wall clock at the log's start; every record's "at" counts from it
	// MaxFrame is the longest line the session kept whole (0: unknown).
	MaxFrame int `json:"maxFrame,omitempty"`
	// TimeoutNs is the per-request timeout of the session, for the tracker
	// that Open rebuilds (0: the tracker's default).
	TimeoutNs int64 `json:"timeoutNs,omitempty"`
	// Era is the era the session was asked for: "auto", "legacy" or
	// "modern" ("" when unknown).
	Era string `json:"era,omitempty"`
	// Secrets are values the recorder keeps out of the file: each is
	// written as hosts.Redaction wherever the text of a process, note,
	// finding or restart record holds it (a server's command line is in
	// its "starting ..." detail). The frames are the wire's and are kept
	// as they are. Never written.
	Secrets []string `json:"-"`
}

// EnvVar is one environment variable of the server. Value is nil unless the
// capture was asked to keep values (--capture-env): environments carry
// secrets, and a capture is meant to be shared.
type EnvVar struct {
	Name  string  `json:"name"`
	Value *string `json:"value,omitempty"`
}

// headerRecord puts "type" first so that the header reads like every record.
type headerRecord struct {
	Type string `json:"type"`
	Header
}

func (h *Header) appendRecord(buf []byte) ([]byte, error) {
	rec := headerRecord{Type: "header", Header: *h}
	rec.CommandB64 = nil
	for _, w := range h.Command {
		if !utf8.ValidString(w) {
			for _, w := range h.Command {
				rec.CommandB64 = append(rec.CommandB64, base64.StdEncoding.EncodeToString([]byte(w)))
			}
			break
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return buf, err
	}
	// encoding/json escapes C0 controls but leaves DEL, the C1 controls
	// and bidi controls raw; a command line or an environment value can
	// hold them. In JSON text they can only be inside strings, where \u
	// escapes mean the same.
	buf = append(buf, wire.InertJSON(b)...)
	return append(buf, '\n'), nil
}

// appendEvent appends ev's record, newline included. Frame records are the
// hot path of a recording, so records are built by hand into one buffer
// rather than through encoding/json and reflection.
func appendEvent(buf []byte, ev *eventlog.Event) []byte {
	buf = append(buf, `{"type":"`...)
	buf = append(buf, ev.Type.String()...)
	buf = append(buf, `","seq":`...)
	buf = strconv.AppendUint(buf, ev.Seq, 10)
	buf = append(buf, `,"at":`...)
	buf = strconv.AppendInt(buf, int64(ev.At), 10)
	switch ev.Type {
	case eventlog.EventFrame:
		buf = append(buf, `,"dir":"`...)
		buf = append(buf, ev.Dir.String()...)
		buf = append(buf, `","lines":[`...)
		if f := ev.Frame; f != nil {
			if len(f.Lines) == 1 && embeddable(f) {
				buf = append(buf, `{"json":`...)
				buf = append(buf, f.Lines[0].Content...)
				buf = appendTail(buf, &f.Lines[0])
				buf = append(buf, '}')
			} else {
				for i := range f.Lines {
					if i > 0 {
						buf = append(buf, ',')
					}
					buf = append(buf, '{')
					buf = appendLine(buf, &f.Lines[i])
					buf = append(buf, '}')
				}
			}
		}
		buf = append(buf, ']')
	case eventlog.EventStderr:
		if ev.Stderr != nil {
			buf = append(buf, ',')
			buf = appendLine(buf, ev.Stderr)
		}
	case eventlog.EventProcess:
		if p := ev.Process; p != nil {
			buf = appendProcess(buf, p)
		}
	case eventlog.EventFinding:
		if f := ev.Finding; f != nil {
			buf = appendFinding(buf, f)
		}
	case eventlog.EventNote:
		buf = append(buf, `,"note":`...)
		buf = appendString(buf, []byte(ev.Note))
	case eventlog.EventEra, eventlog.EventRestart:
		buf = appendFact(buf, ev)
	case eventlog.EventStdinClosed:
		if ev.Stdin != nil && ev.Stdin.ByHost {
			buf = append(buf, `,"byHost":true`...)
		}
		buf = append(buf, `,"note":`...)
		buf = appendString(buf, []byte(ev.Note))
	case eventlog.EventEnd:
		if ev.End != nil && ev.End.Exited {
			buf = append(buf, `,"exited":true`...)
		}
	case eventlog.EventFault:
		buf = appendFault(buf, ev)
	case eventlog.EventIntercept:
		buf = appendIntercept(buf, ev)
	case eventlog.EventUnjudged:
		buf = appendUnjudged(buf, ev.Unjudged)
	}
	return append(buf, '}', '\n')
}

// appendUnjudged appends the members of an unjudged record: the direction,
// the bytes as a line's ("text" or "b64", "term" none, "len"), and "last"
// on the gap's last piece.
func appendUnjudged(buf []byte, u *eventlog.UnjudgedBytes) []byte {
	if u == nil {
		return buf
	}
	buf = append(buf, `,"dir":"`...)
	buf = append(buf, u.Dir.String()...)
	buf = append(buf, `",`...)
	buf = appendLine(buf, &wire.Line{Content: u.Bytes, Length: int64(len(u.Bytes))})
	if u.Last {
		buf = append(buf, `,"last":true`...)
	}
	return buf
}

// appendProcess appends the members of a process record.
func appendProcess(buf []byte, p *eventlog.ProcessEvent) []byte {
	buf = append(buf, `,"state":"`...)
	buf = append(buf, p.State.String()...)
	buf = append(buf, `","step":"`...)
	buf = append(buf, p.Step.String()...)
	buf = append(buf, `","pid":`...)
	buf = strconv.AppendInt(buf, int64(p.Pid), 10)
	buf = append(buf, `,"exitCode":`...)
	buf = strconv.AppendInt(buf, int64(p.ExitCode), 10)
	buf = append(buf, `,"signal":`...)
	buf = appendString(buf, []byte(p.Signal))
	buf = append(buf, `,"shutdownTookNs":`...)
	buf = strconv.AppendInt(buf, int64(p.ShutdownTook), 10)
	if p.AfterEOF {
		buf = append(buf, `,"afterEOF":true`...)
	}
	if p.ByHost {
		buf = append(buf, `,"byHost":true`...)
	}
	buf = append(buf, `,"detail":`...)
	buf = appendString(buf, []byte(p.Detail))
	return buf
}

// appendFinding appends the members of a finding record.
func appendFinding(buf []byte, f *eventlog.LoggedFinding) []byte {
	buf = append(buf, `,"code":`...)
	buf = appendString(buf, []byte(f.Code))
	buf = append(buf, `,"severity":"`...)
	buf = append(buf, f.Severity.String()...)
	buf = append(buf, `","message":`...)
	buf = appendString(buf, []byte(f.Message))
	buf = append(buf, `,"frameSeq":`...)
	buf = strconv.AppendUint(buf, f.FrameSeq, 10)
	if f.Dir != 0 {
		buf = append(buf, `,"dir":"`...)
		buf = append(buf, f.Dir.String()...)
		buf = append(buf, '"')
	}
	return buf
}

// appendFact appends the members of an era or restart record: the typed
// decision, then its words.
func appendFact(buf []byte, ev *eventlog.Event) []byte {
	switch ev.Type {
	case eventlog.EventEra:
		if d := ev.Era; d != nil {
			buf = append(buf, `,"era":"`...)
			buf = append(buf, d.Era.String()...)
			buf = append(buf, `","version":`...)
			buf = appendString(buf, []byte(d.Version))
			if d.ProbeAbandoned {
				buf = append(buf, `,"probeAbandoned":true`...)
			}
		}
	case eventlog.EventRestart:
		if r := ev.Restart; r != nil {
			buf = append(buf, `,"n":`...)
			buf = strconv.AppendInt(buf, int64(r.N), 10)
			buf = append(buf, `,"command":[`...)
			for i, a := range r.Command {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = appendString(buf, []byte(a))
			}
			buf = append(buf, ']')
		}
	}
	buf = append(buf, `,"note":`...)
	return appendString(buf, []byte(ev.Note))
}

// appendDropped appends the record that says events [from, from+count) were
// dropped by the log's retention before the recorder could write them.
func appendDropped(buf []byte, from, count uint64) []byte {
	buf = append(buf, `{"type":"dropped","fromSeq":`...)
	buf = strconv.AppendUint(buf, from, 10)
	buf = append(buf, `,"count":`...)
	buf = strconv.AppendUint(buf, count, 10)
	return append(buf, '}', '\n')
}

// appendLine appends the members of one physical line: its bytes ("text"
// when valid UTF-8, "b64" otherwise), its terminator, its real length, and
// "truncated" when only a prefix was kept.
func appendLine(buf []byte, l *wire.Line) []byte {
	if utf8.Valid(l.Content) {
		buf = append(buf, `"text":`...)
		buf = appendString(buf, l.Content)
	} else {
		buf = append(buf, `"b64":"`...)
		buf = base64.StdEncoding.AppendEncode(buf, l.Content)
		buf = append(buf, '"')
	}
	return appendTail(buf, l)
}

// appendTail appends the members of a line after its bytes.
func appendTail(buf []byte, l *wire.Line) []byte {
	buf = append(buf, `,"term":"`...)
	buf = append(buf, termName(l.Term)...)
	buf = append(buf, `","len":`...)
	buf = strconv.AppendInt(buf, l.Length, 10)
	if l.Truncated {
		buf = append(buf, `,"truncated":true`...)
	}
	return buf
}

// embeddable reports whether a one-line frame can go into its record as the
// JSON value it is ("json"), byte for byte: that spares the escaping of a
// string, and lets jq read the messages of a capture. It must be exactly one
// JSON value (the wire scanner is strict JSON, with encoding/json's depth
// limit) from its first byte to its last, valid UTF-8, and free of anything
// that could drive a terminal (DEL, C1 controls) or that the value would not
// give back (a BOM, a truncated tail, raw control bytes).
func embeddable(f *wire.Frame) bool {
	l := &f.Lines[0]
	b := l.Content
	if l.Truncated || f.Msg.Kind == wire.KindNonJSON || len(b) < 2 {
		return false
	}
	if (b[0] != '{' && b[0] != '[') || (b[len(b)-1] != '}' && b[len(b)-1] != ']') {
		return false
	}
	if f.Msg.PrintableASCII() {
		// The classification that made the message saw every byte of b:
		// one JSON value of printable ASCII alone, so none of the bytes
		// below is in it; only the nesting is left (no pass over a frame
		// shorter than embedDepth).
		return !tooDeepToEmbed(b)
	}
	for i := range f.Findings {
		switch f.Findings[i].Code {
		case "invalid-utf8", "control-characters", "utf8-bom", "non-json-line":
			return false
		}
	}
	return embeddableBytes(b)
}

// embeddableBytes reports whether b, a JSON value, holds none of the bytes
// that keep a frame from being embedded: DEL, a tab or a carriage return,
// a C1 control or a bidirectional one, or nesting deeper than embedDepth.
// Printable ASCII, most frames, is told in one pass.
func embeddableBytes(b []byte) bool {
	if onlyPrintableASCII(b) {
		return !tooDeepToEmbed(b)
	}
	if bytes.IndexByte(b, 0x7f) >= 0 || bytes.IndexByte(b, '\t') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	if tooDeepToEmbed(b) || hasBidi(b) {
		return false
	}
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], 0xC2)
		if j < 0 {
			return true
		}
		i += j + 1
		if i < len(b) && b[i] < 0xA0 {
			return false // a C1 control, U+0080..U+009F
		}
	}
}

// embedDepth is the deepest nesting a frame embedded as JSON may have. A
// reader decodes the record around it with encoding/json, whose limit is
// 10,000 levels, and the record adds its own (the record, "lines", the
// line): a frame the live framer accepted at 9,998 levels would be written
// whole and skipped on every reopen. Deeper frames go in as a string.
const embedDepth = 9000

// tooDeepToEmbed reports whether b nests deeper than embedDepth. A frame
// shorter than that cannot (a tap records every frame it judges: no pass
// over the common one); counting the brackets first keeps a longer frame
// to two fast passes.
func tooDeepToEmbed(b []byte) bool {
	if len(b) <= embedDepth || bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) <= embedDepth {
		return false
	}
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > embedDepth {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

func termName(t wire.Terminator) string {
	switch t {
	case wire.TermLF:
		return "lf"
	case wire.TermCRLF:
		return "crlf"
	default:
		return "none"
	}
}

func parseTerm(s string) (wire.Terminator, error) {
	switch s {
	case "lf":
		return wire.TermLF, nil
	case "crlf":
		return wire.TermCRLF, nil
	case "none":
		return wire.TermNone, nil
	}
	return 0, fmt.Errorf("unknown terminator %q", s)
}
