package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"linesman/session/hosts/yamlsub"
)

// ciWorkflow is the GitHub Actions recipe of docs/ci.md: the yaml block
// that uploads SARIF.
func ciWorkflow(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "upload-sarif") {
			return block
		}
	}
	t.Fatal("docs/ci.md has no yaml block that uploads SARIF")
	return ""
}

// workflowKeys are the keys GitHub accepts at the top of a workflow, and
// in a step.
var (
	workflowKeys = []string{"name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"}
	stepKeys     = []string{"id", "if", "name", "uses", "run", "shell", "with", "env", "continue-on-error", "timeout-minutes", "working-directory"}
	pinnedAction = regexp.MustCompile(`^[\w.-]+/[\w./-]+@v\d+$`)
)

// workflowSteps checks a parsed workflow as a workflow linter would (the
// top-level keys GitHub knows, an "on" and jobs, each job a runner and
// steps, each step known keys and exactly one of uses and run, every
// action pinned to a major version) and returns its jobs' steps.
func workflowSteps(wf *yamlsub.Map) ([]*yamlsub.Map, error) {
	for _, k := range wf.Keys {
		if !slices.Contains(workflowKeys, k) {
			return nil, fmt.Errorf("unknown top-level key %q", k)
		}
	}
	if _, ok := wf.Vals["on"]; !ok {
		return nil, fmt.Errorf(`no "on": the workflow runs on no event`)
	}
	jobsV := wf.Get("jobs")
	jobs, ok := jobsV.(*yamlsub.Map)
	if !ok || len(jobs.Keys) == 0 {
		return nil, fmt.Errorf("no jobs")
	}
	var steps []*yamlsub.Map
	for _, name := range jobs.Keys {
		job, ok := jobs.Vals[name].(*yamlsub.Map)
		if !ok {
			return nil, fmt.Errorf("job %s is not a mapping", name)
		}
		runsOn := job.Get("runs-on")
		list, _ := job.Vals["steps"].([]any)
		if runsOn == nil || len(list) == 0 {
			return nil, fmt.Errorf("job %s lacks runs-on or steps", name)
		}
		for i, s := range list {
			step, ok := s.(*yamlsub.Map)
			if !ok {
				return nil, fmt.Errorf("job %s step %d is not a mapping", name, i+1)
			}
			if err := checkStep(step); err != nil {
				return nil, fmt.Errorf("job %s step %d: %w", name, i+1, err)
			}
			steps = append(steps, step)
		}
	}
	return steps, nil
}

// checkStep checks one step's keys and action.
func checkStep(step *yamlsub.Map) error {
	for _, k := range step.Keys {
		if !slices.Contains(stepKeys, k) {
			return fmt.Errorf("unknown key %q", k)
		}
	}
	uses, hasUses := step.Vals["uses"]
	_, hasRun := step.Vals["run"]
	switch {
	case hasUses == hasRun:
		return fmt.Errorf("want exactly one of uses and run")
	case hasUses && !pinnedAction.MatchString(fmt.Sprint(uses)):
		return fmt.Errorf("action %v is not pinned to a major version", uses)
	}
	return nil
}

// stepUsing is the step that uses action (any version), or nil.
func stepUsing(steps []*yamlsub.Map, action string) *yamlsub.Map {
	for _, s := range steps {
		if u, ok := s.Vals["uses"].(string); ok && strings.HasPrefix(u, action+"@") {
			return s
		}
	}
	return nil
}

// with is a step's input name, "" when it has none.
func with(step *yamlsub.Map, name string) string {
	w, _ := step.Vals["with"].(*yamlsub.Map)
	if w == nil {
		return ""
	}
	v, _ := w.Vals[name].(string)
	return v
}

// TestCIWorkflowIsComplete: the recipe parses as YAML and is a
// workflow GitHub accepts, and it is complete and current: it sets up Go,
// installs and runs linesman, uploads SARIF with upload-sarif v4 (with
// security-events: write), publishes the JUnit report (checks: write) and
// keeps the captures as an artifact, the uploads run even when the check
// fails.
func TestCIWorkflowIsComplete(t *testing.T) {
	t.Parallel()
	wf, err := yamlsub.Parse(ciWorkflow(t))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := workflowSteps(wf)
	if err != nil {
		t.Fatal(err)
	}
	job := wf.Vals["jobs"].(*yamlsub.Map).Vals["mcp-check"].(*yamlsub.Map)
	perms, _ := job.Vals["permissions"].(*yamlsub.Map)
	for _, p := range []string{"security-events", "checks"} {
		if perms == nil || perms.Vals[p] != "write" {
			t.Errorf("the job lacks %s: write", p)
		}
	}
	if s := stepUsing(steps, "actions/setup-go"); s == nil || with(s, "go-version") == "" {
		t.Error("no setup-go step with a go-version")
	}
	sarif, junit, keep := stepUsing(steps, "github/codeql-action/upload-sarif"), stepUsing(steps, "mikepenz/action-junit-report"), stepUsing(steps, "actions/upload-artifact")
	switch {
	case sarif == nil || sarif.Vals["uses"] != "github/codeql-action/upload-sarif@v4" || with(sarif, "sarif_file") != "linesman.sarif":
		t.Error("no upload-sarif@v4 of linesman.sarif")
	case junit == nil || with(junit, "report_paths") != "linesman-junit.xml":
		t.Error("the JUnit report is not published")
	case keep == nil || !strings.Contains(with(keep, "path"), "linesman-captures/"):
		t.Error("the captures are not kept as an artifact")
	}
	for _, s := range []*yamlsub.Map{sarif, junit, keep} {
		if s != nil && s.Vals["if"] != "always()" {
			t.Errorf("step %v does not run when the check fails", s.Vals["uses"])
		}
	}
	var runs string
	for _, s := range steps {
		if r, ok := s.Vals["run"].(string); ok {
			runs += r + "\n"
		}
	}
	for _, want := range []string{"go install", "linesman check --config .mcp.json --all", "--capture linesman-captures"} {
		if !strings.Contains(runs, want) {
			t.Errorf("no step runs %q", want)
		}
	}
}

// TestWorkflowLintRefuses: what actionlint refuses, the parser and the
// check refuse too: a tab, no "on", a key indented under a scalar, a step
// indented off its list, a repeated key, an unterminated quote, a step
// with both uses and run, an unpinned action.
func TestWorkflowLintRefuses(t *testing.T) {
	t.Parallel()
	good := ciWorkflow(t)
	for name, bad := range map[string]string{
		"tab":            strings.Replace(good, "    runs-on:", "\truns-on:", 1),
		"no on":          strings.Replace(good, "on:\n  push:\n  pull_request:\n", "", 1),
		"under a scalar": strings.Replace(good, "    runs-on: ubuntu-latest\n", "    runs-on: ubuntu-latest\n      extra: 1\n", 1),
		"off its list":   strings.Replace(good, "      - uses: actions/checkout@v5", "     - uses: actions/checkout@v5", 1),
		"repeated key":   strings.Replace(good, "    runs-on: ubuntu-latest\n", "    runs-on: ubuntu-latest\n    runs-on: macos-latest\n", 1),
		"open quote":     strings.Replace(good, "go-version: '1.26'", "go-version: '1.26", 1),
		"uses and run":   strings.Replace(good, "      - uses: actions/checkout@v5\n", "      - uses: actions/checkout@v5\n        run: true\n", 1),
		"unpinned":       strings.Replace(good, "actions/checkout@v5", "actions/checkout@main", 1),
	} {
		if bad == good {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		wf, err := yamlsub.Parse(bad)
		if err == nil {
			_, err = workflowSteps(wf)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCIWorkflowStepsRun runs the recipe's shell steps as written
// (each with bash -e, as GitHub runs them), but the install (the test's
// own linesman is on PATH), in a project whose .mcp.json holds the demo
// server: they pass and leave the files the later steps upload.
func TestCIWorkflowStepsRun(t *testing.T) {
	t.Parallel()
	wf, err := yamlsub.Parse(ciWorkflow(t))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := workflowSteps(wf)
	if err != nil {
		t.Fatal(err)
	}
	bin := linesmanBinary(t)
	dir := t.TempDir()
	config := `{"mcpServers": {"demo": {"command": ` + quoteJSON(bin) + `, "args": ["demo-server"]}}}`
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, s := range steps {
		script, ok := s.Vals["run"].(string)
		if !ok || strings.Contains(script, "go install") {
			continue
		}
		if strings.Contains(script, "${{") {
			t.Errorf("step %v needs GitHub's expressions to run: %s", s.Vals["name"], script)
			continue
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		ran++
	}
	if ran == 0 {
		t.Fatal("no shell step ran")
	}
	for _, f := range []string{"linesman-junit.xml", "linesman.sarif", "linesman-captures/demo.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the steps left no %s: %v", f, err)
		}
	}
}
