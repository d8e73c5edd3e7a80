package ui

import (
	"strings"
	"testing"
	"time"
)

// TestLatencyPage: L opens the latency of the client's calls per method
// and per tool, as the projection counts them (a multi-round call once,
// its two requests said); esc closes it.
func TestLatencyPage(t *testing.T) {
	f := newFixture(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	f.c2s(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask",` + meta + `}}` + "\n")
	f.step(200 * time.Millisecond)
	f.s2c(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","requestState":"s",` + meta + `}}` + "\n")
	f.step(300 * time.Millisecond)
	f.s2c(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}` + "\n")
	f.c2s(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fast",` + meta + `}}` + "\n")
	f.step(10 * time.Millisecond)
	f.s2c(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}` + "\n")
	m := f.model(100, 24, nil)
	press(m, "L")
	if m.page == nil {
		t.Fatal("L opened no page")
	}
	rows := map[string][]string{}
	for _, l := range m.page.lines {
		if fs := strings.Fields(l); len(fs) > 1 {
			rows[fs[0]] = fs[1:]
		}
	}
	for name, want := range map[string]string{"tools/call": "2 (3 requests)", "ask": "1 (2 requests)", "fast": "1"} {
		r := rows[name]
		got := ""
		if len(r) >= 5 {
			got = strings.Join(append(r[:1:1], r[5:]...), " ")
		}
		if got != want {
			t.Errorf("row %s: %q, want calls and requests %q:\n%s", name, r, want, strings.Join(m.page.lines, "\n"))
		}
	}
	press(m, "esc")
	if m.page != nil {
		t.Error("esc left the latency page open")
	}
}
