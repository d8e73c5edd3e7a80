package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"linesman/wire"
)

// enumMembers are the capture members a reader parses as one of a few
// words (or a time): poisoned, the record is skipped (the fully poisoned capture covers
// that), so the readable capture keeps them.
var enumMembers = map[string]bool{"type": true, "format": true, "state": true, "step": true, "dir": true, "era": true, "severity": true, "term": true, "start": true, "jsonrpc": true}

// poisonLine appends the hostile corpus to every string value of the JSON
// document line but those of the members in keep, keeping the members'
// order (a reader knows a capture by its header's first member).
func poisonLine(t *testing.T, line string, keep map[string]bool) []byte {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var out bytes.Buffer
	type level struct {
		object, wantKey bool
		n               int
	}
	var stack []level
	key := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		top := len(stack) - 1
		if top >= 0 && (tok != json.Delim('}') && tok != json.Delim(']')) {
			if stack[top].n > 0 && (!stack[top].object || stack[top].wantKey) {
				out.WriteByte(',')
			}
			stack[top].n++
		}
		if top >= 0 && stack[top].object && stack[top].wantKey {
			if k, ok := tok.(string); ok {
				key = k
				out.WriteString(jsonQuote(k) + ":")
				stack[top].wantKey = false
				continue
			}
		}
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
		switch x := tok.(type) {
		case json.Delim:
			out.WriteString(x.String())
			switch x {
			case '{', '[':
				stack = append(stack, level{object: x == '{', wantKey: x == '{'})
			default:
				stack = stack[:top]
			}
		case string:
			if !keep[key] {
				x += hostileText
			}
			out.WriteString(jsonQuote(x))
		case nil:
			out.WriteString("null")
		default:
			b, _ := json.Marshal(x)
			out.Write(b)
		}
	}
	if !json.Valid(out.Bytes()) {
		t.Fatalf("poisoning made invalid JSON: %s", out.Bytes())
	}
	return out.Bytes()
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// poisonCapture rewrites the capture at src record by record with the
// corpus in every string member (but those in keep), and adds a finding
// record and a restart record of its own.
func poisonCapture(t *testing.T, src, dst string, keep map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	extra := []string{
		`{"type":"finding","seq":900,"at":1,"code":"x","severity":"error","frameSeq":3,"message":"m","fix":"f"}`,
		`{"type":"restart","seq":901,"at":2,"n":1,"command":["c"],"note":"n"}`,
		`{"type":"note","seq":902,"at":3,"note":"n"}`,
	}
	lines = append(lines[:len(lines)-1], append(extra, lines[len(lines)-1])...)
	var out bytes.Buffer
	lenRE, seqRE := regexp.MustCompile(`"len":[0-9]+`), regexp.MustCompile(`"seq":[0-9]+`)
	for i, l := range lines {
		p := lenRE.ReplaceAll(poisonLine(t, l, keep), []byte(`"len":99999999`)) // never shorter than the poisoned text
		if i == len(lines)-1 {
			p = seqRE.ReplaceAll(p, []byte(`"seq":903`)) // the end, after the records added
		}
		out.Write(append(p, '\n'))
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runEnv runs linesman with extra environment and checks stdout and stderr.
func (w *outputWalk) runEnv(env []string, stdin []byte, args ...string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, linesmanBinary(w.t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Run()
	if ctx.Err() != nil {
		w.t.Fatalf("linesman %s hung", strings.Join(args, " "))
	}
	name := "linesman " + strings.Join(args[:min(len(args), 3)], " ")
	w.text(name+": stdout", out.Bytes())
	w.text(name+": stderr", errb.Bytes())
}

// file checks a file linesman wrote.
func (w *outputWalk) file(path string) {
	w.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Errorf("%v", err)
		return
	}
	w.text(filepath.Base(path), b)
	os.Remove(path)
}

// TestEveryModeInertOnPoisonedInput runs every mode on a capture (a real
// one, rewritten with OSC, DCS, APC, C1 and bidi controls appended to every
// string member) and on a host config poisoned the same
// way: check --from (text, JSON, JUnit, SARIF), view --text and view
// piped, every export, diff (text and JSON), taps and view of a tap, send
// of the capture's lines, explain of a poisoned code, check and wrap/unwrap
// --dry-run of the config, check --all's reports. No control may leave
// through stdout, stderr or a file linesman writes.
func TestEveryModeInertOnPoisonedInput(t *testing.T) {
	t.Parallel()
	w := &outputWalk{t: t}
	dir := t.TempDir()
	bin := linesmanBinary(t)
	clean := filepath.Join(dir, "clean.jsonl")
	status, _, errOut := runBinary(t, nil, "check", "--capture", clean, "--", bin, "demo-server")
	if status != 0 {
		t.Fatalf("check of the demo: %d\n%s", status, errOut)
	}
	// APC, DCS (DECUDK) and the 8-bit DCS and APC join the corpus here.
	const more = "\x1b_apc\x1b\\\x1bP0|23/de\x1b\\\u0090dcs\u009c\u009fapc\u009c\u202b"
	readable := filepath.Join(dir, "readable.jsonl")
	poisonCapture(t, clean, readable, enumMembers)
	whole := filepath.Join(dir, "whole.jsonl")
	poisonCapture(t, clean, whole, nil)
	for _, f := range []string{readable, whole} {
		b, _ := os.ReadFile(f)
		os.WriteFile(f, bytes.ReplaceAll(b, []byte(`end\u0008`), []byte(`end\u0008`+jsonEscape(more))), 0o600)
	}

	for _, capPath := range []string{readable, whole} {
		w.run(false, nil, "check", "--from", capPath)
		w.run(capPath == readable, nil, "check", "--json", "--from", capPath)
		w.run(false, nil, "view", "--text", capPath)
		w.run(false, nil, "view", capPath) // stdout a pipe
		for _, f := range []string{"transcript", "findings", "replay"} {
			w.run(f == "findings" && capPath == readable, nil, "export", capPath, "--format", f)
		}
		w.run(false, nil, "diff", clean, capPath)
		w.run(false, nil, "diff", capPath, clean)
		w.run(capPath == readable, nil, "diff", "--json", clean, capPath)
		b, _ := os.ReadFile(capPath)
		w.run(false, b, "send", "--raw", "--", bin, "demo-server")
		w.run(true, b, "send", "--json", "--", bin, "demo-server")
	}
	junit, sarif := filepath.Join(dir, "j.xml"), filepath.Join(dir, "s.sarif")
	w.run(true, nil, append([]string{"check", "--json", "--junit", junit, "--sarif", sarif}, fakeServerArgs("hostile")...)...)
	w.file(junit)
	w.file(sarif)
	tapDir := filepath.Join(dir, "taps")
	os.MkdirAll(tapDir, 0o700)
	b, _ := os.ReadFile(readable)
	os.WriteFile(filepath.Join(tapDir, "n"+hostileText+"@20260101T000000.000Z-1.jsonl"), b, 0o600)
	env := []string{"LINESMAN_TAP_DIR=" + tapDir}
	w.runEnv(env, nil, "taps")
	w.runEnv(env, nil, "view", "--text", "latest")
	w.runEnv(env, nil, "explain", "x"+hostileText+more)

	cfg := filepath.Join(dir, "claude_desktop_config.json")
	writePoisonedConfig(t, cfg, bin, more)
	w.run(false, nil, "check", "--config", cfg, "--all")
	junit, sarif = filepath.Join(dir, "all.xml"), filepath.Join(dir, "all.sarif")
	w.run(true, nil, "check", "--json", "--junit", junit, "--sarif", sarif, "--config", cfg, "--all")
	w.file(junit)
	w.file(sarif)
	logPath := filepath.Join(dir, "diag.log")
	w.run(false, nil, "check", "--log", logPath, "--config", cfg, "demo"+hostileText)
	w.file(logPath)
	w.run(false, nil, "check", "--config", cfg, "gone"+hostileText)
	w.run(false, nil, "wrap", "--config", cfg, "--dry-run")
	w.run(false, nil, "unwrap", "--config", cfg, "--dry-run")
	w.text("the config as written", mustRead(t, cfg))
	w.run(false, nil, "wrap", "--config", cfg)
	w.text("the config wrap wrote", mustRead(t, cfg))
	w.text("wrap's backup", mustRead(t, cfg+".linesman-backup"))
	w.run(false, nil, "unwrap", "--config", cfg)
	w.text("the config unwrap wrote", mustRead(t, cfg))
	t.Logf("%d outputs checked", w.checked)
}

// writePoisonedConfig writes a Claude Desktop config whose every string
// holds the corpus: a demo server (its command the real binary), one whose
// command does not exist, and a remote one.
func writePoisonedConfig(t *testing.T, path, bin, more string) {
	t.Helper()
	h := hostileText + more
	cfg := map[string]any{"mcpServers": map[string]any{
		"demo" + hostileText: map[string]any{"command": bin, "args": []string{"demo-server"},
			"env": map[string]string{"X" + h: "v" + h, "API_KEY": "secret" + h}},
		"gone" + hostileText: map[string]any{"command": "/nonexistent/" + h, "args": []string{"a" + h, "--token=" + h},
			"env": map[string]string{"K": h}},
		"remote" + h: map[string]any{"type": "http" + h, "url": "https://x/" + h},
	}}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, wire.InertJSON(b), 0o600); err != nil {
		t.Fatal(err)
	}
}

// jsonEscape is s as the inside of a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
