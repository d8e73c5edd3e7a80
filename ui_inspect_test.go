package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestUIInspectUsageErrors checks the inspector's command line: every
// mistake is a usage error (status 2) that says what to do, and none starts
// a server.
func TestUIInspectUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--theme", "sepia"}, "unknown theme"},
		{[]string{"--demo-unsafe", "--", "cat"}, "--demo-unsafe applies to the built-in demo server only"},
		{[]string{"--era", "medieval"}, "--era"},
		{[]string{"--", "cat"}, "needs a terminal"}, // stdout is a buffer here
	} {
		var stdout, stderr bytes.Buffer
		if got := run(c.args, strings.NewReader(""), &stdout, &stderr); got != exitUsage {
			t.Errorf("linesman %v: status %d, want %d (stderr %q)", c.args, got, exitUsage, stderr.String())
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("linesman %v: stderr %q does not say %q", c.args, stderr.String(), c.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("linesman %v wrote to stdout: %q", c.args, stdout.String())
		}
	}
}
