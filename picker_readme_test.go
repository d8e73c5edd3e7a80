package main

import (
	"os"
	"testing"
)

// TestReadmeFormScreen keeps the README's picture of the form (a tool's
// form after ctrl+s found two fields wrong) equal to its golden rendering.
// UPDATE_README=1 rewrites it.
func TestReadmeFormScreen(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	screen, err := os.ReadFile("ui/testdata/golden/80x24/form-errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := "```\n" + string(screen) + "```\n"
	before, body, after := readmeSection(t, string(b), "form-screen")
	if body == want {
		return
	}
	if os.Getenv("UPDATE_README") == "" {
		t.Fatalf("README.md's form-screen section differs from the golden; UPDATE_README=1 go test -run %s . rewrites it\n--- README ---\n%s\n--- UI ---\n%s", t.Name(), body, want)
	}
	if err := os.WriteFile("README.md", []byte(before+want+after), 0o644); err != nil {
		t.Fatal(err)
	}
}
