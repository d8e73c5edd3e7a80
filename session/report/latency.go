package report

import (
	"math"
	"sort"
)

// MethodLatency is how long the client's requests of one method took,
// from every one of them that ended (answered, refused, timed out): the
// median, the 95th and 99th percentiles (nearest rank) and the largest, in
// milliseconds, and how many there were. One sample says little: Count
// tells a reader, and [DiffReports], how far to trust the rest.
type MethodLatency struct {
	Method string  `json:"method"`
	Count  int     `json:"count"`
	P50Ms  float64 `json:"p50Ms"`
	P95Ms  float64 `json:"p95Ms"`
	P99Ms  float64 `json:"p99Ms"`
	MaxMs  float64 `json:"maxMs"`
}

// latencyOf is the latency of the client's requests per method, sorted by
// method, from every request of reqs that ended.
func latencyOf(reqs []Request) []MethodLatency {
	samples := map[string][]float64{}
	for _, q := range reqs {
		if q.Dir == "c2s" && q.Ms != nil {
			samples[q.Method] = append(samples[q.Method], *q.Ms)
		}
	}
	out := []MethodLatency{}
	for _, method := range unionKeys(samples, nil) {
		out = append(out, methodLatency(method, samples[method]))
	}
	return out
}

// methodLatency sums up one method's samples (at least one).
func methodLatency(method string, xs []float64) MethodLatency {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return MethodLatency{Method: method, Count: len(s), P50Ms: percentile(s, 50), P95Ms: percentile(s, 95), P99Ms: percentile(s, 99), MaxMs: s[len(s)-1]}
}

// percentile is the p-th percentile of sorted (nearest rank: the least
// sample with at least p% of the samples at or below it).
func percentile(sorted []float64, p float64) float64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
