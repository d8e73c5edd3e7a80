package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

func BenchmarkZZSplitter(b *testing.B) {
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

func zzPick(min, max int) [][]byte {
	var out [][]byte
	for _, l := range streamLines() {
		if len(l) >= min && len(l) < max {
			out = append(out, l)
		}
	}
	return out
}

func BenchmarkZZKinds(b *testing.B) {
	for _, k := range []struct {
		name     string
		min, max int
	}{{"small", 0, 4096}, {"toolslist", 4096, 512 << 10}, {"blob", 512 << 10, 1 << 30}} {
		lines := zzPick(k.min, k.max)
		n := 0
		for _, l := range lines {
			n += len(l)
		}
		b.Run(k.name+"/classify", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, l := range lines {
					Classify(l)
				}
			}
		})
		b.Run(k.name+"/valid", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, l := range lines {
					json.Valid(l)
				}
			}
		})
	}
}
