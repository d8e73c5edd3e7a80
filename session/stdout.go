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
	defer func() { go p.judgeStdoutEnd() }()
	defer close(p.stdoutDone)
	defer p.pipes.stdoutR.Close()
	var r io.Reader = p.pipes.stdoutR
	if tee := p.s.cfg.StdoutTee; tee != nil {
		tr := &teeReader{r: r, w: tee, deferred: true, stopOnError: true}
		defer tr.flush() // the stream ended with an error: nothing may stay behind
		r = tr
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

// teeReader passes on every byte read through it: the tap's forwarding.
//
// With defer set (stdout), the bytes of one read are written out at the
// start of the next read, or at once when the read ends the stream: the
// framer reads again only once it has framed and logged every complete
// line it holds, so a frame is in the log before the host has its last
// byte (the host's answer to a server request can never be logged ahead of
// that request), and what costs latency is only the framing of one read.
// A partial line goes on as soon as the framer asks for more. The bytes
// are not copied: the Splitter never writes to a piece of its buffers
// before it reads again, and that read starts here, after the write.
//
// Without defer (stderr), each read's bytes are written before it returns.
//
// A write error either ends reading (stopOnError: the error is returned,
// the framer ends the stream there) or only ends the copying.
type teeReader struct {
	r           io.Reader
	w           io.Writer
	deferred    bool
	stopOnError bool
	failed      bool
	pending     []byte
}

func (t *teeReader) Read(b []byte) (int, error) {
	if err := t.flush(); err != nil {
		return 0, err
	}
	n, err := t.r.Read(b)
	if n > 0 && !t.failed {
		t.pending = b[:n]
		if !t.deferred || err != nil {
			if ferr := t.flush(); ferr != nil {
				return n, ferr
			}
		}
	}
	return n, err
}

// flush writes what the last read returned and was not written yet.
func (t *teeReader) flush() error {
	p := t.pending
	t.pending = nil
	if len(p) == 0 || t.failed {
		return nil
	}
	if _, err := t.w.Write(p); err != nil {
		t.failed = true
		if t.stopOnError {
			return fmt.Errorf("%w: %w", ErrTeeFailed, err)
		}
	}
	return nil
}

// ErrTeeFailed is wrapped by the error that ends the reading of stdout
// when Config.StdoutTee could not take the bytes.
var ErrTeeFailed = errors.New("passing the server's stdout on failed")
