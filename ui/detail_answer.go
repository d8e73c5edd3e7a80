package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/wire"
)

// The Detail pane leads with what an answer carries: a tool's text as
// text, what other content stands for, the structured content, the error's
// code and message; the frame's JSON follows, with _meta and long strings
// folded. Keys are matched exactly (a map of raw values, not a struct:
// encoding/json would match "TEXT" for "text"), and everything shown is
// made inert as the JSON is.

// answerMaxRows bounds what the answer shows before the JSON.
const answerMaxRows = 400

// answerView lays out the answer's rows in a pane w cells wide.
type answerView struct {
	st  *Styles
	w   int
	out []string
}

// answerLines is the answer f carries, or nil when f is not an answer
// with something to show.
func answerLines(st *Styles, f *wire.Frame, text []byte, w int) []string {
	if f.Msg.Kind != wire.KindResult && f.Msg.Kind != wire.KindError {
		return nil
	}
	top := object(text)
	a := &answerView{st: st, w: w}
	if e := object(top["error"]); e != nil {
		a.row(st.Error, "error", fmt.Sprintf("%s %s", compact(e["code"]), str(e["message"])))
		if d := e["data"]; d != nil {
			a.row(st.Subtle, "data", compact(d))
		}
	}
	if r := object(top["result"]); r != nil {
		a.result(r)
	}
	if len(a.out) == 0 {
		return nil
	}
	if len(a.out) > answerMaxRows {
		a.out = append(a.out[:answerMaxRows], st.Subtle.Render("… (the JSON below has it all)"))
	}
	return append(a.out, st.Rule.Render(strings.Repeat("─", max(w, 1))))
}

// result shows a result's content (a tool's, a sampling answer's), a
// resource's contents, a prompt's messages and structured content.
func (a *answerView) result(r map[string]json.RawMessage) {
	if string(r["isError"]) == "true" {
		a.row(a.st.Warning, "▲", "the tool reports an error (isError)")
	}
	for _, c := range items(r["content"]) {
		a.content(c)
	}
	for _, c := range items(r["contents"]) {
		a.content(c)
	}
	for _, msg := range items(r["messages"]) {
		for _, c := range items(msg["content"]) {
			a.content(c)
		}
	}
	if s := r["structuredContent"]; s != nil {
		a.row(a.st.Subtle, "struct", compact(s))
	}
}

// content shows one content item: text as text, anything else by what it
// is and its size.
func (a *answerView) content(c map[string]json.RawMessage) {
	typ := str(c["type"])
	switch {
	case c["text"] != nil:
		label := "text"
		if uri := str(c["uri"]); uri != "" {
			a.row(a.st.Subtle, "uri", uri)
		}
		a.row(lipgloss.NewStyle(), label, str(c["text"]))
	case c["resource"] != nil:
		a.content(object(c["resource"]))
	case c["data"] != nil || c["blob"] != nil:
		data := c["data"]
		if data == nil {
			data = c["blob"]
		}
		what := strings.TrimSpace(typ + " " + str(c["mimeType"]) + " " + str(c["uri"]))
		a.row(a.st.Subtle, "data", fmt.Sprintf("[%s · %s of base64]", what, humanBytes(int64(len(data)))))
	case typ != "":
		a.row(a.st.Subtle, typ, strings.TrimSpace(str(c["uri"])+" "+str(c["name"])))
	}
}

// row adds text under a label, wrapped to the pane, continuation rows
// under the text; the text is made inert first.
func (a *answerView) row(style lipgloss.Style, label, text string) {
	const gutter = 7
	body := wire.VisibleString(text, wire.Pictures)
	width := max(a.w-gutter, 10)
	var rows []string
	for _, l := range strings.Split(body, "\n") {
		rows = append(rows, strings.Split(ansi.Hardwrap(lipgloss.Wrap(l, width, " "), width, true), "\n")...)
	}
	for i, r := range rows {
		if len(a.out) > answerMaxRows {
			return
		}
		head := strings.Repeat(" ", gutter)
		if i == 0 {
			head = a.st.Accent.Render(fmt.Sprintf("%-6s", label)) + " "
		}
		a.out = append(a.out, head+style.Render(r))
	}
}

// object decodes a JSON object's members (nil when raw is not one).
func object(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// items decodes an array of objects, or one object as a list of one.
func items(raw json.RawMessage) []map[string]json.RawMessage {
	if o := object(raw); o != nil {
		return []map[string]json.RawMessage{o}
	}
	var list []json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []map[string]json.RawMessage
	for _, r := range list {
		if o := object(r); o != nil {
			out = append(out, o)
		}
	}
	return out
}

// str decodes a JSON string ("" when raw is not one).
func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// compact is raw on one line, a long value cut with its size said.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	if b.Len() > foldStringAt {
		return fmt.Sprintf("%s… (%s)", stringStart(b.Bytes(), foldStringAt), humanBytes(int64(b.Len())))
	}
	return b.String()
}
