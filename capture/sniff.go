package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxSniffedHeader bounds how much of a file StartsWithHeader reads: the
// header is the first line, and environment names (and values, with
// --capture-env) make it long, but not this long.
const maxSniffedHeader = 1 << 20

// StartsWithHeader reports whether r begins with a capture header: its
// first line (at most 1 MiB) is a JSON object of type "header" whose format
// is [FormatName]. It reads no further than that line. An empty r, another
// kind of line, or a first line longer than the bound is not a header; an
// error reading r other than its end is returned.
//
// It is for callers that must tell a capture from any other file before
// they touch it (linesman refuses to overwrite with --capture a file that is
// not one); [Open] checks the header itself, with the reason.
func StartsWithHeader(r io.Reader) (bool, error) {
	line, err := bufio.NewReaderSize(r, maxSniffedHeader).ReadSlice('\n')
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return false, err
	}
	var h struct {
		Type   string `json:"type"`
		Format string `json:"format"`
	}
	return json.Unmarshal(bytes.TrimSpace(line), &h) == nil && h.Type == "header" && h.Format == FormatName, nil
}
