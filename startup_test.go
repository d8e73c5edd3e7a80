package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// initTrace runs the linesman binary as argv0 with args under
// GODEBUG=inittrace=1 and returns the packages it initialised, in order.
func initTrace(t *testing.T, argv0 string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Args[0] = argv0
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	// The helper's control pipe (fd 3) and event pipe (fd 4): /dev/null,
	// so it starts the server, sees EOF at once and ends it.
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd.ExtraFiles = []*os.File{null, null}
	out, _ := cmd.CombinedOutput()
	var pkgs []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			pkgs = append(pkgs, f[1])
		}
	}
	return pkgs
}

// TestReaperHelperSkipsLinesmansInit: the reaper helper, which linesman
// runs before every server start, initialises the process-level packages
// it needs and runs before any package of the UI, the judge or capture is
// initialised (lipgloss detects the terminal's colours at init, the
// clipboard searches PATH, the registry and the JSON Schema library built
// tables: a whole linesman start-up in front of every server's, which the
// helper never used). A linesman that is not the helper initialises them.
func TestReaperHelperSkipsLinesmansInit(t *testing.T) {
	heavy := []string{"charm.land/lipgloss/v2", "github.com/atotto/clipboard", "linesman/wire", "linesman/capture"}
	full := initTrace(t, "linesman", "explain", "blank-line")
	helper := initTrace(t, "linesman-reaper", "/bin/true", "true")
	if len(full) == 0 || len(helper) == 0 {
		t.Fatalf("no init trace: %d and %d packages", len(full), len(helper))
	}
	has := func(pkgs []string, p string) bool {
		for _, q := range pkgs {
			if q == p {
				return true
			}
		}
		return false
	}
	for _, p := range heavy {
		if !has(full, p) {
			t.Errorf("linesman explain did not initialise %s: the test no longer tells anything", p)
		}
	}
	for _, p := range heavy {
		if has(helper, p) {
			t.Errorf("the reaper helper initialised %s before it ran (%d packages: %s)", p, len(helper), strings.Join(helper, " "))
		}
	}
}
