package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// fakeServers are servers that end-to-end tests start as real child
// processes by re-running this test binary with LINESMAN_FAKE_SERVER=<name>.
// Test files register theirs in init() with registerFake.
var fakeServers = map[string]func(){}

func registerFake(name string, serve func()) {
	if _, dup := fakeServers[name]; dup {
		panic("duplicate fake server " + name)
	}
	fakeServers[name] = serve
}

// fakeServerArgs returns "-e LINESMAN_FAKE_SERVER=<name> -- <this test binary>",
// the tail of a linesman command line that inspects the named fake server.
func fakeServerArgs(name string) []string {
	if _, ok := fakeServers[name]; !ok {
		panic("unknown fake server " + name)
	}
	return []string{"-e", "LINESMAN_FAKE_SERVER=" + name, "--", testBinary, "-test.run=^$"}
}

var testBinary = os.Args[0]

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// linesmanBinary builds the real linesman binary once per test run and
// returns its path.
func linesmanBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "linesman-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "linesman")
		out, err := exec.Command("go", "build", "-o", builtPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

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
	code := m.Run()
	if builtPath != "" {
		os.RemoveAll(filepath.Dir(builtPath))
	}
	os.Exit(code)
}
