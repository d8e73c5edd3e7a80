package wire

// incScanner validates a JSON object or array fed to it in pieces, one byte
// at a time, with an explicit stack. The Framer uses it for multi-line
// reassembly: each new line is fed once, so deciding whether a run of lines
// is still a valid prefix costs time linear in the run, however long it gets.
// It accepts exactly the texts that scanner accepts (same depth limit, same
// leniency about invalid UTF-8), so a run it calls complete classifies as JSON.
type incScanner struct {
	stack   []byte // '{' or '[' per open container
	st      incState
	inKey   bool
	lit     string
	litI    int
	hexLeft int
	// brokenString: the error was a line break inside a string, the
	// signature of a message written with an unescaped newline in it.
	brokenString bool
}

type incState uint8

const (
	stStart        incState = iota // nothing yet: only '{' or '[' may start
	stValue                        // a value must come (after ':' or an array's ',')
	stValueOrClose                 // after '[': a value or ']'
	stKeyOrClose                   // after '{': a key or '}'
	stKey                          // after an object's ',': a key
	stColon                        // after a key
	stAfter                        // after a value inside a container: ',' or the close
	stStr
	stEsc
	stHex
	stLit
	stNumMinus
	stNumZero
	stNumInt
	stNumDot
	stNumFrac
	stNumE
	stNumESign
	stNumExp
	stDone // the top-level value is complete; only whitespace may follow
	stErr
)

type incResult uint8

const (
	incMore incResult = iota // still a valid prefix, not complete
	incDone                  // one complete value (plus whitespace)
	incErr                   // can never become one JSON value
)

func (z *incScanner) reset() {
	z.stack = z.stack[:0]
	z.st = stStart
	z.inKey = false
	z.brokenString = false
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// feed consumes b and reports the state after it.
func (z *incScanner) feed(b []byte) incResult {
	for i := 0; i < len(b) && z.st != stErr; i++ {
		c := b[i]
		if z.st == stStr && inString[c] {
			continue
		}
		for z.step(c) {
		}
	}
	switch z.st {
	case stErr:
		return incErr
	case stDone:
		return incDone
	default:
		return incMore
	}
}

// step consumes c, or returns true when c ended a number and must be
// consumed again in the state that follows.
//
// Long by design: the state machine, one case per state; the switch is the
// transition table.
func (z *incScanner) step(c byte) (again bool) {
	switch z.st {
	case stStart:
		switch {
		case isWS(c):
		case c == '{':
			z.push(c, stKeyOrClose)
		case c == '[':
			z.push(c, stValueOrClose)
		default:
			z.st = stErr
		}
	case stValue, stValueOrClose:
		switch {
		case isWS(c):
		case c == ']' && z.st == stValueOrClose:
			z.pop()
		default:
			z.begin(c)
		}
	case stKeyOrClose, stKey:
		switch {
		case isWS(c):
		case c == '"':
			z.st, z.inKey = stStr, true
		case c == '}' && z.st == stKeyOrClose:
			z.pop()
		default:
			z.st = stErr
		}
	case stColon:
		switch {
		case isWS(c):
		case c == ':':
			z.st = stValue
		default:
			z.st = stErr
		}
	case stAfter:
		top := z.stack[len(z.stack)-1]
		switch {
		case isWS(c):
		case c == ',' && top == '{':
			z.st = stKey
		case c == ',':
			z.st = stValue
		case c == '}' && top == '{', c == ']' && top == '[':
			z.pop()
		default:
			z.st = stErr
		}
	case stStr:
		switch {
		case c == '"':
			if z.inKey {
				z.st, z.inKey = stColon, false
			} else {
				z.end()
			}
		case c == '\\':
			z.st = stEsc
		case c < 0x20:
			z.st = stErr
			z.brokenString = c == '\n' || c == '\r'
		}
	case stEsc:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			z.st = stStr
		case 'u':
			z.st, z.hexLeft = stHex, 4
		default:
			z.st = stErr
		}
	case stHex:
		if !isHex(c) {
			z.st = stErr
		} else if z.hexLeft--; z.hexLeft == 0 {
			z.st = stStr
		}
	case stLit:
		if c != z.lit[z.litI] {
			z.st = stErr
		} else if z.litI++; z.litI == len(z.lit) {
			z.end()
		}
	case stNumMinus:
		switch {
		case c == '0':
			z.st = stNumZero
		case c >= '1' && c <= '9':
			z.st = stNumInt
		default:
			z.st = stErr
		}
	case stNumZero, stNumInt:
		switch {
		case isDigit(c) && z.st == stNumInt:
		case c == '.':
			z.st = stNumDot
		case c == 'e' || c == 'E':
			z.st = stNumE
		default:
			z.end()
			return true
		}
	case stNumDot:
		if isDigit(c) {
			z.st = stNumFrac
		} else {
			z.st = stErr
		}
	case stNumFrac:
		switch {
		case isDigit(c):
		case c == 'e' || c == 'E':
			z.st = stNumE
		default:
			z.end()
			return true
		}
	case stNumE:
		switch {
		case c == '+' || c == '-':
			z.st = stNumESign
		case isDigit(c):
			z.st = stNumExp
		default:
			z.st = stErr
		}
	case stNumESign:
		if isDigit(c) {
			z.st = stNumExp
		} else {
			z.st = stErr
		}
	case stNumExp:
		if !isDigit(c) {
			z.end()
			return true
		}
	case stDone:
		if !isWS(c) {
			z.st = stErr
		}
	}
	return false
}

// begin starts the value whose first byte is c.
func (z *incScanner) begin(c byte) {
	switch {
	case c == '{':
		z.push(c, stKeyOrClose)
	case c == '[':
		z.push(c, stValueOrClose)
	case c == '"':
		z.st, z.inKey = stStr, false
	case c == 't':
		z.st, z.lit, z.litI = stLit, "true", 1
	case c == 'f':
		z.st, z.lit, z.litI = stLit, "false", 1
	case c == 'n':
		z.st, z.lit, z.litI = stLit, "null", 1
	case c == '-':
		z.st = stNumMinus
	case c == '0':
		z.st = stNumZero
	case c >= '1' && c <= '9':
		z.st = stNumInt
	default:
		z.st = stErr
	}
}

func (z *incScanner) push(c byte, next incState) {
	if len(z.stack) >= maxDepth {
		z.st = stErr
		return
	}
	z.stack = append(z.stack, c)
	z.st = next
}

func (z *incScanner) pop() {
	z.stack = z.stack[:len(z.stack)-1]
	z.end()
}

// end: a value just finished.
func (z *incScanner) end() {
	if len(z.stack) == 0 {
		z.st = stDone
	} else {
		z.st = stAfter
	}
}
