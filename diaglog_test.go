package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"linesman/capture"
)

// TestLogFileIsPrivateAndInert: --log creates its file 0600 (it quotes the
// server, like a capture, which is 0600 too), and nothing in it can drive
// the terminal that cats it: a server path holding OSC 0 (title) and OSC 52
// (clipboard) used to be written raw, here and on stderr.
func TestLogFileIsPrivateAndInert(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "diag.log")
	hostile := filepath.Join(dir, "srv\x1b]0;pwned\x07\x1b]52;c;Zm9v\x07\u202e\u009b2J")
	status, out, errOut := runBinary(t, nil, "check", "--log", logPath, "--", hostile)
	if status != exitFindings {
		t.Errorf("status %d, want %d", status, exitFindings)
	}
	fi, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("--log file mode %v, want 0600", perm)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "cannot start") {
		t.Errorf("the log does not say the start failed:\n%s", b)
	}
	for name, text := range map[string][]byte{"--log file": b, "stdout": out, "stderr": errOut} {
		if err := terminalSafe(text); err != nil {
			t.Errorf("%s: %v\n%q", name, err, text)
		}
	}
}

// TestCleanEnv: --clean-env starts the server with PATH, HOME, LANG, TERM,
// USER, LOGNAME and SHELL from linesman's environment plus -e values, and
// nothing else; without it the server inherits everything.
func TestCleanEnv(t *testing.T) {
	t.Setenv("LINESMAN_TEST_SECRET", "hunter2")
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("BASH_FUNC_x%%", "() { :; }")
	dir := t.TempDir()
	for _, clean := range []bool{false, true} {
		out := filepath.Join(dir, "env")
		args := []string{"check", "-e", "FROM_FLAG=1"}
		capPath := filepath.Join(dir, "env.jsonl")
		args = append(args, "--capture", capPath)
		if clean {
			args = append(args, "--clean-env")
		}
		args = append(args, "--", "sh", "-c", `env > "$0"`, out)
		runBinary(t, nil, args...)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]bool{}
		for _, kv := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, _, _ := strings.Cut(kv, "=")
			env[k] = true
		}
		if !env["FROM_FLAG"] || !env["PATH"] || !env["LANG"] {
			t.Errorf("clean=%v: the server lacks FROM_FLAG, PATH or LANG:\n%s", clean, b)
		}
		if env["LINESMAN_TEST_SECRET"] == clean {
			t.Errorf("clean=%v: LINESMAN_TEST_SECRET present=%v:\n%s", clean, env["LINESMAN_TEST_SECRET"], b)
		}
		if clean {
			for k := range env {
				switch k {
				case "PATH", "HOME", "LANG", "TERM", "USER", "LOGNAME", "SHELL", "FROM_FLAG", "PWD", "SHLVL", "_":
					// PWD, SHLVL and _ are sh's own.
				default:
					t.Errorf("--clean-env: the server got %s", k)
				}
			}
		}
		// The capture's header lists the environment the server got.
		c, err := capture.Open(capPath)
		if err != nil {
			t.Fatal(err)
		}
		secret := false
		for _, v := range c.Header.Env {
			secret = secret || v.Name == "LINESMAN_TEST_SECRET"
		}
		if secret == clean {
			t.Errorf("clean=%v: the capture header lists LINESMAN_TEST_SECRET: %v", clean, secret)
		}
		os.Remove(out)
	}
}

// TestLogFileExistingMadePrivate: an existing --log file readable by
// others (0666, as a umask of 0 leaves it) is made 0600: O_CREATE keeps an
// existing file's mode, and the log quotes the server.
func TestLogFileExistingMadePrivate(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "diag.log")
	if err := os.WriteFile(logPath, []byte("earlier\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(logPath, 0o666); err != nil {
		t.Fatal(err)
	}
	runBinary(t, nil, "check", "--log", logPath, "--", filepath.Join(t.TempDir(), "missing"))
	fi, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("--log file mode %v, want 0600", perm)
	}
	if b, _ := os.ReadFile(logPath); !strings.HasPrefix(string(b), "earlier\n") || !strings.Contains(string(b), "cannot start") {
		t.Errorf("the log was not appended to:\n%s", b)
	}
}

// TestLogFileFullDiskIsSaid: a --log on a full disk (/dev/full) says on
// stderr that the log stops short; before, it was silent (0 bytes, exit 0).
func TestLogFileFullDiskIsSaid(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	status, _, errOut := runBinary(t, nil, append([]string{"check", "--log", "/dev/full"}, fakeServerArgs("headless-go-sdk")...)...)
	if !strings.Contains(string(errOut), "--log /dev/full: ") || !strings.Contains(string(errOut), "no space left on device") {
		t.Errorf("status %d; stderr does not say the log could not be written:\n%s", status, errOut)
	}
	if n := strings.Count(string(errOut), "--log /dev/full"); n != 1 {
		t.Errorf("said %d times, want once:\n%s", n, errOut)
	}
}
