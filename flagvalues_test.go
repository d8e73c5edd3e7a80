package main

import "testing"

// sizeValue takes bytes, or a binary unit, and refuses anything else; it
// prints a size back in the largest unit that divides it.
func TestSizeValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "1048576": 1 << 20, "512KiB": 512 << 10, "256MiB": 256 << 20, "1GiB": 1 << 30, "2M": 2 << 20, "3K": 3 << 10} {
		var v sizeValue
		if err := v.Set(in); err != nil || int64(v) != want {
			t.Errorf("%q: %d, %v; want %d", in, v, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-5", "12QB", "1.5MiB", "99999999999GiB"} {
		var v sizeValue
		if err := v.Set(bad); err == nil {
			t.Errorf("%q accepted as %d", bad, v)
		}
	}
	for v, want := range map[sizeValue]string{256 << 20: "256MiB", 1 << 30: "1GiB", 3 << 10: "3KiB", 1000: "1000", 0: "0"} {
		if got := v.String(); got != want {
			t.Errorf("%d printed %q, want %q", int64(v), got, want)
		}
	}
}
