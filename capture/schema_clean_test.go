package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordingsDrawNoSchemaFinding walks every recording in testdata —
// the reference servers' sessions, the host logs (Claude Desktop, VS Code,
// mcpsnoop), linesman's own captures and the corpus of single-violation
// conversations — through the same fold as view and check --from, and
// holds the schema judge to them: no recording draws schema-invalid, save
// a corpus conversation written to break the schema (schema-invalid--…).
// What else they draw is their own tests' business (the interop
// recordings and the clean corpus conversations draw nothing at warning or
// above: TestReferenceServerRecordings, TestCorpus).
func TestRecordingsDrawNoSchemaFinding(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".capture", ".jsonl", ".log":
		default:
			return nil
		}
		c, err := Open(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		n++
		if strings.HasPrefix(filepath.Base(path), "schema-invalid--") {
			return nil
		}
		for _, fd := range sessionFindings(c) {
			if fd.Code == "schema-invalid" {
				t.Errorf("%s: %s", path, fd.Message)
			}
		}
		return nil
	})
	if err != nil || n < 100 {
		t.Fatalf("walked %d recordings: %v", n, err)
	}
}
