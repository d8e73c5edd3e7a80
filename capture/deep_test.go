package capture

import (
	"strings"
	"testing"

	"linesman/wire"
)

// deepAnswer is an answer whose result nests depth levels below "result"
// (the message itself adds two).
func deepAnswer(depth int) string {
	return `{"jsonrpc":"2.0","id":1,"result":{"x":` + strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2) + `}}` + "\n"
}

// TestDeepFrameReadsBack: a frame nested just under encoding/json's limit
// of 10,000 levels, which the live framer takes as JSON, is written so that
// the reader reads it back whole: before, it was embedded as raw JSON, the
// record around it added three levels, and every reopen skipped it.
func TestDeepFrameReadsBack(t *testing.T) {
	for _, depth := range []int{9000, 9996, 10000} {
		s := newScript(0, 0)
		s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
		s.serve(t, []byte(deepAnswer(depth)))
		first, next := s.log.Bounds()
		if f := s.log.Range(first, next)[1].Frame; f.Msg.Kind == wire.KindNonJSON {
			t.Fatalf("depth %d: the live framer did not take the frame as JSON", depth)
		}
		c, err := Open(record(t, s.log, Header{Command: []string{"deep"}}))
		if err != nil {
			t.Fatal(err)
		}
		if c.SkippedCount != 0 {
			t.Errorf("depth %d: %d record(s) skipped on reopen: %+v", depth, c.SkippedCount, c.Skipped)
		}
		sameEvents(t, s.log, c.Log)
	}
}

// TestTooDeepToEmbed: the depth is counted outside strings only.
func TestTooDeepToEmbed(t *testing.T) {
	deep := strings.Repeat("[", embedDepth+1) + strings.Repeat("]", embedDepth+1)
	quoted := `{"s":"` + strings.Repeat("[", 2*embedDepth) + `"}`
	escaped := `{"s":"\"` + strings.Repeat("{", 2*embedDepth) + `"}`
	for _, c := range []struct {
		b    string
		want bool
	}{{deep, true}, {deep[1 : len(deep)-1], false}, {quoted, false}, {escaped, false}} {
		if got := tooDeepToEmbed([]byte(c.b)); got != c.want {
			t.Errorf("tooDeepToEmbed(%.20q…) = %v, want %v", c.b, got, c.want)
		}
	}
}
