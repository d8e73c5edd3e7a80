package main

import (
	"os"
	"testing"
)

// TestReadmeGoldenScreens keeps the README's pictures of the picker, a
// form (a tool's form after ctrl+s found two fields wrong), the findings
// list and a server that exits at once equal to their golden renderings.
// UPDATE_README=1 rewrites them.
func TestReadmeGoldenScreens(t *testing.T) {
	t.Parallel()
	for section, golden := range map[string]string{
		"picker-screen":   "ui/testdata/golden/80x24/picker.txt",
		"form-screen":     "ui/testdata/golden/80x24/form-errors.txt",
		"findings-screen": "ui/testdata/golden/80x24/findings.txt",
		"exit-screen":     "ui/testdata/golden/80x24/exit-at-start.txt",
	} {
		b, err := os.ReadFile("README.md")
		if err != nil {
			t.Fatal(err)
		}
		screen, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		want := "```\n" + string(screen) + "```\n"
		before, body, after := readmeSection(t, string(b), section)
		if body == want {
			continue
		}
		if os.Getenv("UPDATE_README") == "" {
			t.Errorf("README.md's %s section differs from %s; UPDATE_README=1 go test -run %s . rewrites it\n--- README ---\n%s\n--- UI ---\n%s", section, golden, t.Name(), body, want)
			continue
		}
		if err := os.WriteFile("README.md", []byte(before+want+after), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
