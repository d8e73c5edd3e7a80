package wire

// The states of a number in the incremental scanner. A number has no
// closing byte: the byte after it ends it, and the state that ends it
// returns true so that the byte is read again by the state that follows.

// stateNumMinus: after a leading '-'.
func stateNumMinus(z *incScanner, c byte) bool {
	switch {
	case c == '0':
		z.step = stateNumZero
	case c >= '1' && c <= '9':
		z.step = stateNumInt
	default:
		z.fail()
	}
	return false
}

// stateNumZero: after a leading 0, which no digit may follow.
func stateNumZero(z *incScanner, c byte) bool {
	switch {
	case c == '.':
		z.step = stateNumDot
	case c == 'e' || c == 'E':
		z.step = stateNumE
	default:
		z.end()
		return true
	}
	return false
}

// stateNumInt: in the digits of the integer part.
func stateNumInt(z *incScanner, c byte) bool {
	if isDigit(c) {
		return false
	}
	return stateNumZero(z, c)
}

// stateNumDot: after the '.', a digit must come.
func stateNumDot(z *incScanner, c byte) bool {
	if isDigit(c) {
		z.step = stateNumFrac
	} else {
		z.fail()
	}
	return false
}

// stateNumFrac: in the digits of the fraction.
func stateNumFrac(z *incScanner, c byte) bool {
	switch {
	case isDigit(c):
	case c == 'e' || c == 'E':
		z.step = stateNumE
	default:
		z.end()
		return true
	}
	return false
}

// stateNumE: after the 'e', a sign or a digit.
func stateNumE(z *incScanner, c byte) bool {
	switch {
	case c == '+' || c == '-':
		z.step = stateNumESign
	case isDigit(c):
		z.step = stateNumExp
	default:
		z.fail()
	}
	return false
}

// stateNumESign: after the exponent's sign, a digit must come.
func stateNumESign(z *incScanner, c byte) bool {
	if isDigit(c) {
		z.step = stateNumExp
	} else {
		z.fail()
	}
	return false
}

// stateNumExp: in the digits of the exponent.
func stateNumExp(z *incScanner, c byte) bool {
	if isDigit(c) {
		return false
	}
	z.end()
	return true
}
