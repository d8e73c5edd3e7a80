package session

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// TestGapKeepsAnswersAfterTheirRequests: with both scribes held while a
// host's requests and their answers flood the tap (sed turns each request
// into its answer), both directions fall behind and are passed over
// unjudged. Once the scribes run, the log still holds every request before
// its answer — the gap's bytes, its last piece included, are logged before
// the other direction's later frames — so that a capture read back pairs
// every answer with its request (it found thousands of unknown-response-id
// when the gap's last piece was logged after the answers it preceded).
func TestGapKeepsAnswersAfterTheirRequests(t *testing.T) {
	log := eventlog.NewLog(0)
	tee := &teeBuffer{}
	hold := make(chan struct{})
	s, err := Start(Config{
		Command: []string{"sed", "-u", `s/"method":"ping","params":.*$/"result":{}}/`},
		Log:     log, Observe: true, NoHandshake: true,
		StdoutTee: tee, ScribeBudget: 64 << 10, scribeHold: hold})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	const n = 3000
	var input []byte
	for i := 1; i <= n; i++ {
		input = fmt.Appendf(input, `{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"pad":"%s"}}`+"\n", i, strings.Repeat("z", 60))
	}
	in := s.Inlet()
	writeInPieces(t, in, input, 3000) // lines cut anywhere
	deadline := time.Now().Add(testWait)
	for bytes.Count(tee.bytes(), []byte("\n")) < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := bytes.Count(tee.bytes(), []byte("\n")); got != n {
		t.Fatalf("the host got %d answers of %d", got, n)
	}
	close(hold)
	in.Close()
	waitClosed(t, s.Done(), "the session's end")

	idRE := regexp.MustCompile(`"id":(\d+)`)
	ids := func(b []byte) []string {
		var out []string
		for _, m := range idRE.FindAllSubmatch(b, -1) {
			out = append(out, string(m[1]))
		}
		return out
	}
	asked := map[string]bool{}
	var early []string
	gapped := map[wire.Dir]bool{}
	first, next := log.Bounds()
	for _, ev := range log.Range(first, next) {
		var b []byte
		dir := ev.Dir
		switch ev.Type {
		case eventlog.EventFrame:
			b = ev.Frame.Raw()
		case eventlog.EventUnjudged:
			b, dir = ev.Unjudged.Bytes, ev.Unjudged.Dir
			gapped[dir] = true
		default:
			continue
		}
		for _, id := range ids(b) {
			if dir == wire.ClientToServer {
				asked[id] = true
			} else if !asked[id] {
				early = append(early, id)
			}
		}
	}
	if !gapped[wire.ClientToServer] || !gapped[wire.ServerToClient] {
		t.Fatalf("the scribes fell behind only %v: the test needs a gap each way", gapped)
	}
	if len(asked) != n {
		t.Errorf("the log holds %d requests of %d", len(asked), n)
	}
	if len(early) > 0 {
		t.Errorf("%d answers logged before their requests (ids %v…)", len(early), early[:min(len(early), 5)])
	}
}
