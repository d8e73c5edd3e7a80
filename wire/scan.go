package wire

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
	lf  bool   // a raw '\n' was skipped as whitespace
	tab bool   // a raw '\t' was skipped as whitespace

	high bool // a string holds a byte above 0x7f

	badUTF8 int // offset+1 of the first invalid UTF-8 byte inside a string (0 = none)
}

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
		case ' ':
		case '\t':
			s.tab = true
		case '\n':
			s.lf = true
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
