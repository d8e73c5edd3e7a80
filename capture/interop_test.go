package capture

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestReferenceServerRecordings opens sessions recorded from the npm
// reference servers (testdata/interop: @modelcontextprotocol/server-everything
// 2.0.0, server-filesystem 0.2.0, server-memory 0.6.3, driven by linesman
// send over tools, prompts, resources, completion: images, structured
// content, resource links and embedded resources among the results; and
// server-everything 2026.8.31 (TypeScript SDK 1.32.2) under linesman tap,
// driven over 2025-11-25 tasks: a task polled to completion, its result
// fetched, listed, its cancellation refused as final, another cancelled
// while it ran, a third that asked for input through tasks/result), and
// server-everything 2026.8.31 under linesman tap driven by the TypeScript
// SDK v2's client (2.4.0, versionNegotiation 'auto') after its probe fell
// back to initialize; and two 2026-07-28 conversations of the TypeScript
// SDK v2 (2.4.0) on both sides under linesman tap: multi-round tool calls
// (an elicitation, a sampling request with a roots listing and a
// requestState, a requestState alone, each retried with a new id) and a
// subscriptions/listen stream (acknowledged, its tools/list_changed and
// resources/updated tagged with the subscription, closed by a cancel); and
// checks that the protocol rules find nothing to say about them: conforming
// servers draw no warning or error.
func TestReferenceServerRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "interop", "*.capture"))
	if err != nil || len(files) < 3 {
		t.Fatalf("recordings: %v %v", files, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			c, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			dirs, _, _ := frameCodes(t, c)
			if len(dirs) < 10 {
				t.Fatalf("only %d frames: the recording lost its conversation", len(dirs))
			}
			for _, fd := range sessionFindings(c) {
				t.Errorf("%s %s: %s", fd.Severity, fd.Code, fd.Message)
			}
		})
	}
}

// TestDualEraHostProbeOfALegacyServer opens what the TypeScript SDK v2's
// client (2.4.0, versionNegotiation 'auto') did to server-everything
// 2026.8.31, a 2025-11-25 server, under linesman tap, before the session of
// npm-server-everything-v2host.capture: it probes on a disposable process
// (server/discover, answered -32601, as a legacy server answers it), ends
// that process and falls back to initialize on a fresh one. The server
// broke nothing there: no discover-not-implemented, which the -32601 alone
// never shows. The host's only foul, as this recording has it, is its
// shutdown: SIGTERM logged before its close of stdin (host-signal-before-
// close, a SHOULD). The host closed stdin and signalled in the same
// instant; a tap now looks at its stdin when a signal comes and logs such
// a signal as after the close (TestTapHostCloseThenSignalAtOnce), but a
// recording is judged as it was written.
func TestDualEraHostProbeOfALegacyServer(t *testing.T) {
	c, err := Open(filepath.Join("testdata", "interop", "npm-server-everything-v2host-probe.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dirs, _, _ := frameCodes(t, c)
	if len(dirs) != 2 {
		t.Fatalf("%d frames, want the probe and its -32601", len(dirs))
	}
	var got []string
	for _, fd := range sessionFindings(c) {
		got = append(got, fd.Code)
	}
	if !slices.Equal(got, []string{"host-signal-before-close"}) {
		t.Errorf("findings %q, want only the host's host-signal-before-close", got)
	}
}
