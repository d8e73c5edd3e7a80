// Package fakeserver lets a package's tests start fake MCP servers as real
// child processes, the way go-sdk's mcp tests do: the test binary re-runs
// itself with LINESMAN_FAKE_SERVER=<name> in its environment, and the
// package's TestMain, through [Registry.Run], plays the named server
// instead of running the tests.
//
// It is for tests only (the linesman binary never imports it), and holds no
// servers of its own: each package keeps its fake servers in one file, in
// one [Registry] beside its TestMain.
package fakeserver

import (
	"fmt"
	"os"
	"testing"
)

// Env is the environment variable that names the server a re-run test
// binary plays.
const Env = "LINESMAN_FAKE_SERVER"

// ExitUnknown is the exit status of a test binary asked to play a server
// its registry does not have.
const ExitUnknown = 97

// Registry maps a fake server's name to the function that serves it on the
// process's stdin, stdout and stderr. A server returning ends the child with
// status 0; it may os.Exit with another.
type Registry map[string]func()

// Run is the body of TestMain: in a child started for a fake server it
// plays that server and exits; otherwise it runs the tests and returns
// their exit status, for TestMain to clean up and os.Exit with.
func (r Registry) Run(m *testing.M) int {
	if name := os.Getenv(Env); name != "" {
		serve, ok := r[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no fake server %q\n", name)
			os.Exit(ExitUnknown)
		}
		serve()
		os.Exit(0)
	}
	return m.Run()
}

// Command is the argv that starts this test binary as a child that runs no
// test; with [Registry.Env] in its environment it plays the named server.
// It panics on a name the registry does not have: a typo in a test must
// not pass as a server that exits at once.
func (r Registry) Command(name string) []string {
	r.check(name)
	return []string{os.Args[0], "-test.run=^$"}
}

// Env is the environment entry that selects the named server.
func (r Registry) Env(name string) string {
	r.check(name)
	return Env + "=" + name
}

func (r Registry) check(name string) {
	if _, ok := r[name]; !ok {
		panic("unknown fake server " + name)
	}
}
