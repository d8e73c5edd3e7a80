package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// firstAttention is plainRun's contract spelled byte by byte: the offset
// of the first byte at or after i that a string cannot hold plain (what
// stop8 marks), or len(b).
func firstAttention(b []byte, i int) int {
	for i < len(b) && plain[b[i]] {
		i++
	}
	return i
}

// TestPlainRunStopsWhereTheBytewiseLoopDoes: every special byte, at every
// place of a long run (window edges and 32-byte blocks included), after a
// false mark below it or not.
func TestPlainRunStopsWhereTheBytewiseLoopDoes(t *testing.T) {
	run := make([]byte, 3000)
	for i := range run {
		run[i] = 'a' + byte(i%26)
	}
	for _, at := range []int{0, 1, 7, 8, 31, 32, 33, 63, 511, 512, 513, 1535, 1536, 2047, 2999} {
		for c := range 256 {
			b := append([]byte(nil), run...)
			b[at] = byte(c)
			if at+1 < len(b) {
				b[at+1] = 0x00 // a second special byte right after
			}
			for _, from := range []int{0, max(0, at-1), at} {
				if got, want := plainRun(b, from), firstAttention(b, from); got != want {
					t.Fatalf("byte %#x at %d, from %d: plainRun %d, want %d", c, at, from, got, want)
				}
			}
			want := bytes.IndexFunc(b, func(r rune) bool { return r < 0x20 || r >= 0x80 })
			if got := controlOrHigh(b); got != want {
				t.Fatalf("byte %#x at %d: controlOrHigh %d, want %d", c, at, got, want)
			}
		}
	}
}

// FuzzPlainRun: plainRun stops at the first byte a string cannot hold
// plain, as the byte-by-byte loop does, from any offset of any bytes.
func FuzzPlainRun(f *testing.F) {
	f.Add([]byte(`plain text "quoted" and \escaped`), 0)
	f.Add(bytes.Repeat([]byte("x"), 9000), 100)
	f.Add(append(bytes.Repeat([]byte("x"), 700), "é\x01\x7f"...), 3)
	f.Fuzz(func(t *testing.T, b []byte, from int) {
		if len(b) == 0 {
			return
		}
		from = int(uint(from) % uint(len(b)))
		if got, want := plainRun(b, from), firstAttention(b, from); got != want {
			t.Fatalf("%q from %d: plainRun %d, want %d", b, from, got, want)
		}
	})
}

// TestLongStringsClassifyAsShortOnes: a string long enough for plainRun,
// with one special byte anywhere in it, classifies (kind, findings and the
// decoded method) as the same text does cut into runs too short for it.
func TestLongStringsClassifyAsShortOnes(t *testing.T) {
	for _, at := range []int{0, 255, 256, 300, 767, 768, 1000, 2500} {
		for _, special := range []string{`"`, `\n`, `\u00e9`, `\x`, "\x01", "\x7f", "é", "\xff", `\`} {
			long := strings.Repeat("m", 3000)
			long = long[:at] + special + long[at:]
			// The same bytes with an escape every 100 bytes keep each run short.
			var short strings.Builder
			for i := 0; i < len(long); i += 100 {
				short.WriteString(long[i:min(len(long), i+100)])
				short.WriteString(`\t`)
			}
			for _, text := range []string{long, short.String()} {
				line := `{"jsonrpc":"2.0","method":"` + text + `","params":{"data":"` + text + `"}}`
				m, fs := Classify([]byte(line))
				ok := json.Valid([]byte(line))
				if (m.Kind == KindNotification) != ok {
					t.Fatalf("at %d, %q: kind %v, json.Valid %v (%v)", at, special, m.Kind, ok, fs)
				}
				var want struct{ Method string }
				if ok && utf8.ValidString(line) && (json.Unmarshal([]byte(line), &want) != nil || want.Method != m.Method) {
					t.Fatalf("at %d, %q: method %q, encoding/json %q", at, special, m.Method, want.Method)
				}
			}
		}
	}
}
