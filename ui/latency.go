package ui

import (
	"fmt"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// The latency page (L): the client's calls per method, then per tool —
// count, p50, p95, p99 and max — as the projection computes them
// ([eventlog.Latency] of [eventlog.Tracker.Calls]): a 2026-07-28
// multi-round request is one call across its rounds, a task's polls part
// of the call that created it. The page is a snapshot: L again refreshes
// it.

// openLatency opens the latency page.
func (m *Model) openLatency() {
	byMethod, byTool := m.c.ix.tr.Latency()
	m.page = &pageView{title: "Latency (ms)", build: func(w int) []string { return latencyLines(byMethod, byTool, w) }}
	m.page.layout(m.width)
}

// latencyLines are the page's rows for width w.
func latencyLines(byMethod, byTool []eventlog.LatencyStat, w int) []string {
	if len(byMethod) == 0 {
		return []string{"no call of the client has ended yet"}
	}
	row := func(name, rest string) string {
		return truncate(fmt.Sprintf("%-32s %s", truncate(name, 32), rest), w)
	}
	out := []string{row("method", fmt.Sprintf("%6s %9s %9s %9s %9s", "calls", "p50", "p95", "p99", "max"))}
	for _, s := range byMethod {
		out = append(out, row(wire.VisibleString(s.Method, wire.Pictures), latencyCells(s)))
	}
	if len(byTool) > 0 {
		out = append(out, "", row("tool (tools/call)", ""))
	}
	for _, s := range byTool {
		out = append(out, row(wire.VisibleString(s.Tool, wire.Pictures), latencyCells(s)))
	}
	return out
}

// latencyCells are one statistic's cells, with the requests its calls
// took when some had several rounds or polls.
func latencyCells(s eventlog.LatencyStat) string {
	msOf := func(d time.Duration) float64 { return float64(d.Round(time.Microsecond)) / float64(time.Millisecond) }
	cells := fmt.Sprintf("%6d %9.1f %9.1f %9.1f %9.1f", s.Count, msOf(s.P50), msOf(s.P95), msOf(s.P99), msOf(s.Max))
	if s.Requests > s.Count {
		cells += fmt.Sprintf("  (%d requests)", s.Requests)
	}
	return cells
}
