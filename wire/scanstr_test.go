package wire

import "testing"

// TestScannerEscape reads one escape from its backslash: where it ends, or
// where and how it fails.
func TestScannerEscape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		next int // offset after the escape when ok
		err  scanErr
		at   int // offset of the failure
	}{
		{`\n`, 2, errNone, 0},
		{`\"x`, 2, errNone, 0},
		{`\/`, 2, errNone, 0},
		{`\u00e9x`, 6, errNone, 0},
		{`\uABCD`, 6, errNone, 0},
		{`\`, 0, errEOF, 1},
		{`\u00`, 0, errEOF, 4},
		{`\u00g9`, 0, errSyntax, 4},
		{`\x`, 0, errSyntax, 1},
		{`\'`, 0, errSyntax, 1},
	} {
		s := scanner{s: []byte(tc.in)}
		next, ok := s.escape(s.s, 0)
		if ok != (tc.err == errNone) || s.err != tc.err || (ok && next != tc.next) || (!ok && s.at != tc.at) {
			t.Errorf("escape(%q) = %d, %v (err %d at %d), want %d (err %d at %d)", tc.in, next, ok, s.err, s.at, tc.next, tc.err, tc.at)
		}
	}
}

// TestScannerNonASCII reads a run of non-ASCII text: it stops after eight
// ASCII bytes in a row or at a byte that needs attention, and records the
// first invalid UTF-8 byte.
func TestScannerNonASCII(t *testing.T) {
	for _, tc := range []struct {
		in      string
		next    int
		badUTF8 int // offset+1 of the first invalid byte, 0 for none
	}{
		{"é", 2, 0},
		{"é au lait, ok", len("é au lait"), 0}, // eight ASCII bytes: back to the fast loop
		{"日本語\"", 9, 0},
		{"сервер клиент", len("сервер клиент"), 0},
		{"é\\n", 2, 0},
		{"é\x01", 2, 0},
		{"\xff\xfeab", 4, 1},
		{"é\xc3", 3, 3},        // a truncated sequence
		{"\xed\xa0\x80", 3, 1}, // a surrogate
		{"\xf0\x9f\x98\x80!", 5, 0},
	} {
		s := scanner{s: []byte(tc.in)}
		next := s.nonASCII(s.s, 0)
		if next != tc.next || s.badUTF8 != tc.badUTF8 {
			t.Errorf("nonASCII(%q) = %d, badUTF8 %d; want %d, %d", tc.in, next, s.badUTF8, tc.next, tc.badUTF8)
		}
	}
}
