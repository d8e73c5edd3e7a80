package main

import (
	"strings"
	"testing"
)

// serveSilentList never answers tools/list.
func serveSilentList() {
	s := newFake("silent-list")
	s.on = func(s *fakeMCP, m fakeMsg) bool { return m.Method == "tools/list" }
	s.serve()
}

// A unit-less duration says which unit to add; a duration prints as given:
// check waits a margin past --timeout before it gives up on a call, and
// used to say "within 2s" for --timeout 1s.
func TestDurationsAsGiven(t *testing.T) {
	status, _, errOut := runBinary(t, nil, append([]string{"check", "--timeout", "5"}, fakeServerArgs("headless-good")...)...)
	if status != 2 || !strings.Contains(string(errOut), "add a unit: 5s") {
		t.Errorf("--timeout 5: status %d, stderr %q; want 2 and the hint", status, errOut)
	}
	r, status := checkJSON(t, "headless-silent-list", "--timeout", "1s")
	if status != 1 || !strings.Contains(r.Error, "within 1s") || strings.Contains(r.Error, "within 2s") {
		t.Errorf("--timeout 1s: status %d, error %q; want it to say within 1s", status, r.Error)
	}
}
