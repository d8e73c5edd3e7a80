package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// encode is one compact JSON line with "\n", HTML not escaped: the only
// shape a frame may have on the wire.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values of our own making are encoded; this is a bug.
		panic(fmt.Sprintf("demo: encode: %v", err))
	}
	return b.Bytes()
}
