package capture

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// replayShells are the shells a replay script must work under: sh and
// whichever of bash and dash are installed (.ci/run installs dash).
func replayShells(t testing.TB) []string {
	shells := []string{"sh"}
	for _, sh := range []string{"bash", "dash"} {
		if _, err := exec.LookPath(sh); err == nil {
			shells = append(shells, sh)
		} else {
			t.Logf("%s not installed: not tried", sh)
		}
	}
	return shells
}

// argDump is a server command for replays: it saves its stdin to $0 and
// its arguments, each followed by a NUL, to $1.
const argDump = `o=$0; a=$1; shift; cat > "$o"; for x in "$@"; do printf '%s\000' "$x"; done > "$a"`

// replayRoundTrip writes the replay script of the client bytes c2s for a
// server started with args, runs it under every shell and reports what
// differs: the server's stdin must be c2s and its arguments args, byte for
// byte.
func replayRoundTrip(t *testing.T, c2s []byte, args []string) {
	t.Helper()
	s := newScript(0, 0)
	s.send(string(c2s))
	dir := t.TempDir()
	in, argv := filepath.Join(dir, "stdin"), filepath.Join(dir, "argv")
	h := Header{Command: append([]string{"sh", "-c", argDump, in, argv}, args...)}
	var script bytes.Buffer
	if err := WriteReplay(&script, s.log, h); err != nil {
		t.Fatal(err)
	}
	for i, b := range script.Bytes() {
		if b != '\n' && (b < 0x20 || b >= 0x7f) {
			t.Fatalf("the script is not plain ASCII: byte %#x at %d\n%s", b, i, script.Bytes())
		}
	}
	path := filepath.Join(dir, "replay.sh")
	if err := os.WriteFile(path, script.Bytes(), 0o700); err != nil {
		t.Fatal(err)
	}
	var wantArgs []byte
	for _, a := range args {
		wantArgs = append(append(wantArgs, a...), 0)
	}
	for _, sh := range replayShells(t) {
		os.Remove(in)
		os.Remove(argv)
		msg, err := exec.Command(sh, path).CombinedOutput()
		if err != nil || len(msg) > 0 {
			t.Fatalf("%s replay.sh: %v\n%s\nscript:\n%s", sh, err, msg, script.Bytes())
		}
		gotIn, _ := os.ReadFile(in)
		gotArgs, _ := os.ReadFile(argv)
		if !bytes.Equal(gotIn, s.c2s) {
			t.Errorf("%s: the server's stdin was\n%q\nwant\n%q\nscript:\n%s", sh, gotIn, s.c2s, script.Bytes())
		}
		if !bytes.Equal(gotArgs, wantArgs) {
			t.Errorf("%s: the server's arguments were %q, want %q\nscript:\n%s", sh, gotArgs, wantArgs, script.Bytes())
		}
	}
}

// TestReplayLeadingDash: a client line that starts with '-' and an argument
// that starts with '-' and holds non-ASCII used to reach printf as its
// first word, an option to it: "printf: Illegal option", the bytes dropped,
// the script exiting 0 (a 5,576-byte session replayed 4,260 bytes; the
// argument arrived empty).
func TestReplayLeadingDash(t *testing.T) {
	c2s := []byte("-not json, a dash first\n--\n-\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- last, unterminated")
	args := []string{"--db-path=/home/josé/data.db", "--lang=日本語", "-", "--", "-e\x1b[2J", "plain", ""}
	replayRoundTrip(t, c2s, args)
}

// TestReplayLongLineChunksStartWithDash: a frame longer than a printf line
// is cut into chunks; a chunk that begins with '-' is guarded too.
func TestReplayLongLineChunksStartWithDash(t *testing.T) {
	line := strings.Repeat("-", replayChunk*3) + "\n"
	replayRoundTrip(t, []byte(line), nil)
}

// FuzzReplayRoundTrip: random client bytes and random arguments (no NUL:
// argv cannot hold one) reach the replayed server exactly under sh, bash
// and dash.
func FuzzReplayRoundTrip(f *testing.F) {
	f.Add([]byte("-x\n"), "-é", "%s\\n'")
	f.Add([]byte("\x00\xff\r\n%%\\0101"), "--lang=日本語", "\n\n")
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n-"), "-", "\u202e\x1b]52;c;x\x07")
	f.Fuzz(func(t *testing.T, c2s []byte, a1, a2 string) {
		args := []string{strings.ReplaceAll(a1, "\x00", ""), strings.ReplaceAll(a2, "\x00", "")}
		replayRoundTrip(t, c2s, args)
	})
}
