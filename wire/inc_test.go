package wire

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func stateName(f incState) string {
	if f == nil {
		return "nil"
	}
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}

// TestIncStates drives each state function alone: from a state (with an
// open container where it needs one), one byte, the state that follows,
// whether the byte must be read again, and the result.
func TestIncStates(t *testing.T) {
	for _, tc := range []struct {
		from  incState
		stack string // open containers
		key   bool   // the string is a key
		c     byte
		to    incState
		again bool
		res   incResult
	}{
		{stateStart, "", false, ' ', stateStart, false, incMore},
		{stateStart, "", false, '{', stateKeyOrClose, false, incMore},
		{stateStart, "", false, '[', stateValueOrClose, false, incMore},
		{stateStart, "", false, '1', stateErr, false, incErr},
		{stateStart, "", false, '"', stateErr, false, incErr},
		{stateValue, "[", false, '\n', stateValue, false, incMore},
		{stateValue, "[", false, ']', stateErr, false, incErr},
		{stateValue, "[", false, '"', stateStr, false, incMore},
		{stateValue, "[", false, 't', stateLit, false, incMore},
		{stateValue, "[", false, '-', stateNumMinus, false, incMore},
		{stateValue, "[", false, '0', stateNumZero, false, incMore},
		{stateValue, "[", false, '7', stateNumInt, false, incMore},
		{stateValue, "[", false, '{', stateKeyOrClose, false, incMore},
		{stateValue, "[", false, '+', stateErr, false, incErr},
		{stateValueOrClose, "[", false, ']', stateDone, false, incDone},
		{stateValueOrClose, "[[", false, ']', stateAfter, false, incMore},
		{stateValueOrClose, "[", false, '[', stateValueOrClose, false, incMore},
		{stateKeyOrClose, "{", false, '}', stateDone, false, incDone},
		{stateKeyOrClose, "{", false, '"', stateStr, false, incMore},
		{stateKeyOrClose, "{", false, '1', stateErr, false, incErr},
		{stateKey, "{", false, '}', stateErr, false, incErr},
		{stateKey, "{", false, '\t', stateKey, false, incMore},
		{stateKey, "{", false, '"', stateStr, false, incMore},
		{stateColon, "{", false, ':', stateValue, false, incMore},
		{stateColon, "{", false, ',', stateErr, false, incErr},
		{stateAfter, "{", false, ',', stateKey, false, incMore},
		{stateAfter, "[", false, ',', stateValue, false, incMore},
		{stateAfter, "{", false, '}', stateDone, false, incDone},
		{stateAfter, "{", false, ']', stateErr, false, incErr},
		{stateAfter, "[", false, '}', stateErr, false, incErr},
		{stateAfter, "[{", false, '}', stateAfter, false, incMore},
		{stateDone, "", false, '\r', stateDone, false, incMore},
		{stateDone, "", false, '{', stateErr, false, incErr},
		{stateStr, "[", false, '"', stateAfter, false, incMore},
		{stateStr, "{", true, '"', stateColon, false, incMore},
		{stateStr, "[", false, '\\', stateEsc, false, incMore},
		{stateStr, "[", false, 'x', stateStr, false, incMore},
		{stateStr, "[", false, '\n', stateErr, false, incErr},
		{stateEsc, "[", false, 'n', stateStr, false, incMore},
		{stateEsc, "[", false, 'u', stateHex, false, incMore},
		{stateEsc, "[", false, 'x', stateErr, false, incErr},
		{stateHex, "[", false, 'G', stateErr, false, incErr},
		{stateHex, "[", false, 'f', stateHex, false, incMore},
		{stateNumMinus, "[", false, '0', stateNumZero, false, incMore},
		{stateNumMinus, "[", false, '5', stateNumInt, false, incMore},
		{stateNumMinus, "[", false, '.', stateErr, false, incErr},
		{stateNumZero, "[", false, '1', stateAfter, true, incMore},
		{stateNumZero, "[", false, '.', stateNumDot, false, incMore},
		{stateNumZero, "[", false, 'E', stateNumE, false, incMore},
		{stateNumZero, "[", false, ']', stateAfter, true, incMore},
		{stateNumInt, "[", false, '1', stateNumInt, false, incMore},
		{stateNumInt, "[", false, 'e', stateNumE, false, incMore},
		{stateNumInt, "[", false, ',', stateAfter, true, incMore},
		{stateNumDot, "[", false, '2', stateNumFrac, false, incMore},
		{stateNumDot, "[", false, 'e', stateErr, false, incErr},
		{stateNumFrac, "[", false, '2', stateNumFrac, false, incMore},
		{stateNumFrac, "[", false, 'e', stateNumE, false, incMore},
		{stateNumFrac, "[", false, '.', stateAfter, true, incMore},
		{stateNumE, "[", false, '-', stateNumESign, false, incMore},
		{stateNumE, "[", false, '3', stateNumExp, false, incMore},
		{stateNumE, "[", false, ']', stateErr, false, incErr},
		{stateNumESign, "[", false, '3', stateNumExp, false, incMore},
		{stateNumESign, "[", false, '+', stateErr, false, incErr},
		{stateNumExp, "[", false, '3', stateNumExp, false, incMore},
		{stateNumExp, "[", false, ' ', stateAfter, true, incMore},
	} {
		var z incScanner
		z.reset()
		z.stack = append(z.stack, tc.stack...)
		z.step, z.inKey, z.hexLeft = tc.from, tc.key, 4
		again := tc.from(&z, tc.c)
		if stateName(z.step) != stateName(tc.to) || again != tc.again || z.res != tc.res {
			t.Errorf("%s %q (stack %q): -> %s again=%v res=%d, want %s again=%v res=%d",
				stateName(tc.from), tc.c, tc.stack, stateName(z.step), again, z.res, stateName(tc.to), tc.again, tc.res)
		}
	}
}

// TestIncStateLit reads the letters of a literal after its first.
func TestIncStateLit(t *testing.T) {
	for _, tc := range []struct {
		word, feed string
		res        incResult
	}{
		{"true", "rue", incDone}, {"null", "ul", incMore}, {"false", "alsy", incErr},
	} {
		var z incScanner
		z.reset()
		z.begin(tc.word[0])
		for i := 0; i < len(tc.feed) && z.res == incMore; i++ {
			z.step(&z, tc.feed[i])
		}
		if z.res != tc.res {
			t.Errorf("%s then %q: res %d, want %d", tc.word, tc.feed, z.res, tc.res)
		}
	}
}

// TestIncScannerAgreesWithScanner feeds texts in pieces and compares the
// result with the recursive scanner's verdict on the whole.
func TestIncScannerAgreesWithScanner(t *testing.T) {
	for _, text := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"x\u00e9\n"]}`,
		"{\n  \"k\\\"\": {}\n}",
		`[1,]`, `{"a" 1}`, `[01]`, `[1.]`, `{"a":"b` + "\n" + `c"}`, `[] x`, `[tru]`,
		`[1e5 ,2E-1]`, `{"a":{"b":[[]]}}   `,
	} {
		for cut := 0; cut <= len(text); cut++ {
			var z incScanner
			z.reset()
			r := z.feed([]byte(text[:cut]))
			if r != incErr {
				r = z.feed([]byte(text[cut:]))
			}
			c := classify([]byte(text), false, new(Message), nil)
			want := map[status]incResult{statusJSON: incDone, statusPrefix: incMore, statusBad: incErr}[c.st]
			if r != want {
				t.Errorf("%q cut at %d: %d, want %d", text, cut, r, want)
			}
		}
	}
}
