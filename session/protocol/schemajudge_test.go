package protocol

import (
	"os"
	"path/filepath"
	"testing"
)

const examplesDir = "../../third_party/mcp-schema/2026-07-28/examples"

// exampleFiles lists the specification's examples: TYPE/NAME.json.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, "*", "*.json"))
	if err != nil || len(files) < 50 {
		t.Fatalf("examples: %d %v", len(files), err)
	}
	return files
}

// TestSpecExamplesValidate: every example of the 2026-07-28 specification
// validates against the definition it exemplifies (its folder's name), as
// linesman compiles it.
func TestSpecExamplesValidate(t *testing.T) {
	rs := schemaOf(V20260728)
	for _, path := range exampleFiles(t) {
		def := filepath.Base(filepath.Dir(path))
		n := rs.defs[def]
		if n == nil {
			t.Errorf("%s: no definition %s", path, def)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f := n.check(parse(b), 0); f != nil {
			t.Errorf("%s: %s: want %s, got %s (%s)", path, f.where("$"), f.want, f.got, f.def)
		}
	}
}
