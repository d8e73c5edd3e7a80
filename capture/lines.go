package capture

import (
	"bufio"
	"encoding/json"
	"os"
)

// FrameLines maps the seq of each frame record of the capture at path to
// its line in the file (from 1), for reports that point at the line a
// finding's frame was recorded on (SARIF regions). Lines that are no
// frame record, or not JSON, are passed over.
func FrameLines(path string) (map[uint64]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[uint64]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxHeaderLine+6*(1<<26))
	for no := 1; sc.Scan(); no++ {
		var rec struct {
			Type string `json:"type"`
			Seq  uint64 `json:"seq"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Type == "frame" {
			out[rec.Seq] = no
		}
	}
	return out, sc.Err()
}
