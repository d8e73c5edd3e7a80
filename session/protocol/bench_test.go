package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"linesman/wire"
)

// realisticStream is wire's realistic benchmark stream (wire/bench_test.go,
// built the same way from the same seed; test code cannot be shared across
// packages): 3000 tools/call requests with progress and ~1 KiB results, a
// 130-tool tools/list every 500 calls, and a 768 KiB image.
var realisticStream = sync.OnceValue(func() []byte {
	common := strings.Fields("the of and to in is that for it as with was on be by this are from or an which at not have has server client request response tool result value error file path line data list name type object string number array returns reads writes")
	rare := []string{`"quoted"`, `C:\\Users\\dev`, "café", "naïve", "→", "✓", "don't", "<b>bold</b>", "50%"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		if rng.IntN(40) == 0 {
			return rare[rng.IntN(len(rare))]
		}
		return common[rng.IntN(len(common))]
	}
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(word())
			b.WriteByte(' ')
		}
		return b.String()
	}
	var out bytes.Buffer
	add := func(v any) {
		line, err := wire.Marshal(v)
		if err != nil {
			panic(err)
		}
		out.Write(line)
	}
	tools := func(n int) []any {
		var ts []any
		for i := range n {
			ts = append(ts, map[string]any{
				"name": fmt.Sprintf("tool_%d", i), "description": text(300),
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"path":  map[string]any{"type": "string", "description": text(60)},
					"limit": map[string]any{"type": "integer", "minimum": 0, "maximum": 1000},
				}, "required": []any{"path"}},
			})
		}
		return ts
	}
	// Unlike wire's, the stream opens with the handshake, so that the
	// rules judge it as a legacy session rather than flag its absence.
	add(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}}})
	add(map[string]any{"jsonrpc": "2.0", "id": 0, "result": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "bench", "version": "1"}}})
	add(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	id := 0
	for i := range 3000 {
		id++
		add(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
			"name": "search", "arguments": map[string]any{"query": text(700), "limit": 10},
			"_meta": map[string]any{"progressToken": id}}})
		add(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": id, "progress": 0.5, "total": 1.0}})
		body := text(900)
		if i%3 == 0 {
			js, _ := json.Marshal(map[string]any{"hits": []any{map[string]any{"title": text(100), "score": 0.87, "path": "src/main.go"}, map[string]any{"title": text(200), "line": 42}}, "total": 2})
			body = string(js)
		}
		add(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": body}}, "isError": false}})
		if i%500 == 0 {
			id++
			add(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"tools": tools(130)}})
		}
	}
	blob := make([]byte, 768<<10)
	for i := range blob {
		blob[i] = byte(rng.Uint32())
	}
	add(map[string]any{"jsonrpc": "2.0", "id": id + 1, "result": map[string]any{"content": []any{
		map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(blob)}}}})
	return out.Bytes()
})

// frameOnly runs the framer over the stream, as a session's reader does.
func frameOnly(s []byte) {
	f := wire.NewFramer(bytes.NewReader(s), wire.Options{})
	for {
		if _, err := f.Next(); err != nil {
			return
		}
	}
}

// frameAndPair runs the framer and pairs answers with requests as the
// session's fold does without any rules (by id, in the other direction).
func frameAndPair(s []byte) {
	f := wire.NewFramer(bytes.NewReader(s), wire.Options{})
	pending := map[wire.ID]*wire.Frame{}
	for {
		fr, err := f.Next()
		if err != nil {
			return
		}
		switch fr.Msg.Kind {
		case wire.KindRequest:
			pending[fr.Msg.ID] = fr
		case wire.KindResult, wire.KindError:
			delete(pending, fr.Msg.ID)
		}
	}
}

// frameAndJudge runs the framer and the judge, pairing answers with the
// requests the way the session's fold does (by id in the other direction).
// The stream is all server-to-client except the tools/call requests.
func frameAndJudge(s []byte) int { return frameAndJudgeWith(s, true) }

// frameAndJudgeWith is frameAndJudge with the schema judge on or off.
func frameAndJudgeWith(s []byte, schemas bool) int {
	f := wire.NewFramer(bytes.NewReader(s), wire.Options{})
	j := New()
	j.SetSchemas(schemas)
	pending := map[wire.ID]*wire.Frame{}
	n := 0
	for {
		fr, err := f.Next()
		if err != nil {
			return n
		}
		in := Input{Dir: wire.ServerToClient, Frame: fr}
		if fr.Msg.Method == "notifications/initialized" {
			in.Dir = wire.ClientToServer
		}
		switch fr.Msg.Kind {
		case wire.KindRequest:
			in.Dir = wire.ClientToServer
			pending[fr.Msg.ID] = fr
		case wire.KindResult, wire.KindError:
			in.Request = pending[fr.Msg.ID]
			delete(pending, fr.Msg.ID)
		}
		j.Frame(in)
		n += len(fr.Findings)
	}
}

// BenchmarkJudgeOnly judges frames framed beforehand: the rules' own cost.
func BenchmarkJudgeOnly(b *testing.B) {
	s := realisticStream()
	frames := wire.FramesOf(s, wire.Options{})
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		j := New()
		pending := map[wire.ID]*wire.Frame{}
		for _, fr := range frames {
			in := Input{Dir: wire.ServerToClient, Frame: fr}
			switch fr.Msg.Kind {
			case wire.KindRequest:
				in.Dir = wire.ClientToServer
				pending[fr.Msg.ID] = fr
			case wire.KindResult, wire.KindError:
				in.Request = pending[fr.Msg.ID]
				delete(pending, fr.Msg.ID)
			}
			fr.Findings = fr.Findings[:0]
			j.Frame(in)
		}
	}
}

func BenchmarkRules(b *testing.B) {
	s := realisticStream()
	b.Run("framer", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			frameOnly(s)
		}
	})
	b.Run("framer+rules", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			frameAndJudge(s)
		}
	})
}

// BenchmarkRulesRatio alternates the framer alone, the framer with the
// pairing of answers to requests (the fold's own work, rules or not), and
// both with the rules, over the same bytes, and reports what the rules add
// as a fraction of the framer's cost (target: ≤ 0.30). As in wire's
// BenchmarkStreamRatios, time is the process's CPU time (user + system, GC
// included), far steadier than wall time on a shared machine; each phase
// runs several rounds from a collected heap and pays for its own garbage.
func BenchmarkRulesRatio(b *testing.B) {
	s := realisticStream()
	phases := []func(){func() { frameOnly(s) }, func() { frameAndPair(s) }, func() { frameAndJudge(s) }}
	cpu := make([]time.Duration, len(phases))
	const rounds = 4
	for b.Loop() {
		for i, phase := range phases {
			runtime.GC()
			c0 := cpuTime()
			for range rounds {
				phase()
			}
			runtime.GC()
			cpu[i] += cpuTime() - c0
		}
	}
	b.ReportMetric(float64(cpu[2]-cpu[1])/float64(cpu[0]), "rules/framer")
	b.ReportMetric(float64(cpu[1]-cpu[0])/float64(cpu[0]), "pairing/framer")
}

// BenchmarkSchemaRatio alternates the judge's whole ingest (framer,
// pairing and rules) without the schema judge and with it, over the same
// bytes, and reports the schema judge's share of the ingest with it
// ((with − without) / with; target: < 0.30) and what it adds as a fraction
// of the framer's cost, measured as BenchmarkRulesRatio measures.
func BenchmarkSchemaRatio(b *testing.B) {
	s := realisticStream()
	schemaOf(V20251125) // compiled once per process, as in a session: not the ingest's cost
	phases := []func(){func() { frameOnly(s) }, func() { frameAndJudgeWith(s, false) }, func() { frameAndJudgeWith(s, true) }}
	cpu := make([]time.Duration, len(phases))
	const rounds = 4
	for b.Loop() {
		for i, phase := range phases {
			runtime.GC()
			c0 := cpuTime()
			for range rounds {
				phase()
			}
			runtime.GC()
			cpu[i] += cpuTime() - c0
		}
	}
	b.ReportMetric(float64(cpu[2]-cpu[1])/float64(cpu[2]), "schema/ingest")
	b.ReportMetric(float64(cpu[2]-cpu[1])/float64(cpu[0]), "schema/framer")
	b.ReportMetric(float64(cpu[1]-cpu[0])/float64(cpu[0]), "rules/framer")
}

// BenchmarkSchemaCompile indexes every revision's schema and compiles every
// definition of it, from its bytes: the most the schema judge can cost a
// process (a conversation compiles only the definitions it meets, see
// BenchmarkSchemaFirstUse).
func BenchmarkSchemaCompile(b *testing.B) {
	for b.Loop() {
		for _, rev := range []string{V20241105, V20250326, V20250618, V20251125, V20260728} {
			rs := indexRevision(rev)
			rs.mu.Lock()
			for name := range rs.c.raws {
				rs.compile(name)
			}
			rs.mu.Unlock()
		}
	}
}

// BenchmarkSchemaFirstUse is what a one-shot's first exchange costs the
// schema judge in a fresh process: the 2026-07-28 schema indexed, and the
// server/discover request and result compiled.
func BenchmarkSchemaFirstUse(b *testing.B) {
	for b.Loop() {
		rs := indexRevision(V20260728)
		rs.paramsOf("server/discover")
		rs.resultFor("server/discover")
	}
}

// cpuTime is the CPU time (user + system) used by the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRealisticStreamIsClean: the benchmark stream breaks no rule (no
// initialize, no capabilities: nothing to hold it to but shapes and content).
func TestRealisticStreamIsClean(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 7 MB stream")
	}
	if n := frameAndJudge(realisticStream()); n != 0 {
		t.Fatalf("%d findings on the realistic stream", n)
	}
}
