package session

import (
	"fmt"
	"os"
	"testing"
)

// fakeServers are misbehaving (or well-behaved) servers that tests start as
// real child processes by re-running this test binary with
// LINESMAN_FAKE_SERVER=<name>. Test files register theirs in init().
var fakeServers = map[string]func(){}

// registerFake adds a fake server; it panics on a duplicate name so two test
// files cannot silently shadow each other.
func registerFake(name string, serve func()) {
	if _, dup := fakeServers[name]; dup {
		panic("duplicate fake server " + name)
	}
	fakeServers[name] = serve
}

// fakeCommand returns the argv that starts the named fake server.
func fakeCommand(name string) []string {
	if _, ok := fakeServers[name]; !ok {
		panic("unknown fake server " + name)
	}
	return []string{os.Args[0], "-test.run=^$"}
}

// fakeEnv returns the environment override that selects the named fake server.
func fakeEnv(name string) []string { return []string{"LINESMAN_FAKE_SERVER=" + name} }

func TestMain(m *testing.M) {
	if name := os.Getenv("LINESMAN_FAKE_SERVER"); name != "" {
		serve, ok := fakeServers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "no fake server %q\n", name)
			os.Exit(97)
		}
		serve()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
