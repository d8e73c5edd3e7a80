package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"linesman/capture"
)

// TestTapCaptureHoldsEveryRequest: a host writes requests to a tap as fast
// as the pipe takes them: a million small ones to a server that answers
// none, and 200,000 of 1 KiB to one that answers each and says so on
// stderr. The tap's scribes fall behind (the bytes they pass over are
// recorded unjudged) and so does its capture's recorder, which under such
// a flood used to fall more than the log held behind and lose events.
// The capture must hold every request the host sent, every answer and
// stderr line the server wrote, and no "dropped" record. It is counted
// record by record rather than read back as a log (capture.Open frames
// and judges every request again, a minute under the race detector).
func TestTapCaptureHoldsEveryRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		server string
		n, pad int
	}{{"qa-deaf", 1_000_000, 0}, {"tap-answer-all", 200_000, 940}} {
		t.Run(tc.server, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.Command(linesmanBinary(t), "tap", "--dir", dir, "--max-capture", "0", "--", testBinary, "-test.run=^$")
			cmd.Env = append(os.Environ(), "LINESMAN_FAKE_SERVER="+tc.server)
			cmd.Stdin = &requestFlood{n: tc.n, pad: strings.Repeat("x", tc.pad)}
			var host, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &host, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("tap: %v\n%.2000s", err, stderr.Bytes())
			}
			answers := 0
			if tc.server == "tap-answer-all" {
				answers = tc.n
			}
			if got, said := bytes.Count(host.Bytes(), []byte("\n")), strings.Count(stderr.String(), "answered "); got != answers || said != answers {
				t.Errorf("the host got %d answers and %d stderr lines, want %d", got, said, answers)
			}
			taps, err := capture.ListTaps(dir)
			if err != nil || len(taps) != 1 {
				t.Fatalf("taps: %v, %v", taps, err)
			}
			got := countCapture(t, taps[0].Path)
			if got.requests != tc.n || got.answers != answers || got.stderr != answers || got.dropped != 0 {
				t.Errorf("the capture holds %d requests of %d, %d answers and %d stderr lines of %d, and %d records of events dropped",
					got.requests, tc.n, got.answers, got.stderr, answers, got.dropped)
			}
			if got.unjudged > 0 {
				t.Logf("(%d records of bytes the tap passed on unjudged)", got.unjudged)
			}
		})
	}
}

// requestFlood is a host's stdin: n tools/call requests, ids 1 to n, each
// with an argument of pad.
type requestFlood struct {
	n, next int
	pad     string
	buf     []byte
}

func (r *requestFlood) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.next < r.n {
		r.next++
		r.buf = strconv.AppendInt(append(r.buf, `{"jsonrpc":"2.0","id":`...), int64(r.next), 10)
		r.buf = append(append(append(r.buf, `,"method":"tools/call","params":{"name":"wait","arguments":{"pad":"`...), r.pad...), "\"}}}\n"...)
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	return n, nil
}

// captureCount is what a capture holds of a tap's traffic: the host's
// lines and the server's, framed or unjudged, its stderr lines, the
// records of bytes passed on unjudged, and the records that say the
// recorder lost events.
type captureCount struct {
	requests, answers, stderr, unjudged, dropped int
}

// countCapture counts a capture's records: a frame record is a line of
// its direction (none here spans lines), an unjudged record holds as many
// as the line ends in its text (none of these lines has a line end inside
// a string, so "\n" appears escaped only there).
func countCapture(t *testing.T, path string) (c captureCount) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		rec := sc.Bytes()
		side := &c.answers
		if bytes.Contains(rec, []byte(`"dir":"c2s"`)) {
			side = &c.requests
		}
		switch {
		case bytes.HasPrefix(rec, []byte(`{"type":"frame"`)):
			*side++
		case bytes.HasPrefix(rec, []byte(`{"type":"unjudged"`)):
			*side += bytes.Count(rec, []byte(`\n`))
			c.unjudged++
		case bytes.HasPrefix(rec, []byte(`{"type":"stderr"`)):
			c.stderr++
		case bytes.HasPrefix(rec, []byte(`{"type":"dropped"`)):
			c.dropped++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// tap-answer-all: answers each request with an empty result of its id, and
// says so on stderr, a line each, in batches as it reads them.
func serveTapAnswerAll() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	errw := bufio.NewWriterSize(os.Stderr, 1<<16)
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			out.Flush()
			errw.Flush()
			return
		}
		_, rest, _ := bytes.Cut(line, []byte(`"id":`))
		id, _, _ := bytes.Cut(rest, []byte(","))
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`+"\n", id)
		fmt.Fprintf(errw, "answered %s\n", id)
		if in.Buffered() == 0 {
			out.Flush()
			errw.Flush()
		}
	}
}
