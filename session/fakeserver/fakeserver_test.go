package fakeserver

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

var servers = Registry{"hello": func() { os.Stdout.WriteString("hello from a child\n") }}

func TestMain(m *testing.M) { os.Exit(servers.Run(m)) }

// TestRegistry: the test binary re-run with Env plays the server named;
// an unknown name exits ExitUnknown; Command refuses an unknown name.
func TestRegistry(t *testing.T) {
	argv := servers.Command("hello")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), servers.Env("hello"))
	out, err := cmd.Output()
	if err != nil || string(out) != "hello from a child\n" {
		t.Fatalf("hello: %q, %v", out, err)
	}

	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), Env+"=nope")
	var ee *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != ExitUnknown {
		t.Fatalf("an unknown server: %v, want status %d", err, ExitUnknown)
	}

	defer func() {
		if recover() == nil {
			t.Error("Command of an unknown server did not panic")
		}
	}()
	servers.Command("nope")
}
