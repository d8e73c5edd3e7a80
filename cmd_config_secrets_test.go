package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFileValuesNeverShown: what a host config reads from a file — an
// opencode {file:…} in a server's argument and environment, a VS Code
// envFile — is a secret wherever linesman shows or keeps the server's
// command and environment: the listing, wrap's diff, every report (text,
// JSON, JUnit, SARIF, check --all, send), the capture (its header and
// records, --capture-env too) and what is made of it (transcript, replay,
// findings, view). The server still gets the real values. Before, the
// reports and the capture held the argument whole.
func TestFileValuesNeverShown(t *testing.T) {
	t.Parallel()
	const token, envToken = "tok-Fi1eS3cret-0042", "envF1leS3cret-0077"
	dir := t.TempDir()
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
	bin := linesmanBinary(t)
	got, gotEnv := filepath.Join(dir, "got"), filepath.Join(dir, "got-env")
	write("oc/token.txt", token+"\n")
	// --note= is no flag name the secret heuristic knows: only the file
	// says this argument is a secret.
	oc := write("oc/opencode.json", `{"mcp":{"srv":{"type":"local","command":["sh","-c",`+
		`"printf '%s|%s' \"$1\" \"$API\" > `+got+`; exec `+bin+` demo-server","sh","--note={file:token.txt}"],`+
		`"environment":{"API":"{file:token.txt}"}}}}`)
	write("vs/secrets.env", "ENV_TOKEN="+envToken+"\n")
	vs := write("vs/.vscode/mcp.json", `{"servers":{"srv":{"command":"sh","args":["-c",`+
		`"printf %s \"$ENV_TOKEN\" > `+gotEnv+`; exec `+bin+` demo-server"],"envFile":"${workspaceFolder}/secrets.env"}}}`)
	out := func(name string) string { return filepath.Join(dir, "out", name) }
	os.Mkdir(filepath.Join(dir, "out"), 0o755)

	var shown []string
	run := func(stdin string, args ...string) {
		t.Helper()
		usage := len(args) == 3 && args[1] == "--config" // the listing ends in a usage error
		var in []byte
		if stdin != "" {
			in = []byte(stdin)
		}
		status, stdout, stderr := runBinary(t, in, args...)
		if status > 1 && !(usage && status == exitUsage) {
			t.Errorf("linesman %s: status %d\n%s", strings.Join(args, " "), status, stderr)
		}
		shown = append(shown, "linesman "+strings.Join(args, " ")+":\n"+string(stdout)+string(stderr))
	}
	run("", "check", "--config", oc) // the listing
	run("", "wrap", "--dry-run", "--config", oc)
	run("", "check", "--config", oc, "srv", "--capture", out("oc.jsonl"), "--junit", out("junit.xml"), "--sarif", out("sarif.json"))
	if b, _ := os.ReadFile(got); string(b) != "--note="+token+"|"+token {
		t.Errorf("the server got %q, not the file's value", b)
	}
	run("", "check", "--config", oc, "srv", "--json")
	run("", "check", "--all", "--config", oc, "--json", "--junit", out("all-junit.xml"), "--sarif", out("all-sarif.json"))
	run("", "check", "--all", "--config", oc)
	run(`{"method":"tools/list"}`+"\n", "send", "--config", oc, "srv")
	run(`{"method":"tools/list"}`+"\n", "send", "--config", oc, "srv", "--json")
	for _, format := range []string{"transcript", "replay", "findings", "latency", "otlp"} {
		run("", "export", out("oc.jsonl"), "--format", format)
	}
	run("", "view", "--text", out("oc.jsonl"))
	run("", "check", "--config", vs, "srv", "--capture", out("vs.jsonl"), "--capture-env", "--json")
	if b, _ := os.ReadFile(gotEnv); string(b) != envToken {
		t.Errorf("the server got %q from the envFile, not its value", b)
	}
	run("", "export", out("vs.jsonl"), "--format", "transcript")
	files, _ := filepath.Glob(out("*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		shown = append(shown, f+":\n"+string(b))
	}
	if len(files) < 6 {
		t.Errorf("only %d files written: %v", len(files), files)
	}
	for _, s := range shown {
		for _, secret := range []string{token, envToken, "Fi1eS3cret", "F1leS3cret"} {
			if strings.Contains(s, secret) {
				i := strings.Index(s, secret)
				t.Errorf("%s holds %q: ...%s...", s[:strings.IndexByte(s, '\n')], secret, s[max(0, i-80):min(len(s), i+40)])
			}
		}
	}
}
