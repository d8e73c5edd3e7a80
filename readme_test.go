package main

import (
	"os"
	"strings"
	"testing"

	"linesman/ui"
)

// readmeSection returns the text between <!-- NAME:begin --> and
// <!-- NAME:end --> in the README, and the README split around it.
func readmeSection(t *testing.T, readme, name string) (before, body, after string) {
	t.Helper()
	begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
	i := strings.Index(readme, begin)
	j := strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %s section (%q … %q)", name, begin, end)
	}
	return readme[:i+len(begin)], readme[i+len(begin) : j], readme[j:]
}

// TestUIReadmeKeysAndScreen keeps the README's key table equal to the key
// map, its filter syntax equal to the UI's, and its screenshot equal to a
// golden rendering of the UI. UPDATE_README=1 rewrites the sections.
func TestUIReadmeKeysAndScreen(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	screen, err := os.ReadFile("ui/testdata/golden/80x24/screen-running.txt")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	want := map[string]string{
		"keys":   ui.MarkdownTable(),
		"filter": "```\n" + ui.FilterSyntax + "\n```\n",
		"screen": "```\n" + string(screen) + "```\n",
	}
	for _, name := range []string{"keys", "filter", "screen"} {
		before, body, after := readmeSection(t, readme, name)
		if body == want[name] {
			continue
		}
		if os.Getenv("UPDATE_README") != "" {
			readme = before + want[name] + after
			continue
		}
		t.Errorf("README.md's %s section differs from the UI; UPDATE_README=1 go test -run %s . rewrites it\n--- README ---\n%s\n--- UI ---\n%s", name, t.Name(), body, want[name])
	}
	if os.Getenv("UPDATE_README") != "" {
		if err := os.WriteFile("README.md", []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
