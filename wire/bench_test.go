package wire

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
)

// realisticStream is what a busy session looks like on the wire: mostly
// ~1 KiB requests and responses, a few 64 KiB tools/list results and one
// 1 MiB blob (an image returned by a tool). The text is English with the
// odd quote, backslash and accented word, and a third of the tool results
// carry JSON serialised into a string (escaped quotes throughout), as tools
// often return. Built once, deterministically.
var realisticStream = sync.OnceValue(func() []byte {
	common := strings.Fields("the of and to in is that for it as with was on be by this are from or an which at not have has server client request response tool result value error file path line data list name type object string number array returns reads writes")
	rare := []string{`"quoted"`, `C:\\Users\\dev`, "café", "naïve", "→", "✓", "don't", "<b>bold</b>", "50%"}
	return buildStream(func(rng *rand.Rand) string {
		if rng.IntN(40) == 0 {
			return rare[rng.IntN(len(rare))]
		}
		return common[rng.IntN(len(common))]
	})
})

// nonASCIIStream is the same traffic with the text in Russian, Greek and
// Japanese: every character of it is a multi-byte UTF-8 sequence that the
// classifier validates and json.Valid does not.
var nonASCIIStream = sync.OnceValue(func() []byte {
	words := strings.Fields("сервер клиент запрос ответ инструмент результат ошибка файл διακομιστής αίτημα απάντηση σφάλμα サーバー クライアント 要求 応答 ツール 結果 エラー ファイル")
	return buildStream(func(rng *rand.Rand) string { return words[rng.IntN(len(words))] })
})

func buildStream(word func(*rand.Rand) string) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(word(rng))
			b.WriteByte(' ')
		}
		return b.String()
	}
	var out bytes.Buffer
	add := func(v any) {
		line, err := Marshal(v)
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
}

func streamLines() [][]byte { return linesOf(realisticStream()) }

func linesOf(s []byte) [][]byte { return bytes.Split(s[:len(s)-1], []byte("\n")) }

func benchFramer(b *testing.B) {
	s := realisticStream()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		f := NewFramer(bytes.NewReader(s), Options{})
		for {
			fr, err := f.Next()
			if err != nil {
				break
			}
			if len(fr.Findings) != 0 {
				b.Fatalf("realistic stream has findings: %v", fr.Findings)
			}
		}
	}
}

func benchClassify(b *testing.B) {
	lines := streamLines()
	b.SetBytes(int64(len(realisticStream())))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			Classify(l)
		}
	}
}

func benchValid(b *testing.B) {
	lines := streamLines()
	b.SetBytes(int64(len(realisticStream())))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if !json.Valid(l) {
				b.Fatal("invalid")
			}
		}
	}
}

func benchUnmarshal(b *testing.B) {
	lines := streamLines()
	b.SetBytes(int64(len(realisticStream())))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkStream measures, over the same bytes: the Framer (split,
// reassembly check and classification, what a session runs), Classify on
// pre-split lines, and the two encoding/json baselines.
func BenchmarkStream(b *testing.B) {
	b.Run("framer", benchFramer)
	b.Run("classify", benchClassify)
	b.Run("json.Valid", benchValid)
	b.Run("json.Unmarshal", benchUnmarshal)
}

// BenchmarkStreamRatios runs the Framer, Classify and both baselines in
// turn on every iteration, over the same bytes, and reports each throughput
// and the ratios (targets: ≥ 0.8 x json.Valid and ≥ 5 x json.Unmarshal into
// map[string]any). Throughput is measured in CPU time of the process (user +
// system, GC workers included), which on a shared machine is far steadier
// than wall time; the wall-time ratios are reported too.
func BenchmarkStreamRatios(b *testing.B) {
	b.Run("realistic", func(b *testing.B) { benchRatios(b, realisticStream()) })
	b.Run("non-ascii", func(b *testing.B) { benchRatios(b, nonASCIIStream()) })
}

func benchRatios(b *testing.B, s []byte) {
	lines := linesOf(s)
	phases := []func(){
		func() {
			f := NewFramer(bytes.NewReader(s), Options{})
			for {
				if _, err := f.Next(); err != nil {
					break
				}
			}
		},
		func() {
			for _, l := range lines {
				Classify(l)
			}
		},
		func() {
			for _, l := range lines {
				json.Valid(l)
			}
		},
		func() {
			for _, l := range lines {
				var m map[string]any
				_ = json.Unmarshal(l, &m)
			}
		},
		func() {
			sp := NewSplitter(bytes.NewReader(s), 0)
			for {
				if _, err := sp.Next(); err != nil {
					break
				}
			}
		},
	}
	cpu := make([]time.Duration, len(phases))
	wall := make([]time.Duration, len(phases))
	// Each iteration runs every phase `rounds` times in a row, starting on a
	// collected heap; the runtime.GC after a block is counted in its time,
	// so that each phase pays for its own garbage, and the block amortises
	// that collection's fixed cost as a long-running reader would.
	const rounds = 4
	for b.Loop() {
		for i, phase := range phases {
			runtime.GC()
			c0, w0 := cpuTime(), time.Now()
			for range rounds {
				phase()
			}
			runtime.GC()
			cpu[i] += cpuTime() - c0
			wall[i] += time.Since(w0)
		}
	}
	mb := float64(len(s)) * float64(b.N*rounds) / 1e6
	rate := func(d time.Duration) float64 { return mb / d.Seconds() }
	framer, classify, valid, unmarshal := rate(cpu[0]), rate(cpu[1]), rate(cpu[2]), rate(cpu[3])
	b.ReportMetric(rate(cpu[4]), "splitter-MB/cpu-s")
	b.ReportMetric(framer, "framer-MB/cpu-s")
	b.ReportMetric(classify, "classify-MB/cpu-s")
	b.ReportMetric(valid, "valid-MB/cpu-s")
	b.ReportMetric(unmarshal, "unmarshal-MB/cpu-s")
	b.ReportMetric(framer/valid, "framer/valid")
	b.ReportMetric(framer/unmarshal, "framer/unmarshal")
	b.ReportMetric(classify/valid, "classify/valid")
	b.ReportMetric(classify/unmarshal, "classify/unmarshal")
	b.ReportMetric(rate(wall[0])/rate(wall[2]), "wall:framer/valid")
	b.ReportMetric(rate(wall[0])/rate(wall[3]), "wall:framer/unmarshal")
}

// cpuTime is the CPU time (user + system) used by the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSplitter is the line splitter alone over the realistic stream.
func BenchmarkSplitter(b *testing.B) {
	s := realisticStream()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		sp := NewSplitter(bytes.NewReader(s), 0)
		for {
			if _, err := sp.Next(); err != nil {
				break
			}
		}
	}
}

// BenchmarkClassifyBySize compares Classify with json.Valid on each part of
// the realistic stream: the ~1 KiB messages, the tools/list results, the blob.
func BenchmarkClassifyBySize(b *testing.B) {
	for _, k := range []struct {
		name     string
		min, max int
	}{{"small", 0, 4 << 10}, {"tools-list", 4 << 10, 512 << 10}, {"blob", 512 << 10, 1 << 30}} {
		var lines [][]byte
		n := 0
		for _, l := range streamLines() {
			if len(l) >= k.min && len(l) < k.max {
				lines = append(lines, l)
				n += len(l)
			}
		}
		b.Run(k.name+"/classify", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, l := range lines {
					Classify(l)
				}
			}
		})
		b.Run(k.name+"/json.Valid", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, l := range lines {
					json.Valid(l)
				}
			}
		})
	}
}

// prettyStream is the realistic stream's messages pretty-printed, as some
// servers write them: every message spans many lines, so the Framer's
// reassembly (the incremental scanner) sees every byte.
var prettyStream = sync.OnceValue(func() []byte {
	var out bytes.Buffer
	for _, l := range streamLines() {
		if err := json.Indent(&out, l, "", "  "); err != nil {
			panic(err)
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
})

// BenchmarkReassembly is the Framer over pretty-printed messages: one frame
// per message, each joined from its lines.
func BenchmarkReassembly(b *testing.B) {
	s := prettyStream()
	want := len(streamLines())
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		f := NewFramer(bytes.NewReader(s), Options{})
		n := 0
		for {
			fr, err := f.Next()
			if err != nil {
				break
			}
			if len(fr.Findings) != 1 || fr.Findings[0].Code != "multi-line-frame" {
				b.Fatalf("want only multi-line-frame, got %v", fr.Findings)
			}
			n++
		}
		if n != want {
			b.Fatalf("%d frames, want %d", n, want)
		}
	}
}

// BenchmarkIncScanner is the incremental scanner alone, fed the
// pretty-printed messages line by line as the Framer feeds a run.
func BenchmarkIncScanner(b *testing.B) {
	var msgs [][][]byte
	for _, l := range bytes.SplitAfter(prettyStream(), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if l[0] == '{' {
			msgs = append(msgs, nil)
		}
		msgs[len(msgs)-1] = append(msgs[len(msgs)-1], l)
	}
	b.SetBytes(int64(len(prettyStream())))
	var z incScanner
	for b.Loop() {
		for _, lines := range msgs {
			z.reset()
			r := incMore
			for _, l := range lines {
				r = z.feed(l)
			}
			if r != incDone {
				b.Fatalf("a message ended in state %d", r)
			}
		}
	}
}
