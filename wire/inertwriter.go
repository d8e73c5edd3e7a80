package wire

import (
	"io"
	"unicode/utf8"
)

// An InertWriter makes what passes through it inert for a terminal
// ([VisibleText]: line feeds and tabs kept, every other control,
// C1, bidi or format control shown as a symbol). linesman's headless
// outputs and its errors go through one, so that a path, a header field or
// a server message quoted anywhere in them cannot drive the terminal,
// whichever code path wrote it. A rune split across two writes is held
// back until it is whole.
type InertWriter struct {
	w       io.Writer
	pending []byte
}

func (iw *InertWriter) Write(p []byte) (int, error) {
	b := p
	if len(iw.pending) > 0 {
		b = append(iw.pending, p...)
		iw.pending = nil
	}
	// Hold back an incomplete rune at the end (at most 3 bytes).
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	iw.pending = append(iw.pending, b[cut:]...)
	if _, err := io.WriteString(iw.w, VisibleText(string(b[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held-back partial rune (shown as invalid bytes).
func (iw *InertWriter) Flush() {
	if len(iw.pending) > 0 {
		io.WriteString(iw.w, VisibleText(string(iw.pending)))
		iw.pending = nil
	}
}

// NewInertWriter returns an InertWriter writing to w.
func NewInertWriter(w io.Writer) *InertWriter { return &InertWriter{w: w} }
