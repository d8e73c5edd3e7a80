package main

import (
	"debug/elf"
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
// runs before every server start, initialises the standard library's
// process-level packages it needs and runs before any package of the UI,
// the judge or capture is initialised (lipgloss detects the terminal's
// colours at init, the clipboard searches PATH, the registry and the JSON
// Schema library built tables: a whole linesman start-up in front of every
// server's, which the helper never used), and before the third-party
// packages that merely sort before linesman's own (golang.org/x/sys/unix,
// go-runewidth): Go initialises in import-path order, which is why the
// helper's package is 0linesman/reaper. A linesman that is not the helper
// initialises them all. Both helpers are checked: started for a server, and
// waiting for one (started at linesman's init).
func TestReaperHelperSkipsLinesmansInit(t *testing.T) {
	t.Parallel()
	heavy := []string{"charm.land/lipgloss/v2", "github.com/atotto/clipboard", "linesman/wire", "linesman/capture",
		"golang.org/x/sys/unix", "github.com/mattn/go-runewidth", "encoding/json", "flag"}
	full := initTrace(t, "linesman", "explain", "blank-line")
	if len(full) == 0 {
		t.Fatal("no init trace of linesman")
	}
	for _, args := range [][]string{{"/bin/true", "true"}, nil} { // started for a server; waiting
		helper := initTrace(t, "linesman-reaper", args...)
		if len(helper) == 0 {
			t.Fatalf("no init trace of the helper %q", args)
		}
		checkHelperInit(t, full, helper, heavy)
	}
}

func checkHelperInit(t *testing.T, full, helper, heavy []string) {
	t.Helper()
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

// TestBinaryIsStatic: the linesman binary, built as `go build` builds it
// (cgo on where a C compiler is installed, as here), has no program
// interpreter: no dynamic loader runs at each of its starts, linesman's
// and every reaper helper's. The one package that linked libc, os/user
// (through github.com/xo/terminfo), is out of the build
// (third_party/terminfo); a new dependency that brings cgo back fails here.
func TestBinaryIsStatic(t *testing.T) {
	t.Parallel()
	f, err := elf.Open(linesmanBinary(t))
	if err != nil {
		t.Skipf("not an ELF binary here: %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary is dynamically linked (it has a PT_INTERP program header); `go list -deps -f '{{if .CgoFiles}}{{.ImportPath}}{{end}}' .` names the packages that use cgo")
		}
	}
}
