package protocol

import (
	"bytes"

	"linesman/wire"
)

// maxSafeInteger is 2^53−1, the largest integer an IEEE-754 double (a
// JavaScript number, what JSON.parse gives) holds exactly.
var maxSafeInteger = []byte("9007199254740991")

// unsafeInteger reports whether raw, a JSON number, is an integer outside
// ±(2^53−1): one a JavaScript host reads rounded.
func unsafeInteger(raw []byte) bool {
	raw = bytes.TrimPrefix(raw, []byte("-"))
	if len(raw) == 0 || bytes.ContainsAny(raw, ".eE") {
		return false
	}
	raw = bytes.TrimLeft(raw, "0")
	if len(raw) != len(maxSafeInteger) {
		return len(raw) > len(maxSafeInteger)
	}
	return bytes.Compare(raw, maxSafeInteger) > 0
}

// unsafeID flags a request id, or a progress token, that is an integer
// outside ±(2^53−1): hosts written in JavaScript (Claude Desktop, VS Code,
// Cursor, the TypeScript SDK) parse it rounded, so the answer they send
// carries another id and pairs with nothing, or with another request.
func unsafeID(f *wire.Frame, what string, raw []byte) {
	if len(raw) == 0 || raw[0] == '"' || !unsafeInteger(raw) {
		return
	}
	raise(f, "id-unsafe-integer", "the %s %s is an integer outside ±(2^53−1): a peer that parses JSON numbers as doubles (every JavaScript host) reads it rounded, and its answer names another id", what, string(raw))
}
