package eventlog

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"time"

	"linesman/wire"
)

// LatencyStat sums up how long the client's logical calls of one method
// (or, with Tool set, of one tool) took, from every one of them that
// ended (answered, refused, cancelled, timed out, lost): nearest-rank
// percentiles and the largest. A multi-round call is one sample from its
// first round to its last, a task-augmented call one sample to the end of
// its last poll. Count says how far to trust the rest.
type LatencyStat struct {
	Method string
	Tool   string
	// Count is how many calls; Requests how many requests they took
	// (more than Count when some had several rounds or polled a task).
	Count, Requests    int
	P50, P95, P99, Max time.Duration
}

// Latency sums up calls (see [Tracker.Calls]) per method, sorted by
// method, and per tool (tools/call), sorted by tool. It is the one
// computation of latency statistics: the reports, the exports and the
// inspector read it.
func Latency(calls []Call) (byMethod, byTool []LatencyStat) {
	return latencyOf(slices.Values(calls))
}

// Latency is [Latency] of t's calls, read one at a time under t's lock
// rather than built all at once ([Tracker.Calls] of a million calls held
// 700 MB): what a report and the inspector's page show.
func (t *Tracker) Latency() (byMethod, byTool []LatencyStat) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return latencyOf(func(yield func(Call) bool) {
		t.records(0, func(e *entry, _ bool) bool {
			return e.Dir != wire.ClientToServer || e.call != nil || yield(e.callOf())
		})
	})
}

func latencyOf(calls iter.Seq[Call]) (byMethod, byTool []LatencyStat) {
	type group struct {
		xs       []time.Duration
		requests int
	}
	methods, tools := map[string]*group{}, map[string]*group{}
	add := func(m map[string]*group, key string, d time.Duration, n int) {
		g := m[key]
		if g == nil {
			g = &group{}
			m[key] = g
		}
		g.xs, g.requests = append(g.xs, d), g.requests+n
	}
	for c := range calls {
		d, ok := c.Duration()
		if !ok {
			continue
		}
		n := len(c.Rounds) + len(c.Polls)
		add(methods, c.Method, d, n)
		if tool := c.Tool(); tool != "" {
			add(tools, tool, d, n)
		}
	}
	for method, g := range methods {
		s := SummarizeLatency(g.xs)
		s.Method, s.Requests = method, g.requests
		byMethod = append(byMethod, s)
	}
	for tool, g := range tools {
		s := SummarizeLatency(g.xs)
		s.Method, s.Tool, s.Requests = "tools/call", tool, g.requests
		byTool = append(byTool, s)
	}
	slices.SortFunc(byMethod, func(a, b LatencyStat) int { return cmp.Compare(a.Method, b.Method) })
	slices.SortFunc(byTool, func(a, b LatencyStat) int { return cmp.Compare(a.Tool, b.Tool) })
	return byMethod, byTool
}

// SummarizeLatency is the count, percentiles and largest of samples (at
// least one); Requests is the count.
func SummarizeLatency(samples []time.Duration) LatencyStat {
	s := slices.Clone(samples)
	slices.Sort(s)
	return LatencyStat{Count: len(s), Requests: len(s), P50: percentile(s, 50), P95: percentile(s, 95), P99: percentile(s, 99), Max: s[len(s)-1]}
}

// percentile is the p-th percentile of sorted (nearest rank: the least
// sample with at least p% of the samples at or below it).
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
