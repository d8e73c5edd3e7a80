package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"linesman/capture"
	"linesman/session/hosts"
)

// minimalHostEnv is the environment the SDKs' stdio clients (and the MCP
// Inspector) give a server: these six variables and nothing else.
func minimalHostEnv(home string) []string {
	return []string{"HOME=" + home, "LOGNAME=tester", "PATH=" + os.Getenv("PATH"), "SHELL=/bin/sh", "TERM=dumb", "USER=tester"}
}

// hostStarts starts the server of the config's entry name as a host does:
// the entry's command, args and env over the minimal environment, driven
// by the Go SDK's client through CommandTransport (initialize, tools/call
// greet, close).
func hostStarts(t *testing.T, path, name, home string) string {
	t.Helper()
	f, err := hosts.Read(path, "")
	if err != nil {
		t.Fatal(err)
	}
	e, ok := f.Find(name)
	if !ok {
		t.Fatalf("no entry %q in\n%s", name, f.Data)
	}
	cmd := exec.Command(e.Command, e.Args...)
	cmd.Env = minimalHostEnv(home)
	for _, v := range e.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	return greetThrough(t, cmd)
}

// greetThrough drives the greeter cmd starts with the Go SDK's client
// through CommandTransport: initialize, tools/call greet, close.
func greetThrough(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "minimal-host", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "host"}})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("tools/call: %v %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

// followTranscript runs 'view --follow arg' with env (stdout a pipe: a
// transcript) until its output holds want, then interrupts it.
func followTranscript(t *testing.T, env []string, arg, want string) string {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), "view", "--follow", arg)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := pollUntil(15*time.Second, func() bool { return strings.Contains(out.String(), want) })
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if !found {
		t.Errorf("view --follow %s never showed %q:\n%s\nstderr: %s", arg, want, out.String(), errOut.String())
	}
	return out.String()
}

// TestWrappedConfigUnderAMinimalHost is the tap inside a real host, end to
// end: with LINESMAN_TAP_DIR set in the user's shell, wrap pins the
// directory in the entry; the Go SDK's client starts the wrapped entry
// with only the six variables hosts pass; the capture lands in the user's
// directory, 'taps' lists it, 'view --follow NAME' follows it; unwrap
// gives the file back byte for byte. The entry's name is Cline's kind, a
// repository path: the tap keeps it whole.
func TestWrappedConfigUnderAMinimalHost(t *testing.T) {
	t.Parallel()
	home, taps := t.TempDir(), t.TempDir()
	user := []string{"HOME=" + home, capture.TapDirEnv + "=" + taps}
	const name = "github.com/modelcontextprotocol/servers/tree/main/src/greeter" // Cline names entries so
	path := filepath.Join(t.TempDir(), "cline_mcp_settings.json")
	original := []byte(`{"mcpServers": {` + quoteJSON(name) + `: {"command": ` + quoteJSON(testBinary) +
		`, "args": ["-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": "headless-go-sdk"}}}}` + "\n")
	if err := os.WriteFile(path, original, 0o600); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := runBinaryEnv(t, user, "wrap", "--config", path)
	if status != exitOK || !bytes.Contains(stdout, []byte(taps)) {
		t.Fatalf("wrap: %d\n%s%s", status, stdout, stderr)
	}

	if got := hostStarts(t, path, name, home); got != "Hi host" {
		t.Errorf("the host got %q through the tap", got)
	}
	if l, _ := capture.ListTaps(taps); len(l) != 1 {
		t.Fatalf("taps in %s: %+v; want the one capture there", taps, l)
	}
	status, stdout, _ = runBinaryEnv(t, user, "taps")
	if status != exitOK || !bytes.Contains(stdout, []byte(name+" ")) || !bytes.Contains(stdout, []byte("exit 0")) {
		t.Errorf("taps: %d\n%s", status, stdout)
	}
	followTranscript(t, user, name, "Hi host")

	if status, stdout, stderr := runBinaryEnv(t, user, "unwrap", "--config", path); status != exitOK {
		t.Fatalf("unwrap: %d %s %s", status, stdout, stderr)
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, original) {
		t.Errorf("unwrap did not restore the file:\n%s", back)
	}
}

// TestTapsListsEveryKnownDirectory: a tap a host started without the
// user's LINESMAN_TAP_DIR (an entry wrapped before --dir was pinned)
// writes to the default directory; 'taps' and 'view --follow' with
// LINESMAN_TAP_DIR set still find it there.
func TestTapsListsEveryKnownDirectory(t *testing.T) {
	t.Parallel()
	home, taps := t.TempDir(), t.TempDir()
	path := filepath.Join(t.TempDir(), "cline_mcp_settings.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"greeter": {"command": "`+linesmanBinary(t)+`", "args": ["tap", "--name", "greeter", "--", `+
		quoteJSON(testBinary)+`, "-test.run=^$"], "env": {"LINESMAN_FAKE_SERVER": "headless-go-sdk"}}}}`), 0o600)
	hostStarts(t, path, "greeter", home)
	if l, _ := capture.ListTaps(capture.DefaultTapDir(home)); len(l) != 1 {
		t.Fatalf("the tap did not write to the default directory: %+v", l)
	}
	user := []string{"HOME=" + home, capture.TapDirEnv + "=" + taps}
	status, stdout, _ := runBinaryEnv(t, user, "taps")
	if status != exitOK || !bytes.Contains(stdout, []byte("greeter ")) {
		t.Errorf("taps: %d\n%s", status, stdout)
	}
	followTranscript(t, user, "greeter", "Hi host")
}
