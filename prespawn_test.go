//go:build linux

package main

import (
	"strings"
	"testing"
)

// TestOneShotUsesTheWaitingHelper: `linesman send -- SERVER` starts its
// server through the reaper helper it started at init (argv: the helper's
// name alone, the request came later on its control socket), not through
// one started for the server (argv: the helper's name, then the server's
// program and argv); with LINESMAN_PRESPAWN=0 it is the latter. Either way the
// session is the same.
func TestOneShotUsesTheWaitingHelper(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":"l","method":"tools/list"}` + "\n"
	for _, c := range []struct {
		env  string
		want string
	}{
		{"1", "parent argv: linesman-reaper"},
		{"0", "parent argv: linesman-reaper " + testBinary + " " + testBinary + " -test.run=^$"}, // the program, then its argv
	} {
		t.Run("LINESMAN_PRESPAWN="+c.env, func(t *testing.T) {
			t.Setenv("LINESMAN_PRESPAWN", c.env)
			r, status := sendJSON(t, "headless-parent-argv", input)
			if status != 0 {
				t.Errorf("status %d", status)
			}
			if got := strings.Join(r.Stderr, "\n"); got != c.want {
				t.Errorf("the server's stderr says\n%q, want\n%q", got, c.want)
			}
		})
	}
}
