package capture

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"linesman/session/eventlog"
)

// TestStartsWithHeader tells a capture from other files by its first line
// alone.
func TestStartsWithHeader(t *testing.T) {
	// A header as the recorder writes it.
	h := Header{Format: FormatName, Version: FormatVersion, Linesman: eventlog.Version, Command: []string{"srv"}, Start: time.Unix(0, 0)}
	rec, err := h.appendRecord(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"a capture", string(rec) + `{"type":"frame"}` + "\n", true},
		{"a header alone, no newline", strings.TrimSuffix(string(rec), "\n"), true},
		{"empty", "", false},
		{"a script", "#!/usr/bin/env python3\nprint('hi')\n", false},
		{"JSON of another kind", `{"type":"header","format":"other-tool"}` + "\n", false},
		{"a frame first", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + string(rec), false},
		{"a first line past the bound", `{"type":"header","format":"linesman-capture","pad":"` + strings.Repeat("x", maxSniffedHeader) + `"}` + "\n", false},
	} {
		got, err := StartsWithHeader(strings.NewReader(c.text))
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	boom := errors.New("boom")
	if _, err := StartsWithHeader(iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Errorf("a read error: got %v, want %v", err, boom)
	}
	if _, err := StartsWithHeader(io.MultiReader(strings.NewReader(`{"type":`), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("a read error mid-line: got %v, want %v", err, boom)
	}
}
