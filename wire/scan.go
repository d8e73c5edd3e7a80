package wire

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the deepest nesting accepted, the same limit encoding/json
// applies, so that both agree on what is JSON and recursion stays bounded.
const maxDepth = 10000

// MaxDepth is maxDepth, for the words of those who report it.
const MaxDepth = maxDepth

// scanErr says why a scan stopped.
type scanErr uint8

const (
	errNone   scanErr = iota
	errEOF            // the text ended inside a value: a valid prefix
	errSyntax         // a byte that cannot appear here
	errDepth          // nested deeper than maxDepth
)

// scanner validates JSON by recursive descent over a byte slice. Its methods
// stop at the first problem, recording it in err and at; the caller looks at
// the fields to learn what went wrong and where.
type scanner struct {
	s     []byte
	i     int
	depth int
	err   scanErr
	at    int // offset of the problem

	key keyRef // the key members last passed to its callback
	cr  bool   // a raw '\r' was skipped as whitespace

	badUTF8 int // offset+1 of the first invalid UTF-8 byte inside a string (0 = none)
}

// plain marks the ASCII bytes that may appear raw inside a string without
// ending it or starting an escape.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// inString marks every byte that may appear raw inside a string (UTF-8
// validity aside).
var inString = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *scanner) fail(e scanErr) bool {
	if s.err == errNone {
		s.err = e
		s.at = s.i
	}
	return false
}

// bad is a syntax error at the current byte, or errEOF past the end.
func (s *scanner) bad() bool {
	if s.i >= len(s.s) {
		return s.fail(errEOF)
	}
	return s.fail(errSyntax)
}

func (s *scanner) ws() {
	for s.i < len(s.s) {
		c := s.s[s.i]
		if c > ' ' {
			return
		}
		switch c {
		case ' ', '\t', '\n':
		case '\r':
			s.cr = true
		default:
			return
		}
		s.i++
	}
}

// value scans any JSON value starting at s.i.
func (s *scanner) value() bool {
	if s.i >= len(s.s) {
		return s.fail(errEOF)
	}
	switch c := s.s[s.i]; c {
	case '"':
		_, _, ok := s.str()
		return ok
	case '{':
		return s.object()
	case '[':
		return s.array()
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, ok := s.number()
			return ok
		}
		return s.fail(errSyntax)
	}
}

// str scans a string at s.i (which must be '"'). It returns the offset just
// past the closing quote and whether the string has escapes.
//
// It goes eight bytes at a time and stops only at a quote, a backslash, a
// control byte or a non-ASCII byte; a non-ASCII byte starts a UTF-8
// sequence that is checked on the spot, so every byte is looked at once.
// Invalid UTF-8 is recorded, not rejected. A DEL byte is legal JSON;
// classify looks for it separately.
//
// Long by design: the innermost loop of the scanner, kept whole so that the
// eight-bytes-at-a-time path makes no calls.
func (s *scanner) str() (end int, esc bool, ok bool) {
	b := s.s
	i := s.i + 1
	for {
		// The mask's lowest set bit marks the first byte that needs
		// attention, so both long strings (base64 blobs, file contents)
		// and short keys skip the byte-by-byte loop.
		for i+16 <= len(b) {
			m0 := stop8(binary.LittleEndian.Uint64(b[i:]))
			m1 := stop8(binary.LittleEndian.Uint64(b[i+8:]))
			if m0|m1 != 0 {
				if m0 != 0 {
					i += bits.TrailingZeros64(m0) >> 3
				} else {
					i += 8 + bits.TrailingZeros64(m1)>>3
				}
				goto slow
			}
			i += 16
		}
		if i+8 <= len(b) {
			if m := stop8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto slow
			}
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
	slow:
		if i >= len(b) {
			s.i = i
			return 0, false, s.fail(errEOF)
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return i + 1, esc, true
		case c >= 0x80:
			// Non-Latin text is checked here in one go, the spaces and
			// punctuation between its words included, rather than
			// re-entering the eight-byte loop at every word: that loop
			// takes over again after a run of ASCII.
			ascii := 0
			for i < len(b) && ascii < 8 {
				if b[i] < 0x80 {
					if !plain[b[i]] {
						break
					}
					ascii++
					i++
					continue
				}
				ascii = 0
				// Two-byte (Latin, Greek, Cyrillic, …) and common three-byte
				// (most of the BMP: CJK, symbols) sequences inline.
				if c := b[i]; c >= 0xC2 && c <= 0xDF {
					if i+1 < len(b) && b[i+1]&0xC0 == 0x80 {
						i += 2
						continue
					}
				} else if c >= 0xE1 && c <= 0xEC || c == 0xEE || c == 0xEF {
					if i+2 < len(b) && b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 {
						i += 3
						continue
					}
				}
				if n := utf8Seq(b, i); n > 0 {
					i += n
				} else {
					if s.badUTF8 == 0 {
						s.badUTF8 = i + 1
					}
					i++
				}
			}
		case c == '\\':
			esc = true
			i++
			if i >= len(b) {
				s.i = i
				return 0, false, s.fail(errEOF)
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(b) {
						s.i = i
						return 0, false, s.fail(errEOF)
					}
					if !isHex(b[i]) {
						s.i = i
						return 0, false, s.fail(errSyntax)
					}
					i++
				}
			default:
				s.i = i
				return 0, false, s.fail(errSyntax)
			}
		default: // a control byte: not allowed raw in a string
			s.i = i
			return 0, false, s.fail(errSyntax)
		}
	}
}

// utf8Seq returns the length of the valid UTF-8 sequence starting at b[i]
// (a byte >= 0x80), or 0 if there is none.
func utf8Seq(b []byte, i int) int {
	c := b[i]
	switch {
	case c >= 0xC2 && c <= 0xDF:
		if i+1 < len(b) && b[i+1]&0xC0 == 0x80 {
			return 2
		}
	case c >= 0xE0 && c <= 0xEF:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0 // no overlong forms
		} else if c == 0xED {
			hi = 0x9F // no surrogates
		}
		if i+2 < len(b) && b[i+1] >= lo && b[i+1] <= hi && b[i+2]&0xC0 == 0x80 {
			return 3
		}
	case c >= 0xF0 && c <= 0xF4:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F // nothing above U+10FFFF
		}
		if i+3 < len(b) && b[i+1] >= lo && b[i+1] <= hi && b[i+2]&0xC0 == 0x80 && b[i+3]&0xC0 == 0x80 {
			return 4
		}
	}
	return 0
}

// firstInvalid returns the offset of the first byte of b that is not part
// of valid UTF-8, or -1. Unlike utf8.Valid, which goes byte by byte after
// the first non-ASCII byte, it returns to eight bytes at a time after each
// multi-byte sequence.
func firstInvalid(b []byte) int {
	i := 0
	for i < len(b) {
		if i+8 <= len(b) {
			v := binary.LittleEndian.Uint64(b[i:])
			if v&highs == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(v&highs) >> 3
		}
		if b[i] < 0x80 {
			i++
			continue
		}
		n := utf8Seq(b, i)
		if n == 0 {
			return i
		}
		i += n
	}
	return -1
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stop8 returns a mask whose lowest set bit is the high bit of the first
// byte of v (little-endian) that is a quote, a backslash, a control byte
// (< 0x20) or non-ASCII; 0 when there is none. Each term can only have false
// positives above a true one (a borrow runs upwards), so the lowest set bit
// is exact.
func stop8(v uint64) uint64 {
	q := v ^ ('"' * ones)
	e := v ^ ('\\' * ones)
	return (v | (v - 0x20*ones) | ((q - ones) &^ q) | ((e - ones) &^ e)) & highs
}
func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a number and reports whether it is spelled as an integer.
func (s *scanner) number() (isInt bool, ok bool) {
	b := s.s
	i := s.i
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		s.i = i
		return false, s.fail(errEOF)
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		s.i = i
		return false, s.fail(errSyntax)
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		if i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return false, s.bad()
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			s.i = i
			return false, s.bad()
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	s.i = i
	return isInt, true
}

func (s *scanner) lit(word string) bool {
	start := s.i
	for k := 0; k < len(word); k++ {
		if s.i >= len(s.s) {
			return s.fail(errEOF)
		}
		if s.s[s.i] != word[k] {
			s.i = start // report the word, not the letter where it went wrong
			return s.fail(errSyntax)
		}
		s.i++
	}
	return true
}

func (s *scanner) enter() bool {
	s.depth++
	if s.depth > maxDepth {
		return s.fail(errDepth)
	}
	s.i++
	s.ws()
	return true
}

// open enters the container whose opening bracket is at s.i; empty reports
// one closed at once by closer.
func (s *scanner) open(closer byte) (empty, ok bool) {
	if !s.enter() {
		return false, false
	}
	if s.i < len(s.s) && s.s[s.i] == closer {
		s.i++
		s.depth--
		return true, true
	}
	return false, true
}

// next steps over what follows a member or an element: a comma, and more
// follows, or closer, and the container ends.
func (s *scanner) next(closer byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.s) {
		return false, s.fail(errEOF)
	}
	switch s.s[s.i] {
	case ',':
		s.i++
		s.ws()
		return true, true
	case closer:
		s.i++
		s.depth--
		return false, true
	default:
		return false, s.fail(errSyntax)
	}
}

func (s *scanner) object() bool {
	if empty, ok := s.open('}'); empty || !ok {
		return ok
	}
	for {
		if s.i >= len(s.s) || s.s[s.i] != '"' {
			return s.bad()
		}
		if _, _, ok := s.str(); !ok {
			return false
		}
		s.ws()
		if s.i >= len(s.s) || s.s[s.i] != ':' {
			return s.bad()
		}
		s.i++
		s.ws()
		if !s.value() {
			return false
		}
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

func (s *scanner) array() bool {
	if empty, ok := s.open(']'); empty || !ok {
		return ok
	}
	for {
		if !s.value() {
			return false
		}
		if more, ok := s.next(']'); !more {
			return ok
		}
	}
}

// members walks the object at s.i, calling f for each member with s.i at the
// member's value; f must scan the value (or fail). key is the decoded key
// when it had escapes, else a slice of the text.
func (s *scanner) members(f func(key []byte) bool) bool {
	if empty, ok := s.open('}'); empty || !ok {
		return ok
	}
	for {
		if s.i >= len(s.s) || s.s[s.i] != '"' {
			return s.bad()
		}
		start := s.i
		end, esc, ok := s.str()
		if !ok {
			return false
		}
		key := s.s[start+1 : end-1]
		s.key = keyRef{start + 1, end - 1, esc}
		if esc {
			key = []byte(unescape(key))
		}
		s.ws()
		if s.i >= len(s.s) || s.s[s.i] != ':' {
			return s.bad()
		}
		s.i++
		s.ws()
		if s.i >= len(s.s) {
			return s.fail(errEOF)
		}
		if !f(key) {
			return false
		}
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

// s2str returns the decoded string whose quotes are at start and end-1.
func (s *scanner) s2str(start, end int, esc bool) string {
	raw := s.s[start+1 : end-1]
	if esc {
		return unescape(raw)
	}
	return string(raw)
}

// strValue scans a string value and returns it decoded.
func (s *scanner) strValue() (string, bool) {
	start := s.i
	end, esc, ok := s.str()
	if !ok {
		return "", false
	}
	raw := s.s[start+1 : end-1]
	if esc {
		return unescape(raw), true
	}
	return string(raw), true
}

// unescape decodes the body of a JSON string (without quotes). Invalid
// surrogates become U+FFFD; invalid UTF-8 bytes are kept as they are.
func unescape(raw []byte) string {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw, i+1)
			if !ok {
				out = append(out, '\\', 'u')
				continue
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					r2, ok2 = hex4(raw, i+3)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out = append(out, raw[i])
		}
	}
	return string(out)
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// ValueEnd returns the offset just past the JSON value that starts at
// text[i] (no whitespace before it is skipped) and whether that value is
// valid JSON as encoding/json reads it: strict syntax, invalid UTF-8 inside
// strings let through, and no deeper than [MaxDepth] counting the depth
// levels that enclose it. It is for decoders of documents that embed a
// raw value (capture records) and must validate it as they step over it.
func ValueEnd(text []byte, i, depth int) (end int, ok bool) {
	s := scanner{s: text, i: i, depth: depth}
	ok = s.value()
	return s.i, ok
}
