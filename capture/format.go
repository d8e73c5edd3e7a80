package capture

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
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

const hexDigits = "0123456789abcdef"

// plain[c] is true for the bytes appendString copies as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\' && c != 0x7f && c != 0xC2 && c != 0xE2 && c != 0xD8
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// onlyPrintableASCII reports whether every byte of b is printable ASCII, 0x20
// to 0x7e, 8 bytes at a time: a byte below 0x20 borrows into its high bit
// when 0x20 is taken off, a byte above 0x7e carries into it when 1 is
// added (or has it already).
func onlyPrintableASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if ((x-ones*0x20)&^x|(x+ones)|x)&highs != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 || b[i] > 0x7e {
			return false
		}
	}
	return true
}

// attention is non-zero when one of the 8 bytes in x may need more than a
// plain copy: below 0x20, a quote, a backslash, DEL, or not ASCII. It may
// say so of a byte that does not (the byte loop then decides), never the
// reverse: for each test, the lowest matching byte sets its high bit with
// no borrow from below.
func attention(x uint64) uint64 {
	quote := x ^ (ones * '"')
	backslash := x ^ (ones * '\\')
	del := x ^ (ones * 0x7f)
	return ((x - ones*0x20) | (quote - ones) | (backslash - ones) | (del - ones) | x) & highs
}

// appendString appends s, which must be valid UTF-8, as a JSON string.
// Besides what JSON requires (quote, backslash, C0 controls), it escapes DEL
// and the C1 controls, so that a capture shown with cat or less cannot drive
// the terminal: servers write escape sequences, and a capture keeps them.
// It is the hot loop of a recording: it skips plain text 8 bytes at a time.
func appendString(buf []byte, s []byte) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		run := i
		for i+8 <= len(s) && attention(binary.LittleEndian.Uint64(s[i:])) == 0 {
			if i += 8; i-run >= longRun {
				i = plainRun(s, i)
				break
			}
		}
		if i >= len(s) {
			break
		}
		if plain[s[i]] {
			i++
			continue
		}
		c := s[i]
		if c == 0xC2 {
			// C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8.
			if i+1 < len(s) && s[i+1] < 0xA0 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[s[i+1]>>4], hexDigits[s[i+1]&0xF])
				i += 2
				start = i
				continue
			}
			i++
			continue
		}
		if c == 0xE2 || c == 0xD8 {
			if r, n := bidiAt(s, i); n > 0 {
				buf = append(buf, s[start:i]...)
				buf = append(buf, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += n
				start = i
				continue
			}
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// longRun is how many bytes in a row that need no attention make a run
// long enough for plainRun: text, a blob, or a tap's gap between the
// quotes of its messages.
const longRun = 64

// plainRun returns the offset of the first byte at or after s[i] that
// attention marks (a quote, a backslash, a byte below 0x20, DEL, or not
// ASCII), or len(s). It is for long runs: the first quote and the first
// backslash before it are found by bytes.IndexByte, in vector code, and
// only the bytes before them are checked for the others, four words a
// round (unprintable). Each round looks at a window that starts small and
// doubles while no byte needs attention, so that text with a quote every
// line (a gap of messages) pays for a short window at each, and a blob
// for few long ones. (wire's plainRun is the same for the scanner's set.)
func plainRun(s []byte, i int) int {
	for window := 256; i < len(s); window = min(2*window, 8<<10) {
		w := s[i:min(len(s), i+window)]
		end := len(w)
		if q := bytes.IndexByte(w, '"'); q >= 0 {
			w = w[:q]
		}
		if k := bytes.IndexByte(w, '\\'); k >= 0 {
			w = w[:k]
		}
		if k := unprintable(w); k >= 0 {
			return i + k
		}
		i += len(w)
		if len(w) < end {
			return i // at the quote or the backslash
		}
	}
	return i
}

// unprintable returns the index of the first byte of w that is not
// printable ASCII (below 0x20, DEL, or above), or -1. In a word, a byte
// borrows (below 0x20) or carries (0xff) only into the bytes above it, so
// the lowest mark is exact.
func unprintable(w []byte) int {
	mark := func(v uint64) uint64 { return (v | (v - ones*0x20) | (v + ones)) & highs }
	j := 0
	for ; j+32 <= len(w); j += 32 {
		x := w[j : j+32 : j+32]
		if mark(binary.LittleEndian.Uint64(x[0:]))|mark(binary.LittleEndian.Uint64(x[8:]))|
			mark(binary.LittleEndian.Uint64(x[16:]))|mark(binary.LittleEndian.Uint64(x[24:])) != 0 {
			break // the word loop finds which byte
		}
	}
	for ; j+8 <= len(w); j += 8 {
		if m := mark(binary.LittleEndian.Uint64(w[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < len(w); j++ {
		if w[j] < 0x20 || w[j] > 0x7e {
			return j
		}
	}
	return -1
}

// bidiAt reports whether s[i:] starts with a bidirectional control
// (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), which can
// reorder what a terminal or an editor shows of a capture; it returns the
// rune and its length in bytes (0 when it is none).
func bidiAt(s []byte, i int) (rune, int) {
	switch {
	case i+1 < len(s) && s[i] == 0xD8 && s[i+1] == 0x9C:
		return 0x061C, 2
	case i+2 < len(s) && s[i] == 0xE2 && s[i+1] == 0x80 && (s[i+2] == 0x8E || s[i+2] == 0x8F || s[i+2] >= 0xAA && s[i+2] <= 0xAE):
		return 0x2000 | rune(s[i+2]&0x3F), 3
	case i+2 < len(s) && s[i] == 0xE2 && s[i+1] == 0x81 && s[i+2] >= 0xA6 && s[i+2] <= 0xA9:
		return 0x2040 | rune(s[i+2]&0x3F), 3
	}
	return 0, 0
}

// hasBidi reports whether b holds a bidirectional control.
func hasBidi(b []byte) bool {
	for _, lead := range []byte{0xE2, 0xD8} {
		for i := 0; ; i++ {
			j := bytes.IndexByte(b[i:], lead)
			if j < 0 {
				break
			}
			i += j
			if _, n := bidiAt(b, i); n > 0 {
				return true
			}
		}
	}
	return false
}
