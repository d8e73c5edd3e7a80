package report

import (
	"reflect"
	"strings"
	"testing"
)

// requests are n client requests of method, taking each of ms in turn.
func requests(method string, ms ...float64) []Request {
	var out []Request
	for _, v := range ms {
		out = append(out, Request{Dir: "c2s", Method: method, Ms: &v})
	}
	return out
}

// TestLatencyFromEverySample: a report's latency block sums up every
// request of a method that ended (nearest-rank p50 and p95, max, count),
// not one of them; the server's own requests and those in flight count
// for nothing.
func TestLatencyFromEverySample(t *testing.T) {
	reqs := requests("ping", 5, 1, 4, 2, 3, 100, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
	reqs = append(reqs, Request{Dir: "c2s", Method: "ping"}, Request{Dir: "s2c", Method: "ping", Ms: new(float64)})
	reqs = append(reqs, requests("tools/list", 40)...)
	got := latencyOf(reqs)
	want := []MethodLatency{{Method: "ping", Count: 20, P50Ms: 10, P95Ms: 19, P99Ms: 100, MaxMs: 100}, {Method: "tools/list", Count: 1, P50Ms: 40, P95Ms: 40, P99Ms: 40, MaxMs: 40}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("latency %+v, want %+v", got, want)
	}
}

// TestDiffLatencyNoise: diff says a shift of the median is within noise
// when it is under 2 ms, under either session's spread (p95 − p50), or,
// with fewer than five samples a side, under a doubling; a shift beyond
// all of these is a change.
func TestDiffLatencyNoise(t *testing.T) {
	many := func(base float64) []float64 {
		var xs []float64
		for i := range 20 {
			xs = append(xs, base+float64(i%4)) // spread 3 ms
		}
		return xs
	}
	for _, c := range []struct {
		name  string
		a, b  []float64
		noise bool
	}{
		{"one sample each, +60%", []float64{10}, []float64{16}, true},
		{"one sample each, ×3", []float64{10}, []float64{30}, false},
		{"under the floor", many(1), many(2.5), true},
		{"within the spread", many(50), many(52), true},
		{"beyond the spread, many samples", many(50), many(60), false},
	} {
		a := &Report{ServerInfo: []byte("null"), Requests: requests("tools/call", c.a...)}
		b := &Report{ServerInfo: []byte("null"), Requests: requests("tools/call", c.b...)}
		d := DiffReports("a", "b", a, b)
		if len(d.Latency) != 1 || d.Latency[0].WithinNoise != c.noise {
			t.Errorf("%s: %+v, want within noise %v", c.name, d.Latency, c.noise)
		}
	}
}

// TestDiffLatencyPerTool: diff compares the calls of each tool as it does
// each method, p99 included, and a tool on one side only is listed.
func TestDiffLatencyPerTool(t *testing.T) {
	tool := func(name string, p50, p99 float64) MethodLatency {
		return MethodLatency{Method: "tools/call", Tool: name, Count: 20, P50Ms: p50, P95Ms: p50, P99Ms: p99, MaxMs: p99}
	}
	a := &Report{ServerInfo: []byte("null"), LatencyByTool: []MethodLatency{tool("slow", 100, 120), tool("gone", 5, 5)}}
	b := &Report{ServerInfo: []byte("null"), LatencyByTool: []MethodLatency{tool("slow", 300, 900)}}
	d := DiffReports("a", "b", a, b)
	got := map[string]LatencyShift{}
	for _, l := range d.Latency {
		got[l.Tool] = l
	}
	slow, gone := got["slow"], got["gone"]
	if len(d.Latency) != 2 || slow.BP99Ms == nil || *slow.BP99Ms != 900 || *slow.AP99Ms != 120 || slow.WithinNoise || *slow.ShiftMs != 200 {
		t.Errorf("slow: %+v", slow)
	}
	if gone.AMs == nil || gone.BMs != nil || gone.Method != "tools/call" {
		t.Errorf("gone: %+v", gone)
	}
	var text strings.Builder
	d.WriteText(&text)
	if !strings.Contains(text.String(), "tools/call slow") || !strings.Contains(text.String(), "p99 900.0") {
		t.Errorf("text:\n%s", text.String())
	}
}
