package ui

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"linesman/session/eventlog"
	"linesman/session/protocol"
	"linesman/wire"
)

// FilterSyntax documents the frame filter (shown in the full help and
// docs/inspector.md).
const FilterSyntax = `Filter syntax: space-separated terms, all must match; prefix a term with ! to negate it.
  method:PREFIX   method starts with PREFIX (a response matches its request's method)
  tool:NAME       a tools/call of NAME (a prompt's name, a resource's uri), and its answer
  id:ID           the id, as JSON spells it: 3 or "abc"
  dir:c2s|s2c     direction (also: out|in, >|<)
  kind:K          request, notification, result, error, invalid, non-json
  code:CODE       has a finding with this code (code:* any finding)
  sev:S           has a finding of severity S or worse (note, warning, error)
  TEXT            the frame's bytes contain TEXT (case-insensitive)`

// filter is a parsed filter expression: a conjunction of terms.
type filter struct {
	src   string
	terms []term
}

type term struct {
	neg   bool
	field string // "method", "tool", "id", "dir", "kind", "code", "sev", "" (text)
	value string
	dir   wire.Dir
	sev   wire.Severity
	text  []byte // lower-cased, for free text
}

// parseFilter parses s; an empty s is no filter (nil, nil).
func parseFilter(s string) (*filter, error) {
	f := &filter{src: strings.TrimSpace(s)}
	for _, w := range strings.Fields(s) {
		t := term{}
		if strings.HasPrefix(w, "!") && len(w) > 1 {
			t.neg, w = true, w[1:]
		}
		field, value, ok := strings.Cut(w, ":")
		switch field {
		case "method", "tool", "id", "kind", "code":
			if !ok || value == "" {
				return nil, fmt.Errorf("%s: wants a value, e.g. %s:…", field, field)
			}
			t.field, t.value = field, value
			if field == "code" && value != "*" {
				if _, known := wire.Lookup(value); !known {
					// A typo would silently show no frames at all.
					return nil, fmt.Errorf("code:%s: no such finding code (linesman explain lists them)", value)
				}
			}
			if field == "kind" {
				switch value {
				case "request", "notification", "result", "error", "invalid", "non-json":
				default:
					return nil, fmt.Errorf("kind:%s: want request, notification, result, error, invalid or non-json", value)
				}
			}
		case "dir":
			t.field = field
			switch value {
			case "c2s", "out", ">":
				t.dir = wire.ClientToServer
			case "s2c", "in", "<":
				t.dir = wire.ServerToClient
			default:
				return nil, fmt.Errorf("dir:%s: want c2s or s2c", value)
			}
		case "sev":
			t.field = field
			switch value {
			case "note":
				t.sev = wire.SeverityNote
			case "warning", "warn":
				t.sev = wire.SeverityWarning
			case "error":
				t.sev = wire.SeverityError
			default:
				return nil, fmt.Errorf("sev:%s: want note, warning or error", value)
			}
		default:
			t.text = bytes.ToLower([]byte(w))
		}
		f.terms = append(f.terms, t)
	}
	if len(f.terms) == 0 {
		return nil, nil
	}
	return f, nil
}

func (f *filter) match(ev *eventlog.Event, x *index) bool {
	for i := range f.terms {
		if f.terms[i].match(ev, x) == f.terms[i].neg {
			return false
		}
	}
	return true
}

func (t *term) match(ev *eventlog.Event, x *index) bool {
	switch t.field {
	case "method", "tool":
		var r eventlog.Request
		ok := false
		if ev.Frame.Msg.Kind.IsResponse() {
			r, ok = x.tr.AnswerTo(ev.Seq)
		}
		return t.matchCall(ev.Frame, r, ok)
	case "code", "sev":
		return t.matchFindings(x.findings(ev))
	}
	return t.matchFrame(ev.Dir, ev.Frame)
}

// matchLive is match for a frame in flight, not (or only just) in the log
// (interception): an answer's request is the projection's latest with its
// id, the findings those the frame carries. It is safe for concurrent use
// (it reads only the frame and tr).
func (f *filter) matchLive(dir wire.Dir, fr *wire.Frame, tr *eventlog.Tracker) bool {
	for i := range f.terms {
		t := &f.terms[i]
		var ok bool
		switch t.field {
		case "method", "tool":
			var r eventlog.Request
			found := false
			if fr.Msg.Kind.IsResponse() {
				r, found = tr.Lookup(otherDir(dir), fr.Msg.ID)
			}
			ok = t.matchCall(fr, r, found)
		case "code", "sev":
			ok = t.matchFindings(fr.Findings)
		default:
			ok = t.matchFrame(dir, fr)
		}
		if ok == t.neg {
			return false
		}
	}
	return true
}

func otherDir(d wire.Dir) wire.Dir {
	if d == wire.ClientToServer {
		return wire.ServerToClient
	}
	return wire.ClientToServer
}

// matchCall matches method: and tool: on a frame, or on the request r
// an answer answers (ok).
func (t *term) matchCall(fr *wire.Frame, r eventlog.Request, ok bool) bool {
	m := &fr.Msg
	if t.field == "tool" {
		if m.Kind == wire.KindRequest {
			return protocol.CallTarget(m.Method, fr) == t.value
		}
		return ok && r.Target == t.value
	}
	method := m.Method
	if method == "" && ok {
		method = r.Method
	}
	return strings.HasPrefix(method, t.value)
}

// matchFindings matches code: and sev: on a frame's findings.
func (t *term) matchFindings(fs []wire.Finding) bool {
	if t.field == "sev" {
		return worst(fs) >= t.sev
	}
	for _, fd := range fs {
		if t.value == "*" || fd.Code == t.value {
			return true
		}
	}
	return false
}

// matchFrame matches the terms that need only the frame and its direction.
func (t *term) matchFrame(dir wire.Dir, fr *wire.Frame) bool {
	m := &fr.Msg
	switch t.field {
	case "id":
		if m.ID.String() == t.value || m.IDRaw == t.value {
			return true
		}
		// id:abc also finds the string id "abc".
		return m.ID.Kind == wire.IDString && m.ID.Str == t.value
	case "dir":
		return dir == t.dir
	case "kind":
		return m.Kind.String() == t.value
	}
	for _, l := range fr.Lines {
		if containsFold(l.Content, t.text) {
			return true
		}
	}
	return false
}

// containsFold is a case-insensitive (ASCII) bytes.Contains without allocating.
func containsFold(hay, lowNeedle []byte) bool {
	n := len(lowNeedle)
	if n == 0 {
		return true
	}
	for i := 0; i+n <= len(hay); i++ {
		j := 0
		for ; j < n; j++ {
			c := hay[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lowNeedle[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}

// fmtDur renders a log time as seconds with milliseconds: "12.345".
func fmtDur(d interface{ Milliseconds() int64 }) string {
	ms := d.Milliseconds()
	if ms < 0 {
		ms = 0
	}
	return strconv.FormatInt(ms/1000, 10) + "." + fmt.Sprintf("%03d", ms%1000)
}

// The filter prompt (/).

func (m *Model) openFilter() tea.Cmd {
	m.filtering = true
	if m.c.ix.filt != nil {
		m.filterIn.SetValue(m.c.ix.filt.src)
	}
	m.filterIn.CursorEnd()
	return m.filterIn.Focus()
}

func (m *Model) applyFilter() {
	f, err := parseFilter(m.filterIn.Value())
	if err != nil {
		m.setMessage("filter: "+err.Error(), true)
		return
	}
	m.filtering = false
	m.filterIn.Blur()
	sel := m.frames.SelectedSeq()
	m.c.ix.setFilter(f)
	m.frames.selSeq = sel
	m.setMessage("", false)
	m.refresh()
}

func (m *Model) cancelFilter() {
	m.filtering = false
	m.filterIn.Blur()
	m.filterIn.SetValue("")
	if m.c.ix.filt != nil {
		sel := m.frames.SelectedSeq()
		m.c.ix.setFilter(nil)
		m.frames.selSeq = sel
		m.refresh()
	}
}
