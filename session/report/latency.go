package report

import (
	"fmt"
	"strings"
	"time"

	"linesman/session/eventlog"
)

// MethodLatency is how long the client's logical calls of one method (of
// one tool, in latencyByTool) took, from every one of them that ended
// (answered, refused, timed out): the median, the 95th and 99th
// percentiles (nearest rank) and the largest, in milliseconds, and how
// many there were. A 2026-07-28 multi-round request is one call from its
// first round to its last, a task-augmented call one to the end of its
// last poll; Requests counts the requests the calls took. One sample
// says little: Count tells a reader, and [DiffReports], how far to trust
// the rest. The statistics are the projection's ([eventlog.Latency]).
type MethodLatency struct {
	Method   string  `json:"method"`
	Tool     string  `json:"tool,omitempty"`
	Count    int     `json:"count"`
	Requests int     `json:"requests,omitempty"`
	P50Ms    float64 `json:"p50Ms"`
	P95Ms    float64 `json:"p95Ms"`
	P99Ms    float64 `json:"p99Ms"`
	MaxMs    float64 `json:"maxMs"`
}

// Key is what the latency is of: the method, or "tools/call NAME".
func (l MethodLatency) Key() string {
	if l.Tool != "" {
		return l.Method + " " + l.Tool
	}
	return l.Method
}

// latencyOfTracker is the latency blocks of the tracker's calls.
func latencyOfTracker(tr *eventlog.Tracker) (byMethod, byTool []MethodLatency) {
	m, t := tr.Latency()
	return latencyBlock(m), latencyBlock(t)
}

func latencyBlock(stats []eventlog.LatencyStat) []MethodLatency {
	out := []MethodLatency{}
	for _, s := range stats {
		out = append(out, MethodLatency{Method: s.Method, Tool: s.Tool, Count: s.Count, Requests: s.Requests,
			P50Ms: durationMs(s.P50), P95Ms: durationMs(s.P95), P99Ms: durationMs(s.P99), MaxMs: durationMs(s.Max)})
	}
	return out
}

// latencyOf is the latency per method of a report written before it had
// a latency block, from its requests list (each request a call).
func latencyOf(reqs []Request) []MethodLatency {
	samples := map[string][]time.Duration{}
	for _, q := range reqs {
		if q.Dir == "c2s" && q.Ms != nil {
			samples[q.Method] = append(samples[q.Method], time.Duration(*q.Ms*float64(time.Millisecond)))
		}
	}
	var stats []eventlog.LatencyStat
	for _, method := range unionKeys(samples, nil) {
		s := eventlog.SummarizeLatency(samples[method])
		s.Method, s.Requests = method, 0
		stats = append(stats, s)
	}
	return latencyBlock(stats)
}

// writeLatency writes the latency blocks for people.
func (r *Report) writeLatency(b *strings.Builder) {
	if len(r.Latency) == 0 {
		return
	}
	b.WriteString("\nlatency (ms; count, p50, p95, p99, max):\n")
	for _, blk := range [][]MethodLatency{r.Latency, r.LatencyByTool} {
		for _, l := range blk {
			fmt.Fprintf(b, "  %-32s %s\n", inert(l.Key()), latencyRow(l))
		}
	}
}

// latencyRow is "×3  12.0  30.5  30.5  30.5", with the requests the calls
// took when some had several rounds or polls.
func latencyRow(l MethodLatency) string {
	s := fmt.Sprintf("×%-4d %8.1f %8.1f %8.1f %8.1f", l.Count, l.P50Ms, l.P95Ms, l.P99Ms, l.MaxMs)
	if l.Requests > l.Count {
		s += fmt.Sprintf("  (%d requests)", l.Requests)
	}
	return s
}
