package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTopLevelHelpNamesEveryMode: `linesman --help` is where a new user
// looks first, so it must lead to every mode, and `linesman help` too.
func TestTopLevelHelpNamesEveryMode(t *testing.T) {
	modes := []string{"linesman check", "linesman send", "linesman view", "linesman export", "linesman explain", "linesman demo-server"}
	for _, args := range [][]string{{"--help"}, {"help"}} {
		var out, errOut bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errOut); code != exitOK {
			t.Fatalf("linesman %v: exit %d", args, code)
		}
		text := out.String() + errOut.String()
		for _, m := range modes {
			if !strings.Contains(text, m) {
				t.Errorf("linesman %v does not mention %q:\n%s", args, m, text)
			}
		}
	}
}
