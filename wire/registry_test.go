package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// contractCodes is the list of CONTRACTS.md with the severities of issues 2-4
// (reused-id: warning here, the tracker lowers it to a note in the modern era).
var contractCodes = map[string]Severity{
	"non-json-line": SeverityError, "multi-line-frame": SeverityError, "blank-line": SeverityNote,
	"crlf-line-ending": SeverityNote, "invalid-utf8": SeverityError, "utf8-bom": SeverityWarning,
	"control-characters": SeverityWarning, "unterminated-frame": SeverityError, "oversize-frame": SeverityWarning,
	"batch-array": SeverityError, "invalid-jsonrpc": SeverityError, "duplicate-key": SeverityWarning,
	"non-integer-id": SeverityWarning,

	"pipe-held-after-exit": SeverityWarning, "ignored-stdin-eof": SeverityWarning, "needed-sigkill": SeverityError,
	"stdin-not-read": SeverityWarning, "exit-at-start": SeverityError, "exited-during-request": SeverityError,
	"stderr-escape-sequences": SeverityWarning,

	"reused-id-in-flight": SeverityError, "reused-id": SeverityWarning, "unknown-response-id": SeverityError,
	"duplicate-response": SeverityError, "id-type-mismatch": SeverityWarning, "late-response": SeverityNote,
	"request-timeout": SeverityWarning, "progress-not-increasing": SeverityWarning,
	"progress-after-completion": SeverityWarning, "progress-unknown-token": SeverityError,
	"progress-after-cancel": SeverityWarning, "cancel-unknown-request": SeverityWarning,
	"progress-token-reused":        SeverityError,
	"server-request-in-modern-era": SeverityError, "missing-result-type": SeverityWarning,
	"unknown-result-type": SeverityError, "message-before-initialized": SeverityWarning,
	"unflushed-output": SeverityWarning, "era-not-spoken": SeverityError,
	"stdout-closed": SeverityError,
}

func TestRegistryHoldsEveryContractCode(t *testing.T) {
	for code, sev := range contractCodes {
		info, ok := Lookup(code)
		if !ok {
			t.Errorf("%s is not registered", code)
			continue
		}
		if info.Severity != sev {
			t.Errorf("%s: severity %v, want %v", code, info.Severity, sev)
		}
	}
	all := Codes()
	if len(all) != len(contractCodes)+len(protocolEntries)+len(featureEntries)+len(ciEntries)+len(missEntries)+len(hostEntries) {
		t.Errorf("registry has %d codes, the contract %d, the protocol judge %d and %d of features, and CI %d", len(all), len(contractCodes), len(protocolEntries), len(featureEntries), len(ciEntries))
	}
	families := map[string]bool{}
	for _, f := range Families() {
		families[f.Name] = true
	}
	if !slices.IsSortedFunc(all, func(a, b Info) int { return strings.Compare(a.Code, b.Code) }) {
		t.Error("Codes() is not sorted by code")
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, i := range all {
		if !kebab.MatchString(i.Code) {
			t.Errorf("%q is not kebab-case", i.Code)
		}
		if i.Title == "" || i.Why == "" || i.Fix == "" || i.Spec == "" || i.Eras == "" {
			t.Errorf("%s: an empty field: %+v", i.Code, i)
		}
		if !families[i.Family] {
			t.Errorf("%s: family %q is not one of Families()", i.Code, i.Family)
		}
		if strings.Contains(i.Title, "\n") || len(i.Title) > 90 {
			t.Errorf("%s: the title must be one short line: %q", i.Code, i.Title)
		}
	}
	if _, ok := Lookup("no-such-code"); ok {
		t.Error("Lookup found an unknown code")
	}
	if f := NewFinding("reused-id", "x"); f.Severity != SeverityWarning || f.Code != "reused-id" || f.Message != "x" {
		t.Errorf("NewFinding = %+v", f)
	}
}

// TestEveryEmittedCodeIsRegistered reads wire's own source for the codes it
// emits, so a new code cannot ship without its registry entry.
func TestEveryEmittedCodeIsRegistered(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`(?:NewFinding|addOnce)\((?:fr, )?"([a-z0-9-]+)"`)
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			found++
			if _, ok := Lookup(m[1]); !ok {
				t.Errorf("%s emits unregistered code %q", name, m[1])
			}
		}
	}
	if found < 13 {
		t.Errorf("found only %d emitted codes: the pattern is stale", found)
	}
}

func TestMarshal(t *testing.T) {
	raw := json.RawMessage("{\n  \"a\": [1,\n 2],\n  \"h\": \"<b>&</b>\"\n}")
	got, err := Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "params": map[string]any{"html": "<script>&amp;", "raw": raw, "nl": "a\nb", "sep": "\u2028"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"jsonrpc":"2.0","params":{"html":"<script>&amp;","nl":"a\nb","raw":{"a":[1,2],"h":"<b>&</b>"},"sep":"\u2028"}}` + "\n"
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if strings.Count(string(got), "\n") != 1 {
		t.Fatal("Marshal output must be exactly one line")
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Fatal("Marshal of a func should fail")
	}
	// What Marshal writes, the classifier reads back cleanly.
	fs := FramesOf(got, Options{})
	if len(fs) != 1 || len(fs[0].Findings) != 1 || !fs[0].Has("invalid-jsonrpc") {
		t.Fatalf("round trip: %s", summary(fs)) // no method/result: invalid-jsonrpc, and nothing else
	}
}

// TestFixForChoosesByDirection: a framing finding's fix that tells a
// server where its output goes (stdout, stderr, logs) has a client's
// counterpart, and a line the client wrote gets that one, free of the
// server's advice; the server's lines keep Fix.
func TestFixForChoosesByDirection(t *testing.T) {
	for _, i := range Codes() {
		if i.Family != FamilyFraming {
			continue
		}
		if strings.Contains(i.Fix, "stdout") && i.ClientFix == "" {
			t.Errorf("%s: a fix about the server's stdout, and none for a line the client wrote", i.Code)
		}
		if got := i.FixFor(ServerToClient); got != i.Fix {
			t.Errorf("%s: the server's line gets %q", i.Code, got)
		}
		client := i.FixFor(ClientToServer)
		if strings.Contains(client, "stderr") || strings.Contains(client, "stdout") {
			t.Errorf("%s: the client's line gets the server's advice: %q", i.Code, client)
		}
	}
	if got, _ := Lookup("non-json-line"); got.FixFor(ClientToServer) == got.Fix {
		t.Errorf("non-json-line: the client's line gets the server's fix")
	}
}
