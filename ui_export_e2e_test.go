package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestUIViewExport records the demo server with check --capture, opens the
// capture with `linesman view` in a pseudo-terminal, and exports it with X
// (format key, file name typed over the offered one, enter): each file is
// byte for byte what `linesman export FILE --format F` writes.
func TestUIViewExport(t *testing.T) {
	bin := linesmanBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.jsonl")
	if out, err := exec.Command(bin, "check", "--json", "--capture", path, "--", bin, "demo-server").CombinedOutput(); err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	term := startTerminal(t, 160, 40, "view", path)
	term.waitFor("capture demo.jsonl")
	for _, c := range []struct{ key, format, what string }{
		{"r", "replay", "client frames as a replay script"},
		{"f", "findings", "wrote the findings report"},
		{"t", "transcript", "events as a transcript"},
	} {
		out := filepath.Join(dir, "ui-"+c.format)
		term.send("X")
		term.waitFor("export as:")
		term.send(c.key)
		term.waitFor("export " + c.format + " to: linesman-" + c.format + "-")
		term.send("\x15" + out + "\r") // ctrl+u clears the offered name
		term.waitFor(c.what)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exec.Command(bin, "export", path, "--format", c.format).Output()
		if err != nil {
			t.Fatalf("export --format %s: %v", c.format, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the UI's export differs from linesman export:\n--- ui ---\n%s\n--- export ---\n%s", c.format, got, want)
		}
	}
	term.send("q")
	if err := term.wait(); err != nil {
		t.Fatalf("view: %v", err)
	}
}
