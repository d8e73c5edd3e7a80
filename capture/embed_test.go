package capture

import (
	"bytes"
	"strings"
	"testing"
)

// embeddableBytesBytewise is embeddableBytes without its fast path: the
// checks one at a time, as they were written first.
func embeddableBytesBytewise(b []byte) bool {
	if bytes.IndexByte(b, 0x7f) >= 0 || bytes.IndexByte(b, '\t') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return false
	}
	if tooDeepToEmbed(b) || hasBidi(b) {
		return false
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xC2 && b[i+1] < 0xA0 {
			return false
		}
	}
	return true
}

// TestOnlyPrintableASCII: every byte value, at every place of a word and
// in the tail, with and without neighbours that borrow or carry.
func TestOnlyPrintableASCII(t *testing.T) {
	for c := range 256 {
		for _, n := range []int{1, 7, 8, 9, 16, 17} {
			for at := range n {
				for _, fill := range []byte{'a', 0x20, 0x7e} {
					b := bytes.Repeat([]byte{fill}, n)
					b[at] = byte(c)
					want := c >= 0x20 && c <= 0x7e
					if got := onlyPrintableASCII(b); got != want {
						t.Fatalf("%q: %v, want %v", b, got, want)
					}
				}
			}
		}
	}
	if !onlyPrintableASCII(nil) {
		t.Error("no bytes are printable ASCII")
	}
}

// FuzzEmbeddableBytes holds the fast path of embeddableBytes to the checks
// one at a time.
func FuzzEmbeddableBytes(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\"a\":\"\x7f\"}", "{\"a\":\t1}", "{\"a\":\"\u200e\"}",
		"{\"a\":\"\u0085\"}", "{\"a\":\"é\"}", strings.Repeat("[", 9001) + strings.Repeat("]", 9001)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := embeddableBytes(b), embeddableBytesBytewise(b); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
	})
}
