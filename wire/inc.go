package wire

// incScanner validates a JSON object or array fed to it in pieces, one byte
// at a time, with an explicit stack. The Framer uses it for multi-line
// reassembly: each new line is fed once, so deciding whether a run of lines
// is still a valid prefix costs time linear in the run, however long it gets.
// It accepts exactly the texts that scanner accepts (same depth limit, same
// leniency about invalid UTF-8), so a run it calls complete classifies as JSON.
//
// It is written the way encoding/json's scanner is: the state is the
// function that will read the next byte ([incState]), one small function
// per state, each setting the state that follows.
type incScanner struct {
	step incState  // reads the next byte; nil is the start
	res  incResult // what the bytes so far are
	// inStr: step is stateStr, so feed may skip a string's plain bytes
	// without calling it.
	inStr   bool
	stack   []byte // '{' or '[' per open container
	inKey   bool   // the string being read is an object's key
	lit     string
	litI    int
	hexLeft int
	// brokenString: the error was a line break inside a string, the
	// signature of a message written with an unescaped newline in it.
	brokenString bool
}

// incState is a state of the incremental scanner: it consumes c and sets
// the next state, or returns true when c ended a number and must be read
// again by the state that follows.
type incState func(z *incScanner, c byte) (again bool)

type incResult uint8

const (
	incMore incResult = iota // still a valid prefix, not complete
	incDone                  // one complete value (plus whitespace)
	incErr                   // can never become one JSON value
)

func (z *incScanner) reset() {
	z.stack = z.stack[:0]
	z.step, z.res = stateStart, incMore
	z.inStr, z.inKey = false, false
	z.brokenString = false
}

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// feed consumes b and reports the state after it.
func (z *incScanner) feed(b []byte) incResult {
	if z.step == nil {
		z.reset()
	}
	for i := 0; i < len(b) && z.res != incErr; i++ {
		c := b[i]
		if z.inStr && inString[c] {
			continue
		}
		for z.step(z, c) {
		}
	}
	return z.res
}

// stateStart: nothing yet; only '{' or '[' may start.
func stateStart(z *incScanner, c byte) bool {
	switch {
	case isWS(c):
	case c == '{':
		z.push(c, stateKeyOrClose)
	case c == '[':
		z.push(c, stateValueOrClose)
	default:
		z.fail()
	}
	return false
}

// stateValue: a value must come (after ':' or an array's ',').
func stateValue(z *incScanner, c byte) bool {
	if !isWS(c) {
		z.begin(c)
	}
	return false
}

// stateValueOrClose: after '[', a value or ']'.
func stateValueOrClose(z *incScanner, c byte) bool {
	switch {
	case isWS(c):
	case c == ']':
		z.pop()
	default:
		z.begin(c)
	}
	return false
}

// stateKeyOrClose: after '{', a key or '}'.
func stateKeyOrClose(z *incScanner, c byte) bool {
	if c == '}' {
		z.pop()
		return false
	}
	return stateKey(z, c)
}

// stateKey: after an object's ',', a key.
func stateKey(z *incScanner, c byte) bool {
	switch {
	case isWS(c):
	case c == '"':
		z.toStr(true)
	default:
		z.fail()
	}
	return false
}

// stateColon: after a key.
func stateColon(z *incScanner, c byte) bool {
	switch {
	case isWS(c):
	case c == ':':
		z.step = stateValue
	default:
		z.fail()
	}
	return false
}

// stateAfter: after a value inside a container, a ',' or the close.
func stateAfter(z *incScanner, c byte) bool {
	top := z.stack[len(z.stack)-1]
	switch {
	case isWS(c):
	case c == ',' && top == '{':
		z.step = stateKey
	case c == ',':
		z.step = stateValue
	case c == '}' && top == '{', c == ']' && top == '[':
		z.pop()
	default:
		z.fail()
	}
	return false
}

// stateDone: the top-level value is complete; only whitespace may follow.
func stateDone(z *incScanner, c byte) bool {
	if !isWS(c) {
		z.fail()
	}
	return false
}

// stateErr: nothing can follow an error.
func stateErr(z *incScanner, c byte) bool { return false }

// stateStr: inside a string (feed skips its plain bytes).
func stateStr(z *incScanner, c byte) bool {
	switch {
	case c == '"':
		z.inStr = false
		if z.inKey {
			z.step, z.inKey = stateColon, false
		} else {
			z.end()
		}
	case c == '\\':
		z.step, z.inStr = stateEsc, false
	case c < 0x20:
		z.fail()
		z.brokenString = c == '\n' || c == '\r'
	}
	return false
}

// stateEsc: after a backslash in a string.
func stateEsc(z *incScanner, c byte) bool {
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		z.toStr(z.inKey)
	case 'u':
		z.step, z.hexLeft = stateHex, 4
	default:
		z.fail()
	}
	return false
}

// stateHex: the digits of a \u escape.
func stateHex(z *incScanner, c byte) bool {
	if !isHex(c) {
		z.fail()
	} else if z.hexLeft--; z.hexLeft == 0 {
		z.toStr(z.inKey)
	}
	return false
}

// stateLit: the letters of true, false or null after the first.
func stateLit(z *incScanner, c byte) bool {
	if c != z.lit[z.litI] {
		z.fail()
	} else if z.litI++; z.litI == len(z.lit) {
		z.end()
	}
	return false
}

// begin starts the value whose first byte is c.
func (z *incScanner) begin(c byte) {
	switch {
	case c == '{':
		z.push(c, stateKeyOrClose)
	case c == '[':
		z.push(c, stateValueOrClose)
	case c == '"':
		z.toStr(false)
	case c == 't':
		z.step, z.lit, z.litI = stateLit, "true", 1
	case c == 'f':
		z.step, z.lit, z.litI = stateLit, "false", 1
	case c == 'n':
		z.step, z.lit, z.litI = stateLit, "null", 1
	case c == '-':
		z.step = stateNumMinus
	case c == '0':
		z.step = stateNumZero
	case c >= '1' && c <= '9':
		z.step = stateNumInt
	default:
		z.fail()
	}
}

// toStr enters a string, a key's when key is set.
func (z *incScanner) toStr(key bool) {
	z.step, z.inStr, z.inKey = stateStr, true, key
}

func (z *incScanner) push(c byte, next incState) {
	if len(z.stack) >= maxDepth {
		z.fail()
		return
	}
	z.stack = append(z.stack, c)
	z.step = next
}

func (z *incScanner) pop() {
	z.stack = z.stack[:len(z.stack)-1]
	z.end()
}

// end: a value just finished.
func (z *incScanner) end() {
	if len(z.stack) == 0 {
		z.step, z.res = stateDone, incDone
	} else {
		z.step = stateAfter
	}
}

func (z *incScanner) fail() {
	z.step, z.res, z.inStr = stateErr, incErr, false
}
