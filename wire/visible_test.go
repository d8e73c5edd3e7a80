package wire

import (
	"testing"
)

func TestVisibleEveryByte(t *testing.T) {
	for _, mode := range []VisibleMode{Pictures, Notation} {
		for c := 0; c < 256; c++ {
			for _, b := range [][]byte{{byte(c)}, {0xc2, byte(c)}, {'a', byte(c), 'b'}} {
				s := Visible(b, mode)
				for _, r := range s {
					if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
						t.Fatalf("Visible(%q) = %q keeps control %U", b, s, r)
					}
				}
			}
		}
	}
}

func TestVisibleModes(t *testing.T) {
	for _, c := range []struct {
		in   string
		mode VisibleMode
		want string
	}{
		{in: "plain text", mode: Pictures, want: "plain text"},
		{in: "\x1b[31mred", mode: Pictures, want: "␛[31mred"},
		{in: "a\tb\r\n", mode: Pictures, want: "a␉b␍␊"},
		{in: "nul\x00del\x7f", mode: Pictures, want: "nul␀del␡"},
		{in: "bad \xff\xfe utf8", mode: Pictures, want: "bad \uFFFD\uFFFD utf8"},
		{in: "c1 \u009b2J", mode: Pictures, want: "c1 <U+009B>2J"},
		{in: "bidi \u202egnp.exe", mode: Pictures, want: "bidi <U+202E>gnp.exe"},
		{in: "ünïcödé ✓ 日本語", mode: Pictures, want: "ünïcödé ✓ 日本語"},
		{in: "a\tb\r\n\x1b\xff", mode: Notation, want: `a\tb\r\n\x1b\xff`},
		{in: `back\slash`, mode: Notation, want: `back\\slash`},
		{in: "c1 \u009b", mode: Notation, want: `c1 \xc2\x9b`},
	} {
		if got := Visible([]byte(c.in), c.mode); got != c.want {
			t.Errorf("Visible(%q, %d) = %q, want %q", c.in, c.mode, got, c.want)
		}
		if got := VisibleString(c.in, c.mode); got != c.want {
			t.Errorf("VisibleString(%q, %d) = %q, want %q", c.in, c.mode, got, c.want)
		}
	}
	if !IsInert("日本語 \uFFFD ok") || IsInert("bad \xff") || IsInert("\u202e") || IsInert("\x1b") {
		t.Error("IsInert misjudges")
	}
}

// FuzzVisible: whatever the server writes, the result holds no rune a
// terminal would act on, and inert text passes through unchanged.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"", "hello", "\x1b[2J", "\x1b]52;c;eA==\x07", "\xc2\x9b", "\xff\xfe", "日本語", "\u202e", "a\tb\r\n", `a\b`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, mode := range []VisibleMode{Pictures, Notation} {
			s := Visible(b, mode)
			for _, r := range s {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unsafeRune(r) {
					t.Fatalf("Visible(%q) = %q keeps %U", b, s, r)
				}
			}
			if VisibleString(string(b), mode) != s {
				t.Fatalf("VisibleString and Visible differ on %q", b)
			}
			if IsInert(string(b)) && mode == Pictures && s != string(b) {
				t.Fatalf("inert text changed: %q -> %q", b, s)
			}
		}
	})
}
