package wire

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// status is what a text turned out to be, before JSON-RPC rules.
type status uint8

const (
	statusJSON   status = iota // exactly one JSON value
	statusPrefix               // ends inside a value that could still be completed
	statusBad                  // not JSON, and no continuation can make it JSON
	statusEmpty                // only whitespace
)

// classified is the full result of classify; Classify exposes part of it.
type classified struct {
	finds []Finding
	st    status
	// rpcObject: a complete top-level object with a "jsonrpc" member. Such a
	// line is a message in its own right even while reassembly is pending.
	rpcObject bool
	// noCR: the text is JSON with no raw '\r' (strings cannot hold one, and
	// the scan saw none between tokens), so the Framer need not look again.
	noCR bool
	// indexed: the index classify was given holds the message's params.
	indexed bool
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Classify classifies one JSON text (a line, or the joined lines of a
// multi-line frame) in one pass over its bytes: whether it is JSON, which
// JSON-RPC 2.0 message it is, the members an inspector needs, and the
// findings about the text itself (non-json-line, invalid-jsonrpc,
// batch-array, duplicate-key, non-integer-id, invalid-utf8,
// control-characters, utf8-bom; blank-line for whitespace only). Findings
// about line ends and sizes are the Framer's.
func Classify(text []byte) (Message, []Finding) {
	var m Message
	c := classify(text, false, &m, nil)
	return m, c.finds
}

// classify classifies text into *m (which it overwrites): the Framer has it
// written straight into the frame it will return, not copied there. It is
// the one pass over a line that every frame goes through: scan (collecting
// the top-level members on the way), then the findings of what the scan
// found. When idx is not nil, the members of the message's params are
// indexed into it on the way (c.indexed says they were).
func classify(text []byte, truncated bool, m *Message, idx *ParamsIndex) (c classified) {
	*m = Message{}
	if idx != nil {
		idx.frame = nil
		if len(text) > math.MaxUint32 {
			idx = nil // its offsets are 32 bits
		}
	}
	body := text
	off := 0
	if bytes.HasPrefix(body, bom) {
		c.finds = append(c.finds, NewFinding("utf8-bom", "the frame starts with a UTF-8 byte order mark (EF BB BF)"))
		body = body[3:]
		off = 3
	}
	s := scanner{s: body}
	s.ws()
	if s.i == len(body) {
		c.st = statusEmpty
		c.finds = append(c.finds, NewFinding("blank-line", "an empty line on the wire"))
		return c
	}
	var t top
	t.ix = indexer{x: idx, off: off}
	trailing := t.scan(&s)
	c.st = s.status()
	c.noCR = c.st == statusJSON && !s.cr
	if c.st == statusJSON || (truncated && c.st == statusPrefix) {
		t.found(&c, m, &s, off, c.st == statusPrefix)
		m.printable = m.printable && !truncated // of the kept part, not the line
		c.indexed = c.st == statusJSON && t.done && t.ix.usable()
		return c
	}
	// Not JSON (or a prefix that was not completed).
	if s.err == errDepth && t.hasID {
		m.set().deepID, _, _ = parseID(t.id)
	}
	c.finds = append(c.finds, NewFinding("non-json-line", notJSON(&s, off, trailing)))
	c.finds = append(c.finds, textFindings(body, off)...)
	return c
}

// scan scans the one value s should hold, collecting the members of a
// top-level object into t. trailing reports a complete value followed by
// more text.
func (t *top) scan(s *scanner) (trailing bool) {
	var ok bool
	if s.s[s.i] == '{' {
		t.object(s)
		ok = t.done
	} else {
		ok = s.value()
	}
	if ok {
		s.ws()
		if s.i < len(s.s) {
			s.fail(errSyntax)
			return true
		}
	}
	return false
}

// found fills c and m with what the scan s of one JSON text (or of the
// prefix of one, partial) found: what is wrong inside its strings, and its
// message. off is where s.s starts in the text (after a BOM).
func (t *top) found(c *classified, m *Message, s *scanner, off int, partial bool) {
	var del bool
	c.finds, del = stringFindings(c.finds, s, off)
	t.shape(c, m, s.s[skipWS(s.s)], partial)
	// Outside its strings a JSON text holds only printable ASCII and the
	// whitespace the scan noted; inside them, control bytes are errors,
	// and DEL and bytes above ASCII are what del and s.high say.
	m.printable = !partial && off == 0 && !del && !s.high && !s.tab && !s.cr && !s.lf
}

// status is what the scan's error makes of the text.
func (s *scanner) status() status {
	switch s.err {
	case errNone:
		return statusJSON
	case errEOF:
		return statusPrefix
	default:
		return statusBad
	}
}

// stringFindings appends what is wrong inside the strings of a JSON text
// (invalid UTF-8, a raw DEL) to finds; del reports a DEL.
func stringFindings(finds []Finding, s *scanner, off int) (_ []Finding, del bool) {
	if s.badUTF8 != 0 {
		finds = append(finds, NewFinding("invalid-utf8", fmt.Sprintf("invalid UTF-8 in a string at byte %d", off+s.badUTF8-1)))
	}
	// DEL is legal inside a JSON string, and outside one it is a syntax
	// error, so one search of the whole text finds those in strings.
	if j := bytes.IndexByte(s.s, 0x7f); j >= 0 {
		finds = append(finds, NewFinding("control-characters", fmt.Sprintf("a raw DEL byte (0x7f) in a string at byte %d", off+j)))
		del = true
	}
	return finds, del
}

// shape fills m from a JSON text whose first byte is first: a message when
// it is an object, else invalid (a batch, or a value of another type).
func (t *top) shape(c *classified, m *Message, first byte, partial bool) {
	switch first {
	case '{':
		t.message(c, m, partial)
	case '[':
		m.Kind = KindInvalid
		m.set().invalid = "a batch: a JSON array of messages instead of one message"
		c.finds = append(c.finds, NewFinding("batch-array", "the frame is a JSON array (a JSON-RPC batch); batches were removed in MCP 2025-06-18"))
	default:
		m.Kind = KindInvalid
		m.set().invalid = "a JSON-RPC message must be an object, got " + typeName(first)
		c.finds = append(c.finds, NewFinding("invalid-jsonrpc", m.Invalid()))
	}
}

// notJSON says why a text that is not one JSON value is not.
func notJSON(s *scanner, off int, trailing bool) string {
	switch {
	case s.err == errEOF:
		return "not JSON: the text ends in the middle of a value"
	case s.err == errDepth:
		return fmt.Sprintf("not JSON: nested deeper than %d levels", maxDepth)
	case trailing:
		why := fmt.Sprintf("not JSON: a complete value followed by more text at byte %d", off+s.at)
		if c := s.s[s.at]; c == '{' || c == '[' {
			why += " (two messages on one line: a newline is missing between them)"
		}
		return why
	default:
		return fmt.Sprintf("not JSON: unexpected %s at byte %d", quoteByte(s.s, s.at), off+s.at)
	}
}

// textFindings reports invalid UTF-8 and control bytes (other than tab, CR
// and LF, which the Framer judges by position) anywhere in a text that is
// not JSON.
func textFindings(b []byte, off int) []Finding {
	var out []Finding
	for i, c := range b {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			msg := fmt.Sprintf("raw control byte 0x%02x at byte %d", c, off+i)
			if c == 0x1b {
				msg += " (ESC: a terminal escape sequence, such as a coloured log line)"
			}
			out = append(out, NewFinding("control-characters", msg))
			break
		}
	}
	if at := firstInvalid(b); at >= 0 {
		out = append(out, NewFinding("invalid-utf8", fmt.Sprintf("invalid UTF-8 at byte %d", off+at)))
	}
	return out
}

func skipWS(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return len(b)
}

func quoteByte(b []byte, at int) string {
	if at >= len(b) {
		return "end of text"
	}
	c := b[at]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func typeName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
