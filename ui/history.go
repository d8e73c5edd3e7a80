package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// The composer's history: the requests sent from it (and resent with r),
// newest last, and the drafts the user threw away (cleared, or replaced by
// another text), so that no written text is lost for good. ↑ at the first
// line of the composer walks back through it, ↓ at the last line forward,
// past the newest back to the draft being written; the picker lists the
// sent ones too.

// histEntry is one text of the history.
type histEntry struct {
	text string
	sent bool // sent to the server (else: a draft put aside)
}

// history is the list and where ↑/↓ stand in it.
type history struct {
	entries []histEntry
	// pos is the entry shown in the composer while walking the history;
	// len(entries) means "not walking": the composer shows the user's own
	// draft, saved in draft while walking.
	pos   int
	draft string
	// written says the draft saved in draft was the user's own writing
	// (not an untouched template): clearing while walking keeps it.
	written bool
}

// historyMax bounds the history; the oldest entries go first.
const historyMax = 200

// add appends text, unless it repeats the newest entry; walking ends.
func (h *history) add(text string, sent bool) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if n := len(h.entries); n > 0 && h.entries[n-1].text == text {
		h.entries[n-1].sent = h.entries[n-1].sent || sent
	} else {
		h.entries = append(h.entries, histEntry{text, sent})
	}
	if len(h.entries) > historyMax {
		h.entries = h.entries[len(h.entries)-historyMax:]
	}
	h.pos = len(h.entries)
}

// walking reports whether the composer shows a history entry.
func (h *history) walking() bool { return h.pos < len(h.entries) }

// step moves d entries (-1 older, +1 newer) from the current position,
// given the composer's text now; it returns the text to show and whether
// it moved. Leaving the draft saves it; coming back past the newest entry
// restores it.
func (h *history) step(d int, current string) (string, bool) {
	next := h.pos + d
	if next < 0 || next > len(h.entries) {
		return "", false
	}
	if !h.walking() {
		h.draft = current
	}
	h.pos = next
	if !h.walking() {
		return h.draft, true
	}
	return h.entries[h.pos].text, true
}

// sentTexts lists the sent entries, newest first (for the picker).
func (h *history) sentTexts() []string {
	var out []string
	for i := len(h.entries) - 1; i >= 0; i-- {
		if h.entries[i].sent {
			out = append(out, h.entries[i].text)
		}
	}
	return out
}

// memberSpan finds the member key of the JSON object that starts at
// text[base:] (after any space) and returns the byte span of its value.
func memberSpan(text []byte, base int, key string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(text[base:]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, false
		}
		if name, _ := tok.(string); name == key {
			end := base + int(dec.InputOffset())
			return end - len(raw), end, true
		}
	}
	return 0, 0, false
}

// renewID gives the request in text (a JSON object with a method and an
// id) the id newID (JSON text), leaving every other byte as it was; a
// progress token equal to the old id (as the templates write it) follows.
// It returns the old id's JSON text, or ok false when text is not such a
// request (a notification or an answer keeps its id).
func renewID(text []byte, newID string) (out []byte, oldID string, ok bool) {
	if !isRequest(text) {
		return text, "", false
	}
	s, e, ok := memberSpan(text, 0, "id")
	if !ok {
		return text, "", false
	}
	oldID = string(text[s:e])
	// The progress token may lie before the id or after it: the spans are
	// replaced from the last, so the earlier one's offsets still hold.
	type span struct{ s, e int }
	spans := []span{{s, e}}
	if ps, _, ok := memberSpan(text, 0, "params"); ok && text[ps] == '{' {
		if ms, _, ok := memberSpan(text, ps, "_meta"); ok && text[ms] == '{' {
			if ts, te, ok := memberSpan(text, ms, "progressToken"); ok && string(text[ts:te]) == oldID {
				spans = append(spans, span{ts, te})
			}
		}
	}
	if len(spans) == 2 && spans[1].s < spans[0].s {
		spans[0], spans[1] = spans[1], spans[0]
	}
	out = append([]byte(nil), text...)
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		out = append(out[:sp.s], append([]byte(newID), out[sp.e:]...)...)
	}
	return out, oldID, true
}

// isRequest reports whether text is one JSON object with a method and an
// id, and nothing after it.
func isRequest(text []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(text))
	var obj map[string]json.RawMessage
	if dec.Decode(&obj) != nil {
		return false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return false
	}
	_, hasMethod := obj["method"]
	_, hasID := obj["id"]
	return hasMethod && hasID
}

// prettyText indents JSON text two spaces a level, keeping every member
// and its order (json.Indent copies strings as written); text that is not
// JSON is returned as it is.
func prettyText(text []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(text), "", "  "); err != nil {
		return string(text)
	}
	return buf.String()
}
