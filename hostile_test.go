package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// terminalSafe reports the first byte or rune of b that a terminal would
// act on or that reorders or hides text: a C0 control other than newline
// and tab, DEL, invalid UTF-8, a C1 control, a bidirectional or other
// invisible format control (Unicode Cf), or a line or paragraph separator.
func terminalSafe(b []byte) error {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return fmt.Errorf("invalid UTF-8 byte %#x at %d", b[i], i)
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f:
			return fmt.Errorf("control %U at %d", r, i)
		case r >= 0x80 && r <= 0x9f:
			return fmt.Errorf("C1 control %U at %d", r, i)
		case unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
			return fmt.Errorf("format control %U at %d", r, i)
		}
		i += n
	}
	return nil
}

// hostileText is the corpus a hostile server or a crafted file puts in
// every field it controls: OSC 0 (window title) and OSC 52 (clipboard) with
// BEL and ST ends, a CSI that clears the screen, the 8-bit C1 forms of CSI,
// OSC and ST, the bidi override, isolate and pop, a zero-width space, a
// BOM, a tag character, a line separator, DEL and backspace.
const hostileText = "\x1b]0;PWNED-TITLE\x07\x1b]52;c;UFdORUQ=\x1b\\\x1b[2J\u009b31m\u009d0;c1\u009c" +
	"\u202eevil\u2067iso\u2069\u200b\ufeff\U000E0041\u2028\x7f\x08end"

// outputWalk checks outputs against terminalSafe and counts them.
type outputWalk struct {
	t       *testing.T
	checked int
}

// text checks one output meant for a terminal.
func (w *outputWalk) text(name string, b []byte) {
	w.t.Helper()
	w.checked++
	if err := terminalSafe(b); err != nil {
		w.t.Errorf("%s: %v\n%q", name, err, b)
	}
}

// json checks one JSON document meant for a terminal: valid, and inert.
func (w *outputWalk) json(name string, b []byte) {
	w.t.Helper()
	w.text(name, b)
	if !json.Valid(b) {
		w.t.Errorf("%s: not valid JSON:\n%s", name, b)
	}
}

// run runs linesman and checks its stdout (as JSON when asJSON) and stderr.
func (w *outputWalk) run(asJSON bool, stdin []byte, args ...string) []byte {
	w.t.Helper()
	_, out, errOut := runBinary(w.t, stdin, args...)
	name := "linesman " + strings.Join(args[:min(len(args), 3)], " ")
	if asJSON {
		w.json(name+": stdout", out)
	} else {
		w.text(name+": stdout", out)
	}
	w.text(name+": stderr", errOut)
	return out
}

// TestHostileCorpusEveryOutput walks every output linesman has with the
// hostile corpus in every field a server or a file controls: check and
// send (text and JSON), the --log file, a capture of it through view and
// each export format, a crafted capture whose header is of a newer format
// with the corpus in its writer's version, a capture with a bad record,
// file names holding it, the demo server's log of a hostile method, and
// explain. Nothing may reach a terminal raw; JSON stays valid.
func TestHostileCorpusEveryOutput(t *testing.T) {
	t.Parallel()
	w := &outputWalk{t: t}
	dir := t.TempDir()
	capPath := filepath.Join(dir, "hostile.jsonl")
	logPath := filepath.Join(dir, "diag.log")
	hostileArgs := fakeServerArgs("hostile")

	// check, with a capture and a log, then without: JSON and text.
	w.run(true, nil, append([]string{"check", "--json", "--capture", capPath, "--log", logPath}, hostileArgs...)...)
	logBytes, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	w.text("--log file", logBytes)
	out := w.run(false, nil, append([]string{"check"}, hostileArgs...)...)
	if !strings.Contains(string(out), "evil") {
		t.Errorf("the check report does not quote the hostile server at all:\n%s", out)
	}
	// send, JSON and text: a request whose method and id are the corpus.
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": hostileText, "method": hostileText})
	w.run(true, append(req, '\n'), append([]string{"send", "--json"}, hostileArgs...)...)
	w.run(false, append(req, '\n'), append([]string{"send"}, hostileArgs...)...)

	// The capture of that session, through view and every export.
	readCapture := func(path string) {
		w.run(false, nil, "view", "--text", path)
		for _, f := range []string{"transcript", "findings", "replay"} {
			w.run(f == "findings" && path == capPath, nil, "export", path, "--format", f)
		}
	}
	readCapture(capPath)

	// A crafted capture: a newer format written by "linesman <corpus>".
	newer := filepath.Join(dir, "newer.jsonl")
	header, _ := json.Marshal(map[string]any{"type": "header", "format": "linesman-capture", "version": 2, "linesman": hostileText})
	os.WriteFile(newer, append(header, '\n'), 0o600)
	readCapture(newer)
	// A capture with a record of raw hostile bytes.
	good, err := os.ReadFile(capPath)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(good, []byte("\n"))
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, append(append(first, '\n'), hostileText+"\n"...), 0o600)
	readCapture(bad)

	// File names holding the corpus.
	named := filepath.Join(dir, hostileText)
	readCapture(named)
	w.run(false, nil, append([]string{"check", "--capture", filepath.Join(named, "c.jsonl")}, hostileArgs...)...)
	w.run(false, nil, append([]string{"check", "--log", filepath.Join(named, "l.log")}, hostileArgs...)...)
	w.run(false, nil, "check", "--", named)

	// The demo server's log of a hostile method and id; explain of a
	// hostile code.
	_, _, demoErr := runBinary(t, append(req, '\n'), "demo-server")
	w.text("demo-server: stderr", demoErr)
	if !strings.Contains(string(demoErr), "evil") {
		t.Errorf("the demo server did not log the hostile method:\n%s", demoErr)
	}
	w.run(false, nil, "explain", hostileText)

	t.Logf("%d outputs checked against the hostile corpus", w.checked)
}
