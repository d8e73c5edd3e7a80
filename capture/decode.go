package capture

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"linesman/wire"
)

// decodeRecord decodes one event record into rec exactly as json.Unmarshal
// would. Reading a capture back is mostly this, so the records in the form
// the writer writes them (appendEvent: known members spelled as written,
// once each; plain numbers; a frame's JSON embedded raw) are decoded by
// hand, in one pass, with the embedded frames validated by the wire
// scanner; anything else (a record another tool edited, an unknown member,
// a null, a number with an exponent, a bad record) is left to
// encoding/json, so its result and its error are encoding/json's.
func decodeRecord(b []byte, rec *rawRecord) error {
	_, err := decodeWith(recordDecoder{b: b}, rec)
	return err
}

// decodeLending is decodeRecord for a line the caller lends: the frame
// lines embedded as JSON are pieces of b, not copies, and lent counts
// their bytes. b must not change while rec is in use. rec is reset first;
// the capacity of its Lines is reused.
func decodeLending(b []byte, rec *rawRecord) (lent int, err error) {
	*rec = rawRecord{Lines: rec.Lines[:0]}
	return decodeWith(recordDecoder{b: b, lend: true}, rec)
}

func decodeWith(d recordDecoder, rec *rawRecord) (lent int, err error) {
	if d.record(rec) {
		return d.lent, nil
	}
	*rec = rawRecord{}
	return 0, json.Unmarshal(d.b, rec)
}

// recordDecoder is the hand-written path of decodeRecord: each method
// returns false as soon as the text is not what it decodes, and
// decodeRecord starts over with encoding/json.
type recordDecoder struct {
	b    []byte
	i    int
	lend bool // frame lines embedded as JSON are pieces of b
	lent int  // their bytes
}

func (d *recordDecoder) record(rec *rawRecord) bool {
	d.ws()
	var seen uint64
	ok := d.object(func(key []byte) bool {
		k := recordKey(key)
		if k < 0 || seen&(1<<k) != 0 {
			return false // unknown (or case-folded) or repeated: encoding/json's rules
		}
		seen |= 1 << k
		return d.member(k, rec)
	})
	if !ok {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

// member decodes the value of member k into rec.
func (d *recordDecoder) member(k int, rec *rawRecord) bool {
	if k < lineKeys {
		return d.lineMember(k, &rec.rawLine, 1, false)
	}
	switch k {
	case keyType:
		return d.str(&rec.Type)
	case keySeq:
		return d.uint(&rec.Seq)
	case keyAt:
		return d.int64(&rec.At)
	case keyDir:
		return d.str(&rec.Dir)
	case keyLines:
		return d.lines(&rec.Lines)
	case keyState:
		return d.str(&rec.State)
	case keyStep:
		return d.str(&rec.Step)
	case keyPid:
		return d.int(&rec.Pid)
	case keyExitCode:
		return d.int(&rec.ExitCode)
	case keySignal:
		return d.str(&rec.Signal)
	case keyShutdownTookNs:
		return d.int64(&rec.ShutdownTookNs)
	case keyDetail:
		return d.str(&rec.Detail)
	case keyAfterEOF:
		return d.bool(&rec.AfterEOF)
	case keyCode:
		return d.str(&rec.Code)
	case keySeverity:
		return d.str(&rec.Severity)
	case keyMessage:
		return d.str(&rec.Message)
	case keyFrameSeq:
		return d.uint(&rec.FrameSeq)
	case keyNote:
		return d.str(&rec.Note)
	case keyEra:
		return d.str(&rec.Era)
	case keyVersion:
		return d.str(&rec.Version)
	case keyProbeAbandoned:
		return d.bool(&rec.ProbeAbandoned)
	case keyN:
		return d.int(&rec.N)
	case keyCommand:
		return d.strings(&rec.Command)
	case keyByHost:
		return d.bool(&rec.ByHost)
	case keyExited:
		return d.bool(&rec.Exited)
	case keyFromSeq:
		return d.uint(&rec.FromSeq)
	case keyCount:
		return d.uint(&rec.Count)
	case keyKind:
		return d.str(&rec.Kind)
	case keySpec:
		return d.str(&rec.Spec)
	case keyMethod:
		return d.str(&rec.Method)
	case keyID:
		return d.raw(&rec.ID, 1, false)
	case keyAction:
		return d.str(&rec.Action)
	case keyHold:
		return d.uint(&rec.Hold)
	case keyFilter:
		return d.str(&rec.Filter)
	case keyAnswer:
		return d.str(&rec.Answer)
	case keyLast:
		return d.bool(&rec.Last)
	}
	return false
}

// lineMember decodes the value of member k (a line's) into l,
// an object nested depth levels deep; with prepare (a frame's line), a
// line embedded as JSON is classified on the way.
func (d *recordDecoder) lineMember(k int, l *rawLine, depth int, prepare bool) bool {
	switch k {
	case keyJSON:
		if prepare {
			return d.prepared(l, depth)
		}
		return d.raw(&l.JSON, depth, d.lend)
	case keyText:
		l.Text = new(string)
		return d.str(l.Text)
	case keyB64:
		l.B64 = new(string)
		return d.str(l.B64)
	case keyTerm:
		return d.str(&l.Term)
	case keyLen:
		return d.int64(&l.Len)
	case keyTruncated:
		return d.bool(&l.Truncated)
	}
	return false
}

// raw takes a JSON value embedded as it is, nested depth levels deep: a
// piece of the line when lend is set (capped, so that an append cannot
// reach what follows), else a copy.
func (d *recordDecoder) raw(out *json.RawMessage, depth int, lend bool) bool {
	if d.i < len(d.b) && d.b[d.i] == 'n' {
		return false // null: encoding/json keeps the word
	}
	end, ok := wire.ValueEnd(d.b, d.i, depth)
	if !ok {
		return false
	}
	d.take(out, end, lend)
	return true
}

// prepared takes a frame's line embedded as JSON as raw does, in the one
// pass that also classifies it (wire.PrepareValue: the scan that finds the
// value's end is the classification, and its validation), the message in
// l.msg and the rest in l.pre for the framer (wire.Reframe). A value that
// PrepareValue cannot vouch for is left to raw.
func (d *recordDecoder) prepared(l *rawLine, depth int) bool {
	if d.i < len(d.b) && d.b[d.i] != 'n' {
		if end, p := wire.PrepareValue(d.b, d.i, depth, &l.msg); p.OK() {
			l.pre = p
			d.take(&l.JSON, end, d.lend)
			return true
		}
	}
	return d.raw(&l.JSON, depth, d.lend)
}

// take takes the value from d.i to end into out, as raw says.
func (d *recordDecoder) take(out *json.RawMessage, end int, lend bool) {
	if lend {
		*out = d.b[d.i:end:end]
		d.lent += end - d.i
	} else {
		*out = bytes.Clone(d.b[d.i:end])
	}
	d.i = end
}

// lines decodes a frame record's array of line objects.
func (d *recordDecoder) lines(out *[]rawLine) bool {
	lines := []rawLine{}
	if *out != nil {
		lines = (*out)[:0] // a reused record's
	}
	ok := d.array(func() bool {
		lines = append(lines, rawLine{}) // decoded in place: no copy, no escape
		l := &lines[len(lines)-1]
		var seen uint64
		return d.object(func(key []byte) bool {
			k := recordKey(key)
			if k < 0 || k >= lineKeys || seen&(1<<k) != 0 {
				return false
			}
			seen |= 1 << k
			return d.lineMember(k, l, 3, true)
		})
	})
	*out = lines
	return ok
}

// strings decodes an array of strings.
func (d *recordDecoder) strings(out *[]string) bool {
	ss := []string{}
	ok := d.array(func() bool {
		var s string
		ok := d.str(&s)
		ss = append(ss, s)
		return ok
	})
	*out = ss
	return ok
}

func (d *recordDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// object steps over an object, calling member with d.i at each member's
// value (whitespace skipped); member must consume the value. Keys with
// escapes are not decoded here.
func (d *recordDecoder) object(member func(key []byte) bool) bool {
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return false
	}
	d.i++
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return false
		}
		end := d.plainEnd(d.i + 1)
		if end < 0 || d.b[end] != '"' {
			return false
		}
		key := d.b[d.i+1 : end]
		d.i = end + 1
		d.ws()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.ws()
		if !member(key) {
			return false
		}
		if more, ok := d.next('}'); !more {
			return ok
		}
	}
}

// array steps over an array, calling elem with d.i at each element.
func (d *recordDecoder) array(elem func() bool) bool {
	if d.i >= len(d.b) || d.b[d.i] != '[' {
		return false
	}
	d.i++
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		if more, ok := d.next(']'); !more {
			return ok
		}
	}
}

// next steps over a comma (more follows) or closer (the container ends).
func (d *recordDecoder) next(closer byte) (more, ok bool) {
	d.ws()
	if d.i >= len(d.b) {
		return false, false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		d.ws()
		return true, true
	case closer:
		d.i++
		return false, true
	}
	return false, false
}

// plainEnd returns the offset of the first byte from i on that is a quote,
// a backslash, a control byte or not ASCII, or -1 at the end of the text.
func (d *recordDecoder) plainEnd(i int) int {
	for ; i < len(d.b); i++ {
		if c := d.b[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return -1
}

// str decodes a string. Strings of valid UTF-8 without escapes are taken
// as they are; others are cut out with the wire scanner and decoded by
// encoding/json, whose rules (invalid UTF-8 and lone surrogates become
// U+FFFD) they then follow.
func (d *recordDecoder) str(out *string) bool {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return false
	}
	i := d.plainEnd(d.i + 1)
	if i < 0 {
		return false
	}
	if d.b[i] == '"' {
		*out = plainString(d.b[d.i+1 : i])
		d.i = i + 1
		return true
	}
	end, ok := wire.ValueEnd(d.b, d.i, 0)
	if !ok {
		return false
	}
	raw := d.b[d.i+1 : end-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		*out = string(raw)
	} else if json.Unmarshal(d.b[d.i:end], out) != nil {
		return false
	}
	d.i = end
	return true
}

// plainString is b as a string: one of the words records spell their kinds
// with (a record's type, a direction, a line end) without a copy of its
// own, anything else copied.
func plainString(b []byte) string {
	switch string(b) {
	case "frame":
		return "frame"
	case "s2c":
		return "s2c"
	case "c2s":
		return "c2s"
	case "lf":
		return "lf"
	case "crlf":
		return "crlf"
	case "none":
		return "none"
	case "stderr":
		return "stderr"
	case "finding":
		return "finding"
	}
	return string(b)
}

// digits returns the integer at d.i in the plain form JSON spells it
// (-?(0|[1-9][0-9]*), no fraction or exponent), or false.
func (d *recordDecoder) digits() ([]byte, bool) {
	start := d.i
	i := d.i
	if i < len(d.b) && d.b[i] == '-' {
		i++
	}
	first := i
	for i < len(d.b) && d.b[i] >= '0' && d.b[i] <= '9' {
		i++
	}
	if i == first || (d.b[first] == '0' && i-first > 1) {
		return nil, false
	}
	if i < len(d.b) {
		if c := d.b[i]; c == '.' || c == 'e' || c == 'E' {
			return nil, false
		}
	}
	d.i = i
	return d.b[start:i], true
}

// small is the value of a plain integer of at most 18 digits (and a sign),
// which cannot overflow: the integers of records, read without strconv.
func small(s []byte) int64 {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

func (d *recordDecoder) int64(out *int64) bool {
	s, ok := d.digits()
	if !ok {
		return false
	}
	if len(s) <= 18 {
		*out = small(s)
		return true
	}
	n, err := strconv.ParseInt(string(s), 10, 64)
	*out = n
	return err == nil
}

func (d *recordDecoder) int(out *int) bool {
	s, ok := d.digits()
	if !ok {
		return false
	}
	if len(s) <= 9 { // within an int of any size
		*out = int(small(s))
		return true
	}
	n, err := strconv.ParseInt(string(s), 10, strconv.IntSize)
	*out = int(n)
	return err == nil
}

func (d *recordDecoder) uint(out *uint64) bool {
	s, ok := d.digits()
	if !ok || s[0] == '-' {
		return false
	}
	if len(s) <= 18 {
		*out = uint64(small(s))
		return true
	}
	n, err := strconv.ParseUint(string(s), 10, 64)
	*out = n
	return err == nil
}

func (d *recordDecoder) bool(out *bool) bool {
	switch {
	case bytes.HasPrefix(d.b[d.i:], []byte("true")):
		*out, d.i = true, d.i+4
	case bytes.HasPrefix(d.b[d.i:], []byte("false")):
		*out, d.i = false, d.i+5
	default:
		return false
	}
	return true
}
