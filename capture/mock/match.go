package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"linesman/wire"
)

// Match levels, strictest first: the level a request matched at says how
// sure the answer is.
const (
	matchExact  = "exact"  // same method, same params
	matchNoMeta = "params" // same method and params but for _meta
	matchStable = "stable" // same method and stable members (or a method that has none)
)

// match returns the recorded request r stands for, and the level it
// matched at; nil when none does. At each level a cue played fewer times
// wins, then the earlier: a host that asks the same twice gets the
// recorded answers in their order, then the last again.
func (s *Script) match(r request) (*cue, string) {
	levels := []struct {
		name string
		same func(c *cue) bool
	}{
		{matchExact, func(c *cue) bool { return c.Req.Exact == r.Exact }},
		{matchNoMeta, func(c *cue) bool { return c.Req.NoMeta == r.NoMeta }},
		{matchStable, func(c *cue) bool { return c.Req.Stable == r.Stable }},
	}
	for _, l := range levels {
		if c := s.least(func(c *cue) bool {
			return c.Kind == wire.KindRequest && c.Method == r.Method && l.same(c)
		}); c != nil {
			return c, l.name
		}
	}
	return nil, ""
}

// matchNotification returns the recorded notification of the same method
// played fewest times.
func (s *Script) matchNotification(r request) *cue {
	return s.least(func(c *cue) bool { return c.Kind == wire.KindNotification && c.Method == r.Method })
}

// matchResponse returns the recorded answer of the client to the server's
// request id.
func (s *Script) matchResponse(id wire.ID) *cue {
	return s.least(func(c *cue) bool {
		return (c.Kind == wire.KindResult || c.Kind == wire.KindError) && c.ID == id
	})
}

func (s *Script) least(ok func(c *cue) bool) *cue {
	var best *cue
	for _, c := range s.Cues {
		if ok(c) && (best == nil || c.used < best.used) {
			best = c
		}
	}
	if best != nil {
		best.used++
	}
	return best
}

// recorded reports whether any recorded client request had this method.
func (s *Script) recorded(method string) bool {
	for _, c := range s.Cues {
		if c.Kind == wire.KindRequest && c.Method == method {
			return true
		}
	}
	return false
}

// closest names the recorded request nearest to r: the same method with
// the most alike params, else the most alike method; "" when nothing was
// recorded.
func (s *Script) closest(r request) string {
	var best *cue
	bestD := -1
	for _, c := range s.Cues {
		if c.Kind != wire.KindRequest {
			continue
		}
		d := 1<<20 + distance(c.Method, r.Method)
		if c.Method == r.Method {
			d = distance(clipped(c.Req.NoMeta), clipped(r.NoMeta))
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if best == nil {
		return ""
	}
	return fmt.Sprintf("%s %s (recorded frame %d)", best.Method, clipped(best.Req.NoMeta), best.Seq)
}

func clipped(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// distance is the Levenshtein distance of a and b, by bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unmatchedError is the JSON-RPC error a request with no recorded match
// gets: method not found when the recording never saw the method, invalid
// params when it did with other params.
func (s *Script) unmatchedError(r request, hint string) []byte {
	code, what := -32601, "method not found in the recording"
	if s.recorded(r.Method) {
		code, what = -32602, "no recorded request with these params"
	}
	msg := fmt.Sprintf("linesman mock: %s: %s", what, r.Method)
	if hint != "" {
		msg += "; closest recorded: " + hint
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      json.RawMessage(r.ID),
		"error":   map[string]any{"code": code, "message": msg},
	})
	return append(b, '\n')
}

// rewrite replaces the JSON value at path (object members from the top) in
// the frame's raw bytes with val; raw comes back unchanged when the member
// is absent, the text is not JSON, or the value is already val.
func rewrite(raw []byte, val json.RawMessage, path ...string) []byte {
	if len(val) == 0 {
		return raw
	}
	start, end, ok := memberSpan(raw, path)
	if !ok || bytes.Equal(raw[start:end], val) {
		return raw
	}
	out := make([]byte, 0, len(raw)+len(val))
	out = append(out, raw[:start]...)
	out = append(out, val...)
	return append(out, raw[end:]...)
}

// memberSpan finds the byte span of the value at path in text.
func memberSpan(text []byte, path []string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	return spanIn(dec, text, path)
}

func spanIn(dec *json.Decoder, text []byte, path []string) (int, int, bool) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		key, _ := k.(string)
		if key != path[0] {
			if skipValue(dec) != nil {
				return 0, 0, false
			}
			continue
		}
		if len(path) > 1 {
			return spanIn(dec, text, path[1:])
		}
		start := int(dec.InputOffset())
		for start < len(text) && strings.IndexByte(" \t\r\n:", text[start]) >= 0 {
			start++
		}
		if skipValue(dec) != nil {
			return 0, 0, false
		}
		return start, int(dec.InputOffset()), true
	}
	return 0, 0, false
}

func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
