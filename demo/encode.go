package demo

import (
	"fmt"

	"linesman/wire"
)

// encode is one compact JSON line with "\n", HTML not escaped: the only
// shape a frame may have on the wire (wire.Marshal, the encoder linesman
// itself uses).
func encode(v any) []byte {
	b, err := wire.Marshal(v)
	if err != nil {
		// Only values of our own making are encoded; this is a bug.
		panic(fmt.Sprintf("demo: encode: %v", err))
	}
	return b
}
