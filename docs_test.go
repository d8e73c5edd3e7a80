package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"linesman/session/report"
	"linesman/ui"
)

// The README and the pages under docs/ it links. Parts of the pages are
// generated from the code (each mode's --help, the key table, the filter
// syntax, pictures of the UI); the tests here keep them equal, and
// UPDATE_DOCS=1 rewrites them.

// updateDocs reports whether the tests should rewrite the generated parts
// of the pages instead of failing on a difference.
func updateDocs() bool { return os.Getenv("UPDATE_DOCS") != "" }

// docSection returns the text between <!-- NAME:begin --> and
// <!-- NAME:end --> in page, and page split around it.
func docSection(t *testing.T, file, page, name string) (before, body, after string) {
	t.Helper()
	begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
	i := strings.Index(page, begin)
	j := strings.Index(page, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s section (%q … %q)", file, name, begin, end)
	}
	return page[:i+len(begin)], page[i+len(begin) : j], page[j:]
}

// checkGenerated compares each named section of file with want[name], and
// under UPDATE_DOCS rewrites those that differ. One test owns each file,
// so no two rewrite it at once.
func checkGenerated(t *testing.T, file string, want map[string]string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	changed := false
	for _, name := range names {
		before, body, after := docSection(t, file, page, name)
		if body == want[name] {
			continue
		}
		if updateDocs() {
			page, changed = before+want[name]+after, true
			continue
		}
		t.Errorf("%s's %s section differs from the code; UPDATE_DOCS=1 go test -run %s . rewrites it\n--- %s ---\n%s\n--- code ---\n%s", file, name, t.Name(), file, body, want[name])
	}
	if changed {
		if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fenced is text as a fenced block of the given info string.
func fenced(info, text string) string {
	return "```" + info + "\n" + strings.TrimSuffix(text, "\n") + "\n```\n"
}

// goldenScreen is a golden rendering of the UI as a fenced block.
func goldenScreen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("ui/testdata/golden/80x24", name))
	if err != nil {
		t.Fatal(err)
	}
	return fenced("", string(b))
}

// TestDocsInspectorKeysAndScreens keeps docs/inspector.md in step with the
// UI: its key table equal to the key map (ui/keys.go), its filter syntax
// to the UI's, and its pictures of the running inspector, the picker, a
// form (a tool's form after ctrl+s found two fields wrong), the findings
// list and a server that exits at once to their golden renderings.
func TestDocsInspectorKeysAndScreens(t *testing.T) {
	t.Parallel()
	checkGenerated(t, "docs/inspector.md", map[string]string{
		"keys":            ui.MarkdownTable(),
		"filter":          fenced("", ui.FilterSyntax),
		"screen":          goldenScreen(t, "screen-running.txt"),
		"picker-screen":   goldenScreen(t, "picker.txt"),
		"form-screen":     goldenScreen(t, "form-errors.txt"),
		"findings-screen": goldenScreen(t, "findings.txt"),
		"exit-screen":     goldenScreen(t, "exit-at-start.txt"),
	})
}

// helpOf runs the built linesman with args and returns what it prints.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(linesmanBinary(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("linesman %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// helpModes are the modes `linesman help` lists, in its order: the second
// word of each usage line, when it is a word and not a flag or the title's
// dash ("wrap|unwrap" is wrap, whose
// help is unwrap's too).
func helpModes(overview string) []string {
	var modes []string
	for _, line := range strings.Split(overview, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "linesman" || f[1][0] < 'a' || f[1][0] > 'z' {
			continue
		}
		mode, _, _ := strings.Cut(f[1], "|")
		if !slices.Contains(modes, mode) {
			modes = append(modes, mode)
		}
	}
	return modes
}

// machineDefault is a default --help prints that depends on the machine
// (check's --parallel: the number of CPUs), said in words on the page.
var machineDefault = regexp.MustCompile(`(how many servers to check at once) \(default \d+\)`)

// usagePage is the generated part of docs/usage.md: the overview, then
// the inspector's and each mode's --help.
func usagePage(t *testing.T) string {
	overview := helpOf(t, "help")
	modes := helpModes(overview)
	if len(modes) < 10 {
		t.Fatalf("linesman help lists %d modes (%q); the parse of its usage lines is stale", len(modes), modes)
	}
	var b strings.Builder
	section := func(title, help string) {
		help = machineDefault.ReplaceAllString(help, "$1 (default: the number of CPUs)")
		fmt.Fprintf(&b, "\n### %s\n\n%s", title, fenced("text", help))
	}
	section("`linesman help`", overview)
	section("`linesman --help`: the inspector", helpOf(t, "--help"))
	for _, mode := range modes {
		section("`linesman "+mode+" --help`", helpOf(t, mode, "--help"))
	}
	return b.String() + "\n"
}

// TestDocsUsage keeps docs/usage.md's flags of every mode equal to what
// the binary's --help prints, for every mode `linesman help` lists.
func TestDocsUsage(t *testing.T) {
	t.Parallel()
	checkGenerated(t, "docs/usage.md", map[string]string{"help": usagePage(t)})
}

// TestReadmeShort: the README stays an overview a newcomer reads in five
// minutes; the rest belongs in a page under docs/.
func TestReadmeShort(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move the detail to a page under docs/", n)
	}
}

// TestReadmeHoldsRuleHelpAnchor: the README keeps the heading a SARIF
// rule's helpUri points at. Not parallel: it sets report.ProjectURL, which
// the parallel tests read.
func TestReadmeHoldsRuleHelpAnchor(t *testing.T) {
	was := report.ProjectURL
	defer func() { report.ProjectURL = was }()
	report.ProjectURL = "https://example.org/o/linesman"
	_, frag, ok := strings.Cut(report.RuleHelpURI("non-json-line"), "#")
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if ok && !anchors(string(b))[frag] {
		t.Errorf("README.md has no heading #%s, where SARIF logs send a reader for each rule", frag)
	}
}

// mdLink is a Markdown inline link's target; a target in angle brackets or
// with a title is not used in these pages.
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// codeSpans are fenced blocks and inline code, where a link is text.
var codeSpans = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")

// anchors are the fragments GitHub gives a page's headings: lower case,
// punctuation but - and _ dropped, spaces as -, a repeat numbered -1, -2.
func anchors(page string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if inFence || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var slug strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
				slug.WriteRune(r)
			}
		}
		a := slug.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocsLinks: every relative link of the README and the pages under
// docs/ names a file that exists (and a heading of it, when it has a
// fragment), and every page under docs/ is reachable from the README.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	reached := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := codeSpans.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			if path == "" {
				path = file
			} else {
				path = filepath.Join(filepath.Dir(file), path)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s links %s: %v", file, target, err)
				continue
			}
			if info.IsDir() || !strings.HasSuffix(path, ".md") {
				continue
			}
			if frag != "" {
				page, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !anchors(string(page))[frag] {
					t.Errorf("%s links %s: %s has no heading #%s", file, target, path, frag)
				}
			}
			if !reached[path] {
				reached[path] = true
				queue = append(queue, path)
			}
		}
	}
	pages := 0
	err := filepath.WalkDir("docs", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		pages++
		if !reached[path] {
			t.Errorf("%s is not reachable from README.md: link it from the README or a page the README links", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages == 0 {
		t.Error("no pages under docs/")
	}
}
