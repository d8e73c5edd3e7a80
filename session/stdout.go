package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"linesman/wire"
)

// readStdout frames the server's stdout and logs every frame until EOF.
//
// One goroutine reads, frames and logs: handing frames to a second
// goroutine (and reading ahead on a third) was measured and did not pay on
// a loaded two-core machine; the framer's classification is the cost.
func (p *proc) readStdout() {
	defer close(p.stdoutDone)
	defer p.pipes.stdoutR.Close()
	var r io.Reader = p.pipes.stdoutR
	if tee := p.s.cfg.StdoutTee; tee != nil {
		r = &teeReader{r: r, w: tee, stopOnError: true}
	}
	fr := wire.NewFramer(countingReader{r, &p.stdoutRead, &p.stdoutWaiting}, wire.Options{MaxFrame: p.s.cfg.MaxFrame})
	for {
		f, err := fr.Next()
		if f != nil {
			size := f.Size()
			p.s.logFrame(wire.ServerToClient, f)
			p.mu.Lock()
			p.bytesIn += size
			p.s2cFrames++
			p.mu.Unlock()
			select {
			case p.stdoutProgress <- struct{}{}:
			default:
			}
		}
		if err != nil {
			if err != io.EOF && !errors.Is(err, os.ErrClosed) {
				p.s.note(fmt.Sprintf("reading the server's stdout failed: %v", err))
			}
			return
		}
	}
}

// countingReader counts the bytes read from the pipe, framed or not yet,
// and says when its reader is waiting for more.
type countingReader struct {
	r       io.Reader
	n       *atomic.Int64
	waiting *atomic.Bool
}

func (c countingReader) Read(b []byte) (int, error) {
	c.waiting.Store(true)
	n, err := c.r.Read(b)
	c.waiting.Store(false)
	c.n.Add(int64(n))
	return n, err
}

// teeReader copies every byte it reads to w before returning it: the tap's
// forwarding, done as each read returns so that nothing waits for a frame
// to end. A write error either ends reading (stopOnError: the error is
// returned, the framer ends the stream there) or only ends the copying.
type teeReader struct {
	r           io.Reader
	w           io.Writer
	stopOnError bool
	failed      bool
}

func (t *teeReader) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	if n > 0 && !t.failed {
		if _, werr := t.w.Write(b[:n]); werr != nil {
			t.failed = true
			if t.stopOnError {
				return n, fmt.Errorf("%w: %w", ErrTeeFailed, werr)
			}
		}
	}
	return n, err
}

// ErrTeeFailed is wrapped by the error that ends the reading of stdout
// when Config.StdoutTee could not take the bytes.
var ErrTeeFailed = errors.New("passing the server's stdout on failed")
