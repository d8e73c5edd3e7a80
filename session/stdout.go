package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"linesman/session/fault"
	"linesman/wire"
)

// readStdout frames the server's stdout and logs every frame until EOF.
//
// One goroutine reads, frames and logs: handing frames to a second
// goroutine (and reading ahead on a third) was measured and did not pay on
// a loaded two-core machine; the framer's classification is the cost.
//
// A tap (Config.Observe) is the exception: there the wire comes first.
// [proc.forwardStdout] reads the pipe and passes each read on to the host
// at once, and this goroutine judges the same bytes behind it, from the
// scribe queue (see inlet_scribe.go).
func (p *proc) readStdout() {
	defer func() { go p.settleStdoutEnd() }()
	defer close(p.stdoutDone)
	defer p.pipes.stdoutR.Close()
	if p.scribe != nil {
		go p.forwardStdout()
		p.scribeStream(wire.ServerToClient, p.logStdoutIndexed)
		return
	}
	fr := wire.NewFramer(countingReader{p.pipes.stdoutR, &p.stdoutRead, &p.stdoutWaiting, &p.s.injector}, wire.Options{MaxFrame: p.s.cfg.MaxFrame})
	for {
		f, err := fr.Next()
		if f != nil {
			p.logStdoutIndexed(f, fr.Params(f))
		}
		if err != nil {
			p.stdoutFailed(err)
			return
		}
	}
}

// logStdoutIndexed logs a frame the server wrote and counts it, then lets
// the client side see it — once released when it is held (intercept.go;
// never in a tap). params is the framer's index of the frame's params,
// which the judge reads instead of scanning them (nil: none).
func (p *proc) logStdoutIndexed(f *wire.Frame, params *wire.ParamsIndex) {
	size := f.Size()
	seq := p.s.recordFrame(wire.ServerToClient, f, params)
	p.mu.Lock()
	p.bytesIn += size
	p.s2cFrames++
	p.mu.Unlock()
	select {
	case p.stdoutProgress <- struct{}{}:
	default:
	}
	if p.scribe == nil {
		f = p.holdStdout(f, seq)
	}
	if f != nil {
		p.s.onFrame(wire.ServerToClient, f, seq)
	}
}

// stdoutFailed notes why reading stdout ended, unless it simply ended.
func (p *proc) stdoutFailed(err error) {
	if err != io.EOF && !errors.Is(err, os.ErrClosed) {
		p.s.note(fmt.Sprintf("reading the server's stdout failed: %v", err))
	}
}

// forwardStdout is a tap's stdout wire: each read from the server's stdout
// is queued for the scribe and passed on to Config.StdoutTee at once, in
// that order (the ticket comes first; see inlet_scribe.go). A write to the
// tee may block: the server then blocks on its own write, as it would on a
// host that is slow to read. A write error ends the reading of stdout and
// closes the pipe, so that the server's next write fails as it would if the
// host had closed its end.
//
// A large read is lent to the scribe queue rather than copied into it (and
// the scribe's framer cuts its frames out of it: see readChunk): the next
// read goes into another buffer of chunkPool.
func (p *proc) forwardStdout() {
	defer p.scribe.end(wire.ServerToClient, false)
	tee := p.s.cfg.StdoutTee
	buf := chunkPool.Get().(*[chunkSize]byte)
	for {
		p.stdoutWaiting.Store(true)
		n, err := p.pipes.stdoutR.Read(buf[:])
		p.stdoutWaiting.Store(false)
		if n > 0 {
			p.stdoutRead.Add(int64(n))
			ticket, lent := p.scribe.lend(wire.ServerToClient, buf, n)
			var werr error
			if tee != nil {
				werr = p.tee(tee, buf[:n], ticket)
			}
			if lent != nil {
				lent.release()
				buf = chunkPool.Get().(*[chunkSize]byte)
			}
			if werr != nil {
				p.pipes.stdoutR.Close()
				p.stdoutFailed(fmt.Errorf("%w: %w", ErrTeeFailed, werr))
				return
			}
		}
		if err != nil {
			if rest := p.outSplit.rest(); len(rest) > 0 {
				p.s.toHost(rest) // a last line without its end
			}
			p.stdoutFailed(err)
			return
		}
	}
}

// tee passes a read of the server's stdout on to the host: as it came, or
// by whole lines, each possibly held (Config.Intercept).
func (p *proc) tee(w io.Writer, b []byte, ticket uint64) error {
	if p.s.cfg.Intercept {
		return p.teeLines(b, ticket)
	}
	_, err := w.Write(b)
	return err
}

// countingReader counts the bytes read from the pipe, framed or not yet,
// and says when its reader is waiting for more. Each read is passed on to
// the fault armed by [Session.InjectFault], if any, before the framer
// sees it, so a fault's event is logged ahead of the frame it concerns.
type countingReader struct {
	r        io.Reader
	n        *atomic.Int64
	waiting  *atomic.Bool
	injector *atomic.Pointer[fault.Injector]
}

func (c countingReader) Read(b []byte) (int, error) {
	c.waiting.Store(true)
	n, err := c.r.Read(b)
	c.waiting.Store(false)
	c.n.Add(int64(n))
	if n > 0 {
		if inj := c.injector.Load(); inj != nil {
			inj.Write(b[:n])
		}
	}
	return n, err
}

// teeReader passes on every byte read through it, before the read returns:
// a tap's stderr. After a write error it only reads (stderr is still
// drained).
type teeReader struct {
	r      io.Reader
	w      io.Writer
	failed bool
}

func (t *teeReader) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	if n > 0 && !t.failed {
		if _, werr := t.w.Write(b[:n]); werr != nil {
			t.failed = true
		}
	}
	return n, err
}

// ErrTeeFailed is wrapped by the error that ends the reading of stdout
// when Config.StdoutTee could not take the bytes.
var ErrTeeFailed = errors.New("passing the server's stdout on failed")
