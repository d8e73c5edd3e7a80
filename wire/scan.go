package wire

import (
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is the deepest nesting accepted, the same limit encoding/json
// applies, so that both agree on what is JSON and recursion stays bounded.
const maxDepth = 10000

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

	badUTF8 int // offset+1 of the first invalid UTF-8 byte inside a string (0 = none)
	del     int // offset+1 of the first DEL byte inside a string (0 = none)
}

// plain marks the bytes that need no attention inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
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
		if c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
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
func (s *scanner) str() (end int, esc bool, ok bool) {
	b := s.s
	i := s.i + 1
	for {
		for i+8 <= len(b) && plain[b[i]] && plain[b[i+1]] && plain[b[i+2]] && plain[b[i+3]] &&
			plain[b[i+4]] && plain[b[i+5]] && plain[b[i+6]] && plain[b[i+7]] {
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			s.i = i
			return 0, false, s.fail(errEOF)
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return i + 1, esc, true
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
		case c < 0x20:
			s.i = i
			return 0, false, s.fail(errSyntax)
		case c == 0x7f:
			if s.del == 0 {
				s.del = i + 1
			}
			i++
		default: // c >= 0x80
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				if s.badUTF8 == 0 {
					s.badUTF8 = i + 1
				}
			}
			i += size
		}
	}
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

func (s *scanner) object() bool {
	if !s.enter() {
		return false
	}
	if s.i < len(s.s) && s.s[s.i] == '}' {
		s.i++
		s.depth--
		return true
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
		s.ws()
		if s.i >= len(s.s) {
			return s.fail(errEOF)
		}
		switch s.s[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return s.fail(errSyntax)
		}
	}
}

func (s *scanner) array() bool {
	if !s.enter() {
		return false
	}
	if s.i < len(s.s) && s.s[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value() {
			return false
		}
		s.ws()
		if s.i >= len(s.s) {
			return s.fail(errEOF)
		}
		switch s.s[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return s.fail(errSyntax)
		}
	}
}

// members walks the object at s.i, calling f for each member with s.i at the
// member's value; f must scan the value (or fail). key is the decoded key
// when it had escapes, else a slice of the text.
func (s *scanner) members(f func(key []byte) bool) bool {
	if !s.enter() {
		return false
	}
	if s.i < len(s.s) && s.s[s.i] == '}' {
		s.i++
		s.depth--
		return true
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
		s.ws()
		if s.i >= len(s.s) {
			return s.fail(errEOF)
		}
		switch s.s[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			s.depth--
			return true
		default:
			return s.fail(errSyntax)
		}
	}
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
