package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"linesman/capture"
)

// writeConfig writes a VS Code workspace config (JSONC, with a comment and
// trailing commas) whose server "good" is a fake server of this test
// binary, picked by a variable the config sets from ${env:...}.
func writeConfig(t *testing.T) (path string, original []byte) {
	t.Helper()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".vscode"), 0o755)
	path = filepath.Join(ws, ".vscode", "mcp.json")
	original = []byte(`{
  // a test workspace
  "servers": {
    "good": {
      "type": "stdio",
      "command": ` + quoteJSON(testBinary) + `,
      "args": ["-test.run=^$", "--", "--api-key", "arg-secret-value"],
      "env": {"LINESMAN_FAKE_SERVER": "${env:LINESMAN_TEST_FAKE}", "SECRET_TOKEN": "do-not-print-me",},
    },
    "remote": {"type": "http", "url": "https://example.com/mcp"},
  },
}
`)
	if err := os.WriteFile(path, original, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, original
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestCheckConfigStartsTheServerAsTheHostWould: the command, the args and
// an env value resolved from ${env:...} reach the server (the fake is only
// chosen through that variable).
func TestCheckConfigStartsTheServerAsTheHostWould(t *testing.T) {
	t.Parallel()
	path, _ := writeConfig(t)
	cmd := exec.Command(linesmanBinary(t), "check", "--config", path, "good")
	cmd.Env = append(os.Environ(), "LINESMAN_TEST_FAKE=headless-good")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "headless-good") {
		t.Fatalf("check --config: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "do-not-print-me") {
		t.Errorf("an env value from the config was printed:\n%s", out)
	}
	// No NAME: the servers are listed, with env names and no values.
	status, stdout, stderr := runBinary(t, nil, "check", "--config", path)
	if status != exitUsage || len(stdout) != 0 || !bytes.Contains(stderr, []byte("SECRET_TOKEN")) ||
		bytes.Contains(stderr, []byte("do-not-print-me")) || bytes.Contains(stderr, []byte("arg-secret-value")) ||
		!bytes.Contains(stderr, []byte("--api-key <redacted>")) || !bytes.Contains(stderr, []byte("remote")) {
		t.Errorf("no NAME: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
}

// TestWrapUnwrapAConfigFile: dry run writes nothing and shows no secret;
// wrap writes a backup and routes the entry through the tap (which then
// runs: check drives the wrapped entry); a second wrap changes nothing;
// unwrap gives the file back byte for byte.
func TestWrapUnwrapAConfigFile(t *testing.T) {
	t.Parallel()
	bin := linesmanBinary(t)
	path, original := writeConfig(t)
	status, stdout, _ := runBinary(t, nil, "wrap", "--config", path, "--dry-run")
	if status != exitOK || !bytes.Contains(stdout, []byte(`"tap", "--name", "good"`)) || bytes.Contains(stdout, []byte("do-not-print-me")) ||
		bytes.Contains(stdout, []byte("arg-secret-value")) {
		t.Fatalf("dry run: %d\n%s", status, stdout)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, original) {
		t.Fatal("the dry run changed the file")
	}
	if status, stdout, stderr := runBinary(t, nil, "wrap", "--config", path); status != exitOK {
		t.Fatalf("wrap: %d %s %s", status, stdout, stderr)
	}
	if b, _ := os.ReadFile(path + ".linesman-backup"); !bytes.Equal(b, original) {
		t.Errorf("the backup is not the original")
	}
	wrapped, _ := os.ReadFile(path)
	if !bytes.Contains(wrapped, []byte(quoteJSON(bin))) || !bytes.Contains(wrapped, []byte("// a test workspace")) {
		t.Errorf("wrapped file:\n%s", wrapped)
	}
	if status, stdout, _ := runBinary(t, nil, "wrap", "--config", path); status != exitOK || !bytes.Contains(stdout, []byte("already wrapped")) {
		t.Errorf("second wrap: %d\n%s", status, stdout)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, wrapped) {
		t.Errorf("a second wrap changed the file")
	}

	// The host starts the wrapped entry: linesman tap, then the server.
	taps := t.TempDir()
	cmd := exec.Command(bin, "check", "--config", path, "good")
	cmd.Env = append(os.Environ(), "LINESMAN_TEST_FAKE=headless-good", "LINESMAN_TAP_DIR="+taps)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "headless-good") {
		t.Fatalf("check of the wrapped entry: %v\n%s", err, out)
	}
	status, stdout, _ = runBinaryEnv(t, []string{"LINESMAN_TAP_DIR=" + taps}, "taps")
	if status != exitOK || !bytes.Contains(stdout, []byte("good ")) || !bytes.Contains(stdout, []byte("exit 0")) {
		t.Errorf("taps after the wrapped run: %d\n%s", status, stdout)
	}

	if status, stdout, stderr := runBinary(t, nil, "unwrap", "--config", path); status != exitOK {
		t.Fatalf("unwrap: %d %s %s", status, stdout, stderr)
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, original) {
		t.Errorf("unwrap did not restore the file:\n%s", back)
	}
}

// runBinaryEnv runs linesman with extra environment variables.
func runBinaryEnv(t *testing.T, env []string, args ...string) (int, []byte, []byte) {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stdout.Bytes(), stderr.Bytes()
}

// TestWithConfigArguments: --config is the mode's only when it comes
// before the first positional argument; NAME may come before the mode's
// later flags; the config's env and cwd come first so the user's -e wins.
func TestWithConfigArguments(t *testing.T) {
	path, _ := writeConfig(t)
	t.Setenv("LINESMAN_TEST_FAKE", "headless-good")
	var stdout, stderr bytes.Buffer
	if status := runArgs([]string{"node", "server.js", "--config", "cfg.json"}, strings.NewReader(""), &stdout, &stderr); status != exitUsage ||
		!strings.Contains(stderr.String(), "needs a terminal") {
		t.Errorf("a server's own --config was taken: status %d, %s", status, stderr.String())
	}
	capturePath := filepath.Join(t.TempDir(), "run.jsonl")
	status, out, errOut := runBinary(t, nil, "check", "--era", "legacy", "--config", path, "good", "--json",
		"-e", "X=1", "-e", "SECRET_TOKEN=mine", "--capture", capturePath, "--capture-env")
	if status != exitOK || !strings.Contains(string(out), `"era": "legacy"`) {
		t.Fatalf("check --config: status %d\n%s\n%s", status, out, errOut)
	}
	c, err := capture.Open(capturePath)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, v := range c.Header.Env {
		env[v.Name] = *v.Value
	}
	if env["LINESMAN_FAKE_SERVER"] != "headless-good" || env["X"] != "1" || env["SECRET_TOKEN"] != "mine" {
		t.Errorf("the server's environment: %q", env)
	}
	if want := []string{testBinary, "-test.run=^$", "--", "--api-key", "arg-secret-value"}; !slices.Equal(c.Header.Command, want) {
		t.Errorf("command %q, want %q", c.Header.Command, want)
	}
}

// TestWrapKeepsOneBackup: each wrap or unwrap leaves one backup per file,
// the latest, private (0600) whatever the file's mode, and removes the
// numbered ones earlier versions left; the output names it.
func TestWrapKeepsOneBackup(t *testing.T) {
	t.Parallel()
	path, original := writeConfig(t)
	os.Chmod(path, 0o644)
	legacy := path + ".linesman-backup-2"
	os.WriteFile(legacy, original, 0o644)
	var beforeLast []byte
	for _, mode := range []string{"wrap", "unwrap", "wrap"} {
		beforeLast, _ = os.ReadFile(path)
		status, stdout, stderr := runBinary(t, nil, mode, "--config", path)
		if status != exitOK || !bytes.Contains(stdout, []byte(path+".linesman-backup\n")) {
			t.Fatalf("%s: %d %s %s", mode, status, stdout, stderr)
		}
	}
	backups, _ := filepath.Glob(path + ".linesman-backup*")
	if len(backups) != 1 || backups[0] != path+".linesman-backup" {
		t.Fatalf("backups after wrap, unwrap, wrap: %q; want the one", backups)
	}
	fi, err := os.Stat(backups[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v (%v); want 0600", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(backups[0]); !bytes.Equal(b, beforeLast) {
		t.Errorf("the backup is not the file before the last wrap")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("the config's own mode changed to %v", fi.Mode())
	}
}
