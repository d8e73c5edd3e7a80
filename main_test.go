package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTopLevelHelpNamesEveryMode: `linesman --help` is where a new user
// looks first, so it must lead to every mode, and `linesman help` too.
func TestTopLevelHelpNamesEveryMode(t *testing.T) {
	t.Parallel()
	modes := []string{"linesman check", "linesman send", "linesman view", "linesman export", "linesman explain", "linesman demo-server"}
	for _, args := range [][]string{{"--help"}, {"help"}} {
		var out, errOut bytes.Buffer
		if code := runArgs(args, strings.NewReader(""), &out, &errOut); code != exitOK {
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

// TestHeadlessUsage: usage errors exit 2; --help explains with an example.
func TestHeadlessUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"check"}, 2, "no server command"},
		{[]string{"send"}, 2, "no server command"},
		{[]string{"check", "--era", "ancient", "--", "true"}, 2, "--era"},
		{[]string{"check", "--bogus", "--", "true"}, 2, "flag provided but not defined"},
		{[]string{"send", "--file", "/nonexistent/frames", "--", "true"}, 2, "reading the frames"},
		{[]string{"check", "--help"}, 0, "linesman check --json --timeout 10s"},
		{[]string{"send", "--help"}, 0, "--raw"},
	} {
		status, out, errOut := runBinary(t, nil, c.args...)
		// --help is asked for: it goes to stdout (so it pages); errors go to stderr.
		asked, other := errOut, out
		if c.status == 0 {
			asked, other = out, errOut
		}
		if status != c.status || !strings.Contains(string(asked), c.want) {
			t.Errorf("linesman %v: status %d, stdout %q, stderr %q; want %d and %q", c.args, status, out, errOut, c.status, c.want)
		}
		if len(other) != 0 {
			t.Errorf("linesman %v wrote to the wrong stream: %s", c.args, other)
		}
		if c.status != 0 && strings.Count(string(errOut), "\n") > 3 {
			t.Errorf("linesman %v: a usage error should be short, got:\n%s", c.args, errOut)
		}
	}
}

// TestFlagsAfterPositionals: "explain CODE --json" and "view FILE --text"
// work like their flags-first forms (they used to take --json for a code
// and refuse the file); "--" still ends the flags.
func TestFlagsAfterPositionals(t *testing.T) {
	t.Parallel()
	status, out, errOut := runBinary(t, nil, "explain", "non-json-line", "--json")
	var infos []map[string]any
	if status != 0 || json.Unmarshal(out, &infos) != nil || len(infos) != 1 || infos[0]["code"] != "non-json-line" {
		t.Errorf("explain CODE --json: status %d\n%s\n%s", status, out, errOut)
	}
	if status, _, errOut := runBinary(t, nil, "explain", "--", "--json"); status != exitUsage || !strings.Contains(string(errOut), `unknown finding code "--json"`) {
		t.Errorf("explain -- --json: status %d, %s", status, errOut)
	}

	capFile := filepath.Join(t.TempDir(), "run.jsonl")
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", capFile}, fakeServerArgs("headless-good")...)...); status != 0 {
		t.Fatalf("check --capture: status %d\n%s", status, errOut)
	}
	if _, err := os.Stat(capFile); err != nil {
		t.Fatal(err)
	}
	status, out, errOut = runBinary(t, nil, "view", capFile, "--text")
	if status != 0 || !strings.HasPrefix(string(out), "# linesman session:") {
		t.Errorf("view FILE --text: status %d\n%.300s\n%s", status, out, errOut)
	}
}

// TestLadderWaitsMustBePositive: --stdin-wait 0 or a negative wait is a
// usage error, not a silent 2s (the session's default for zero).
func TestLadderWaitsMustBePositive(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"check", "--sigterm-wait", "0", "--", "true"},
		{"send", "--stdin-wait", "-1s", "--", "true"},
		{"--stdin-wait", "0s", "--", "true"},
	} {
		status, _, errOut := runBinary(t, nil, args...)
		if status != exitUsage || !strings.Contains(string(errOut), "want a positive duration") {
			t.Errorf("linesman %s: status %d, stderr %q", strings.Join(args, " "), status, errOut)
		}
	}
}

// TestHelpStatesEveryExitStatus: check and send --help list the statuses
// they can exit with, and every mode that catches signals (the inspector,
// check, send, view) the status of each (signals.go).
func TestHelpStatesEveryExitStatus(t *testing.T) {
	t.Parallel()
	signals := []string{"130 SIGINT", "143 SIGTERM", "129 SIGHUP"}
	for _, mode := range []string{"check", "send", "view", "", "help"} {
		args := []string{mode, "--help"}
		switch mode {
		case "":
			args = []string{"--help"}
		case "help":
			args = []string{"help"}
		}
		_, out, errOut := runBinary(t, nil, args...)
		help := strings.Join(strings.Fields(string(out)+string(errOut)), " ")
		want := signals
		if mode == "check" || mode == "send" {
			want = append([]string{"0 no finding", "2 usage error"}, signals...)
		}
		for _, w := range want {
			if !strings.Contains(help, w) {
				t.Errorf("linesman %s lacks %q", strings.Join(args, " "), w)
			}
		}
	}
}

// TestDevNullIsNotATerminal: /dev/null is a character device but no
// terminal. `view F > /dev/null` used to start the inspector (and fail: no
// TTY), and `send < /dev/null` printed the hint meant for a person typing.
func TestDevNullIsNotATerminal(t *testing.T) {
	t.Parallel()
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer devNull.Close()
	capFile := filepath.Join(t.TempDir(), "run.jsonl")
	if status, _, errOut := runBinary(t, nil, append([]string{"check", "--capture", capFile}, fakeServerArgs("headless-good")...)...); status != 0 {
		t.Fatalf("check --capture: status %d\n%s", status, errOut)
	}

	view := exec.Command(linesmanBinary(t), "view", capFile)
	view.Stdout = devNull
	var errb strings.Builder
	view.Stderr = &errb
	if err := view.Run(); err != nil {
		t.Errorf("view > /dev/null: %v\n%s", err, errb.String())
	}

	send := exec.Command(linesmanBinary(t), append([]string{"send", "--json"}, fakeServerArgs("headless-good")...)...)
	send.Stdin = devNull
	var out, errs strings.Builder
	send.Stdout, send.Stderr = &out, &errs
	if err := send.Run(); err != nil || strings.Contains(errs.String(), "ctrl+d") {
		t.Errorf("send < /dev/null: %v, stderr %q", err, errs.String())
	}
}
