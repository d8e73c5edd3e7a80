package wire

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v as one compact line of JSON followed by "\n": the only
// shape a stdio message may have. HTML characters (<, >, &) are written as
// they are, not as \u003c escapes, so that what the user typed is what goes
// on the wire. A json.RawMessage inside v is compacted too, so an indented
// fragment can never smuggle a newline into the frame.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// encoding/json writes DEL raw; escaped, the string is the same and
	// the frame carries no control byte (an id or a method name a server
	// chose, echoed back, would otherwise make linesman's own answer draw
	// control-characters).
	return bytes.ReplaceAll(buf.Bytes(), []byte{0x7f}, []byte(`\u007f`)), nil
}
