package main

import (
	"bytes"
	"strings"
	"testing"

	"linesman/session/eventlog"
)

// TestVersionFlag: `linesman --version` prints the version and exits 0,
// starting nothing.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--version", "-version", "version"} {
		var out, errOut bytes.Buffer
		if code := runArgs([]string{arg}, strings.NewReader(""), &out, &errOut); code != exitOK {
			t.Fatalf("linesman %s: exit %d (%s)", arg, code, errOut.String())
		}
		if got, want := out.String(), "linesman "+eventlog.Version+"\n"; got != want {
			t.Errorf("linesman %s printed %q, want %q", arg, got, want)
		}
	}
}
