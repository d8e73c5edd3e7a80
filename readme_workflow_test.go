package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeWorkflow is the README's GitHub Actions recipe: the yaml block
// that uploads SARIF.
func readmeWorkflow(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "upload-sarif") {
			return block
		}
	}
	t.Fatal("README.md has no yaml block that uploads SARIF")
	return ""
}

// TestReadmeWorkflowIsComplete: the recipe is a workflow GitHub accepts
// (a name, the events it runs on, jobs; spaces, never tabs), its actions
// are pinned to a major version and code scanning's upload is v4.
func TestReadmeWorkflowIsComplete(t *testing.T) {
	wf := readmeWorkflow(t)
	top := map[string]bool{}
	for _, line := range strings.Split(wf, "\n") {
		if strings.Contains(line, "\t") {
			t.Errorf("a tab in %q", line)
		}
		if k, _, ok := strings.Cut(line, ":"); ok && line != "" && line[0] != ' ' && line[0] != '#' {
			top[k] = true
		}
	}
	for _, k := range []string{"name", "on", "jobs"} {
		if !top[k] {
			t.Errorf("the workflow has no top-level %q: (keys %v)", k, top)
		}
	}
	uses := regexp.MustCompile(`uses: (\S+)`).FindAllStringSubmatch(wf, -1)
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@v\d+$`)
	for _, u := range uses {
		if !pinned.MatchString(u[1]) {
			t.Errorf("action %s is not pinned to a major version", u[1])
		}
	}
	if !strings.Contains(wf, "uses: github/codeql-action/upload-sarif@v4") || !strings.Contains(wf, "security-events: write") {
		t.Errorf("the SARIF upload is not codeql-action/upload-sarif@v4 with security-events: write:\n%s", wf)
	}
}

// TestReadmeWorkflowCheckStepRuns runs the recipe's check step as written,
// in a project whose .mcp.json holds the demo server: it passes and
// leaves the JUnit and SARIF files the later steps upload.
func TestReadmeWorkflowCheckStepRuns(t *testing.T) {
	wf := readmeWorkflow(t)
	_, step, ok := strings.Cut(wf, "name: Check every MCP server")
	_, step, ok2 := strings.Cut(step, "run: >-\n")
	if !ok || !ok2 {
		t.Fatalf("no folded run step for the check:\n%s", wf)
	}
	var words []string
	for _, line := range strings.Split(step, "\n") {
		if !strings.HasPrefix(line, "          ") {
			break
		}
		words = append(words, strings.TrimSpace(line))
	}
	bin := linesmanBinary(t)
	dir := t.TempDir()
	config := `{"mcpServers": {"demo": {"command": ` + quoteJSON(bin) + `, "args": ["demo-server"]}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", strings.Join(words, " "))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(words, " "), err, out)
	}
	for _, f := range []string{"linesman-junit.xml", "linesman.sarif"} {
		if !strings.Contains(wf, f) {
			t.Errorf("the recipe does not upload %s", f)
		}
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the check step left no %s: %v", f, err)
		}
	}
}
