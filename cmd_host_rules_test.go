package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"linesman/capture"
	"linesman/wire"
)

// hostBlock is what check --json --from says of the host: its block and
// the findings that hold it at fault.
type hostBlock struct {
	Host struct {
		Errors, Warnings, Notes int
		Codes                   []string
	} `json:"host"`
	Findings []struct {
		Code  string `json:"code"`
		Party string `json:"party"`
	} `json:"findings"`
}

// checkFromHost runs check --from file, JSON and text.
func checkFromHost(t *testing.T, file string) (hostBlock, string) {
	t.Helper()
	_, out, errOut := runBinary(t, nil, "check", "--json", "--from", file)
	var doc hostBlock
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("check --json --from: %v\n%s%s", err, out, errOut)
	}
	_, txt, _ := runBinary(t, nil, "check", "--from", file)
	return doc, string(txt)
}

// hostParty lists the codes of the findings that hold the host at fault.
func (d hostBlock) hostParty() []string {
	var out []string
	for _, f := range d.Findings {
		if f.Party == "host" {
			out = append(out, f.Code)
		}
	}
	return out
}

// TestRealHostDrawsNoHostFinding judges a real host: the go-sdk's client
// drives a go-sdk server through the tap (initialize, tools/call, close:
// stdin closed, the server exits); check --from on the tap's capture shows
// the host section, empty.
func TestRealHostDrawsNoHostFinding(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(linesmanBinary(t), "tap", "--dir", dir, "--", testBinary, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=headless-go-sdk")
	if got := greetThrough(t, cmd); got != "Hi host" {
		t.Fatalf("the host got %q through the tap", got)
	}
	c := tapCapture(t, dir)
	if p := c.Tracker.Process(); !p.Exited() || !p.ByHost || !p.AfterEOF {
		t.Errorf("process %+v; want the host's close of stdin to end it", p)
	}
	taps, _ := capture.ListTaps(dir)
	doc, text := checkFromHost(t, taps[0].Path)
	if got := doc.hostParty(); len(got) > 0 || doc.Host.Errors+doc.Host.Warnings+doc.Host.Notes > 0 {
		t.Errorf("the go-sdk host drew %q (block %+v)", got, doc.Host)
	}
	if !strings.Contains(text, "host (the client side): no findings") {
		t.Errorf("check --from shows no host section:\n%s", text)
	}
}

// TestTapJudgesTheHostsShutdown: a host that signals the server with its
// stdin still open draws host-signal-before-close, in the host section of
// check --from on the tap's capture; one that closes stdin draws nothing.
func TestTapJudgesTheHostsShutdown(t *testing.T) {
	c, _ := tapEnding(t, "tap-signal", "tap-signal: ready", func(cmd *exec.Cmd, _ interface{ Close() error }) {
		cmd.Process.Signal(syscall.SIGTERM)
	})
	if codes := loggedCodes(c); !slices.Contains(codes, "host-signal-before-close") {
		t.Errorf("codes %q; want host-signal-before-close", codes)
	}
	doc, text := checkFromHost(t, tapFiles[c])
	if !slices.Equal(doc.hostParty(), []string{"host-signal-before-close"}) || doc.Host.Warnings != 1 {
		t.Errorf("host findings %q, block %+v", doc.hostParty(), doc.Host)
	}
	if !strings.Contains(text, "host (the client side): 0 errors, 1 warning") || !strings.Contains(text, "host-signal-before-close") {
		t.Errorf("the host section does not name the host's fault:\n%s", text)
	}

	c, _ = tapEnding(t, "signal-default", "signal-default: ready", func(_ *exec.Cmd, stdin interface{ Close() error }) {
		stdin.Close()
	})
	doc, _ = checkFromHost(t, tapFiles[c])
	if got := doc.hostParty(); len(got) > 0 {
		t.Errorf("a host that closed stdin drew %q", got)
	}
}

// TestHostRulesFromARecording: any recording is judged for its host, and
// explain gives each host rule's clause.
func TestHostRulesFromARecording(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"h","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	rec := strings.Join([]string{
		`{"dir":"c2s","message":{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + meta + `}}}`,
		`{"dir":"s2c","message":{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}}`,
		`{"dir":"c2s","message":{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}}`,
		`{"dir":"s2c","message":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}}`,
	}, "\n") + "\n"
	file := filepath.Join(t.TempDir(), "host.jsonl")
	if err := os.WriteFile(file, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, text := checkFromHost(t, file)
	if !slices.Equal(doc.hostParty(), []string{"host-fallback-missing"}) {
		t.Errorf("host findings %q; want host-fallback-missing", doc.hostParty())
	}
	if !strings.Contains(text, "host warnings (1)") {
		t.Errorf("no host section:\n%s", text)
	}
	for _, i := range wire.Codes() {
		if i.Party != wire.PartyHost {
			continue
		}
		_, out, _ := runBinary(t, nil, "explain", i.Code)
		if !strings.Contains(string(out), "MCP") {
			t.Errorf("explain %s gives no clause:\n%s", i.Code, out)
		}
	}
}

// TestTapHostCloseThenSignalAtOnce: a host that closes the server's stdin
// and signals it in the same instant (the TypeScript SDK v2's client ends
// its probe process so) closed stdin first, whichever of the two the tap
// happens to notice first: never host-signal-before-close. Before the tap
// looked at its stdin when the signal came, the pumping thread's end of
// file and the signal raced, and some runs drew it.
func TestTapHostCloseThenSignalAtOnce(t *testing.T) {
	for i := range 12 {
		c, _ := tapEnding(t, "signal-default", "signal-default: ready", func(cmd *exec.Cmd, stdin interface{ Close() error }) {
			stdin.Close()
			cmd.Process.Signal(syscall.SIGTERM)
		})
		if codes := loggedCodes(c); slices.Contains(codes, "host-signal-before-close") {
			t.Fatalf("run %d: codes %q: the host closed stdin before it signalled", i, codes)
		}
	}
}

// TestTapHostShutsSocketThenSignals: the same over a socket pair, the
// stdio Node gives its children: the host's shutdown of its end for
// writing, then SIGTERM at once, is a close before the signal.
func TestTapHostShutsSocketThenSignals(t *testing.T) {
	for i := range 6 {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		host, tapEnd := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "tap")
		dir := t.TempDir()
		cmd := exec.Command(linesmanBinary(t), "tap", "--dir", dir, "--", testBinary, "-test.run=^$")
		cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER=signal-default")
		stderr := &syncBuffer{}
		cmd.Stdin, cmd.Stderr = tapEnd, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tapEnd.Close()
		waitText(t, stderr, "signal-default: ready")
		syscall.Shutdown(int(host.Fd()), syscall.SHUT_WR)
		cmd.Process.Signal(syscall.SIGTERM)
		waitEnded(t, cmd, "the tap did not end")
		host.Close()
		if codes := loggedCodes(tapCapture(t, dir)); slices.Contains(codes, "host-signal-before-close") {
			t.Fatalf("run %d: codes %q: the host shut its end before it signalled", i, codes)
		}
	}
}
