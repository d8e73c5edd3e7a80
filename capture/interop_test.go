package capture

import (
	"path/filepath"
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
// while it ran, a third that asked for input through tasks/result) and
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
