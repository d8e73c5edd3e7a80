package demo

import (
	"fmt"
	"testing"
)

// BenchmarkEchoRoundTrip measures echo round trips through a real demo
// server process, isolated and not: isolation moves the wire to other
// descriptors once at start, so the two should cost the same per message.
//
//	go test ./demo -run '^$' -bench EchoRoundTrip -count 5
func BenchmarkEchoRoundTrip(b *testing.B) {
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			p := startDemo(b, mode.args...)
			p.initialize(LatestLegacyVersion)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				p.callTool(i+1, "echo", map[string]any{"text": "round trip"})
				if f := p.next(); string(f.ID) != fmt.Sprint(i+1) {
					b.Fatalf("answer %s to request %d", f.raw, i+1)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
			p.closeStdin()
			p.wait()
		})
	}
}
