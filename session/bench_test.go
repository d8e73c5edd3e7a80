package session

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"linesman/wire"
)

const ingestFrameSize = 1024

// writeIngestFrames writes n notifications of exactly ingestFrameSize bytes.
func writeIngestFrames(out io.Writer, n int) {
	w := bufio.NewWriterSize(out, 256<<10)
	frame := make([]byte, 0, ingestFrameSize)
	for i := range n {
		// Fixed-width seq, so every frame is exactly ingestFrameSize (padded
		// with spaces: JSON forbids leading zeros, and the frames must be valid).
		frame = fmt.Appendf(frame[:0], `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","seq":%10d,"data":"`, i)
		for len(frame) < ingestFrameSize-len("\"}}\n") {
			frame = append(frame, 'x')
		}
		frame = append(frame, "\"}}\n"...)
		w.Write(frame)
	}
	w.Flush()
}

// BenchmarkTransportIngest measures spawn → split → classify → log of a
// child writing 1 KiB frames as fast as it can, against the same child read
// by a plain io.Copy to io.Discard in the same run. Reported: MB/s and
// frames/s of both, and the ratio session/plain (overall and the median of
// the pairs). For scale, framer-MB/s is wire's framer alone on the same
// bytes from memory, the ceiling of any transport built on it.
//
//	go test -run '^$' -bench TransportIngest -benchtime 5x ./session
func BenchmarkTransportIngest(b *testing.B) {
	const frames = 100_000
	env := append(fakeEnv("transport-ingest"), "LINESMAN_INGEST_FRAMES="+strconv.Itoa(frames))
	total := int64(frames * ingestFrameSize)
	var plainTime, sessionTime, framerTime time.Duration
	var mem bytes.Buffer
	writeIngestFrames(&mem, frames)
	// The stream must be clean JSON-RPC: an invalid frame takes the error
	// path of the classifier, and the benchmark would measure that instead.
	for _, f := range wire.FramesOf(mem.Bytes()[:3*ingestFrameSize], wire.Options{}) {
		if f.Msg.Kind != wire.KindNotification || len(f.Findings) > 0 {
			b.Fatalf("ingest frame is %s with findings %v", f.Msg.Kind, f.Findings)
		}
	}
	var ratios []float64 // per pair: the machine's load shifts between pairs, less within one
	b.SetBytes(total)
	b.ResetTimer()
	for range b.N {
		// Plain: the same child, its stdout copied to nowhere.
		t0 := time.Now()
		cmd := exec.Command(fakeCommand("transport-ingest")[0], fakeCommand("transport-ingest")[1:]...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, out)
		if err != nil || n != total {
			b.Fatalf("plain read %d bytes: %v", n, err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		plain := time.Since(t0)
		plainTime += plain

		// The session: every frame split, classified, tracked and logged.
		t0 = time.Now()
		s, err := Start(Config{Command: fakeCommand("transport-ingest"), Env: env})
		if err != nil {
			b.Fatal(err)
		}
		<-s.Done()
		took := time.Since(t0)
		sessionTime += took
		ratios = append(ratios, plain.Seconds()/took.Seconds())

		t0 = time.Now()
		fr := wire.NewFramer(bytes.NewReader(mem.Bytes()), wire.Options{})
		for {
			if _, err := fr.Next(); err != nil {
				break
			}
		}
		framerTime += time.Since(t0)
		if info := s.Info(); info.BytesIn != total || info.ExitCode != 0 {
			b.Fatalf("session read %d bytes, exit %d", info.BytesIn, info.ExitCode)
		}
		if _, next := s.Log().Bounds(); next < frames {
			b.Fatalf("only %d events logged", next-1)
		}
	}
	mb := float64(total) * float64(b.N) / 1e6
	fr := float64(frames) * float64(b.N)
	b.ReportMetric(mb/sessionTime.Seconds(), "session-MB/s")
	b.ReportMetric(fr/sessionTime.Seconds(), "session-frames/s")
	b.ReportMetric(mb/plainTime.Seconds(), "plain-MB/s")
	b.ReportMetric(mb/framerTime.Seconds(), "framer-MB/s")
	b.ReportMetric(plainTime.Seconds()/sessionTime.Seconds(), "ratio")
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}

// BenchmarkTransportStress is the long stress run as a benchmark: each
// iteration is one spawn → send → close cycle on each of 16 workers.
//
//	go test -run '^$' -bench TransportStress -benchtime 2000x ./session
func BenchmarkTransportStress(b *testing.B) {
	const workers = 16
	errs := make(chan error, workers)
	t0 := time.Now()
	for w := range workers {
		go func() {
			marker := fmt.Sprintf("worker-%d", w)
			for range b.N {
				if _, _, err := stressCycle(marker); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			b.Error(err)
		}
	}
	el := time.Since(t0)
	b.ReportMetric(float64(workers*b.N)/el.Seconds(), "cycles/s")
	b.ReportMetric(float64(workers*b.N), "cycles")
}
