package ui

import (
	"strings"
	"testing"
)

// TestFindingFixFollowsWhoWroteTheFrame: a framing finding on a line the
// user sent gets the client's fix, in the detail pane, the findings list
// and an entry opened whole; the server's stray line keeps the server's
// ("Send logs to stderr").
func TestFindingFixFollowsWhoWroteTheFrame(t *testing.T) {
	f := newFixture(t)
	c := f.c2s("not json, typed by the user\n")
	s := f.s2c("stray print from the server\n")
	f.finding("control-characters", "logged about the user's line", c)
	m := f.model(100, 30, nil)
	check := func(where, got string, wrote uint64) {
		t.Helper()
		server := strings.Contains(got, flat("Send logs to stderr"))
		client := strings.Contains(got, flat("The client sent"))
		if wrote == c && (server || !client) || wrote == s && (client || !server) {
			t.Errorf("%s of frame #%d shows the wrong fix:\n%s", where, wrote, got)
		}
	}
	for _, seq := range []uint64{c, s} {
		ev, _ := m.c.ix.log.Get(seq)
		check("the detail pane", flat(strings.Join(m.detail.findingLines(&ev), "\n")), seq)
	}
	for i := range m.c.ix.found.len() {
		m.flist.sel = i
		r, _ := m.c.ix.found.at(i)
		fd, ev, _ := m.c.ix.finding(r)
		if fd.Code == "non-json-line" || fd.Code == "control-characters" {
			check("the findings list ("+fd.Code+")", flat(strings.Join(m.flist.whole(100), "\n")), r.frame)
		}
		if ev.Finding != nil {
			check("the entry opened whole", flat(strings.Join(entryLines(m.c.st, &ev, m.c.ix.wroteBy(&ev), 100), "\n")), c)
		}
	}
}
