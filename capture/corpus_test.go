package capture

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"linesman/session/eventlog"
	"linesman/wire"
)

// sessionFindings lists the warnings and errors a log holds: on its
// frames, and logged on their own.
func sessionFindings(c *Capture) []wire.Finding {
	var out []wire.Finding
	first, next := c.Log.Bounds()
	for seq := first; seq < next; seq++ {
		ev, ok := c.Log.Get(seq)
		if !ok {
			continue
		}
		switch {
		case ev.Type == eventlog.EventFrame:
			out = append(out, ev.Frame.Findings...)
		case ev.Type == eventlog.EventFinding:
			out = append(out, ev.Finding.Finding)
		}
	}
	return slices.DeleteFunc(out, func(f wire.Finding) bool { return f.Severity < wire.SeverityWarning })
}

// TestCorpus judges testdata/corpus: single-violation conversations of
// both eras, each named CODE--what.jsonl for the rule it breaks, and clean
// conversations (clean--what.jsonl), in the plain JSON Lines format, through
// Open: the same fold as a capture, a live session and view. Every
// violation must be named by its rule (recall is logged; the target is
// 90%, and this corpus is held to all of it), and the clean ones must draw
// no warning or error at all.
func TestCorpus(t *testing.T) {
	var hit, total int
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		dir := filepath.Join("testdata", "corpus", era)
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var eraHit, eraTotal int
		for _, f := range files {
			name := strings.TrimSuffix(f.Name(), ".jsonl")
			c, err := Open(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Errorf("%s/%s: %v", era, name, err)
				continue
			}
			found := sessionFindings(c)
			want, _, _ := strings.Cut(name, "--")
			if want == "clean" {
				for _, fd := range found {
					t.Errorf("%s/%s: clean conversation drew %s %s: %s", era, name, fd.Severity, fd.Code, fd.Message)
				}
				continue
			}
			eraTotal++
			if slices.ContainsFunc(found, func(fd wire.Finding) bool { return fd.Code == want }) {
				eraHit++
			} else {
				var got []string
				for _, fd := range found {
					got = append(got, fd.Code)
				}
				t.Errorf("%s/%s: not named (raised %v)", era, name, got)
			}
		}
		t.Logf("%s: %d of %d violation traces named by their rule", era, eraHit, eraTotal)
		hit, total = hit+eraHit, total+eraTotal
	}
	t.Logf("recall: %d of %d (%.0f%%)", hit, total, 100*float64(hit)/float64(total))
}
