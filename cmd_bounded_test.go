package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryFileInputBounded: each file linesman is given — a config (with
// and without --all), a plain server list, a VS Code/Cursor envFile, an
// opencode {file:…}, a baseline, a diff input, a config being wrapped — is
// read within a bound: /dev/zero and a file past the bound end in an error
// that names the file and the limit, not in memory (before, each grew to
// 0.6–2.6 GiB on /dev/zero). diff reads a larger file as a recording, as it
// streams one.
func TestEveryFileInputBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(17 << 20) // sparse: past the config bound, no disk used
	f.Close()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	envFile := write("cursor/.cursor/mcp.json", `{"mcpServers":{"s":{"command":"true","envFile":"/dev/zero"}}}`)
	fileValue := write("opencode/opencode.json", `{"mcp":{"s":{"type":"local","command":["true"],"environment":{"K":"{file:/dev/zero}"}}}}`)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--config", "/dev/zero", "s"}, []string{"/dev/zero", "16 MiB", "config"}},
		{[]string{"check", "--all", "--config", "/dev/zero"}, []string{"/dev/zero", "16 MiB"}},
		{[]string{"check", "--config", big, "s"}, []string{big, "16 MiB"}},
		{[]string{"check", "--config", envFile, "s"}, []string{"/dev/zero", "1 MiB", "envFile"}},
		{[]string{"check", "--config", fileValue, "s"}, []string{"/dev/zero", "1 MiB"}},
		{[]string{"check", "--baseline", "/dev/zero", "--", "true"}, []string{"/dev/zero", "64 MiB", "baseline"}},
		{[]string{"diff", "/dev/zero", big}, []string{"/dev/zero"}},
		{[]string{"wrap", "--config", "/dev/zero", "s"}, []string{"/dev/zero"}},
	} {
		status, out, errOut := runBinary(t, nil, c.args...)
		text := string(out) + string(errOut)
		if status == 0 {
			t.Errorf("%s: status 0\n%s", strings.Join(c.args, " "), text)
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in the error:\n%.600s", strings.Join(c.args, " "), w, text)
			}
		}
	}
}
