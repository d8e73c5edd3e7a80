package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestMarshalEscapesDEL: a DEL in a string is written as \u007f, the same
// string, so that what linesman writes draws no control-characters.
func TestMarshalEscapesDEL(t *testing.T) {
	line, err := Marshal(map[string]any{"jsonrpc": "2.0", "id": "a\x7fb", "error": map[string]any{"code": -32601, "message": "x\x7f"}})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(line, 0x7f) >= 0 {
		t.Errorf("raw DEL in %q", line)
	}
	var back struct{ ID string }
	if err := json.Unmarshal(line, &back); err != nil || back.ID != "a\x7fb" {
		t.Errorf("read back %q, %v", back.ID, err)
	}
	if _, fs := Classify(bytes.TrimSuffix(line, []byte("\n"))); len(fs) > 0 {
		t.Errorf("findings %v", fs)
	}
}
