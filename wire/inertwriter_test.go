package wire

import (
	"bytes"
	"testing"
)

// TestInertWriterHoldsSplitRunes: a rune cut across two writes comes out
// whole, and a control character written in either piece comes out inert.
func TestInertWriterHoldsSplitRunes(t *testing.T) {
	var out bytes.Buffer
	w := NewInertWriter(&out)
	check := []byte("ok ✓\x1b[31m\n")
	cut := bytes.IndexRune(check, '✓') + 1 // inside the rune
	w.Write(check[:cut])
	w.Write(check[cut:])
	w.Flush()
	if got := out.String(); got != VisibleText(string(check)) || bytes.ContainsRune(out.Bytes(), 0x1b) {
		t.Errorf("got %q, want %q", got, VisibleText(string(check)))
	}
}
