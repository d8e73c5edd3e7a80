package wire

import (
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hasUnsafe returns the first rune of s that a terminal would act on or that
// hides or reorders text, and whether there is one.
func hasUnsafe(s string, keepNewlines bool) (rune, bool) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n <= 1 {
				return r, true
			}
		}
		if keepNewlines && (r == '\n' || r == '\t') {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			return r, true
		}
	}
	return 0, false
}

// TestVisibleFormatControls: the invisible format controls beyond the bidi
// overrides (isolates, zero-width characters, tag characters, separators)
// are shown too, in full notation.
func TestVisibleFormatControls(t *testing.T) {
	for in, want := range map[string]string{
		"\u2067rtl\u2069":      "<U+2067>rtl<U+2069>",
		"zero\u200bwidth":      "zero<U+200B>width",
		"tag\U000E0041":        "tag<U+E0041>",
		"line\u2028para\u2029": "line<U+2028>para<U+2029>",
		"soft\u00adhyphen":     "soft<U+00AD>hyphen",
		"no-break\u00a0space":  "no-break\u00a0space",
	} {
		if got := VisibleString(in, Pictures); got != want {
			t.Errorf("VisibleString(%q) = %q, want %q", in, got, want)
		}
	}
	if got := VisibleText("a\tb\n\x1b[2J\u202e\n"); got != "a\tb\n␛[2J<U+202E>\n" {
		t.Errorf("VisibleText kept or lost the wrong things: %q", got)
	}
}

// FuzzInertJSON: any string encoded by encoding/json and passed through
// InertJSON is valid JSON, decodes to what encoding/json itself decodes, and
// holds no unsafe rune raw.
func FuzzInertJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "\u009b2J", "\u202eevil\x1b[2J\x7f", "\U000E0041", "\xff", "日本語 ✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(map[string]any{"k" + s: []string{s}})
		if err != nil {
			t.Skip()
		}
		got := InertJSON(raw)
		if r, bad := hasUnsafe(string(got), false); bad {
			t.Fatalf("InertJSON(%s) = %s keeps %U", raw, got, r)
		}
		var a, b any
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("InertJSON made invalid JSON: %v\n%s", err, got)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("InertJSON changed the meaning: %s vs %s", ja, jb)
		}
	})
}
