package session

import (
	"errors"
	"fmt"
	"io"
	"os"

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
	fr := wire.NewFramer(p.pipes.stdoutR, wire.Options{MaxFrame: p.s.cfg.MaxFrame})
	for {
		f, err := fr.Next()
		if f != nil {
			size := f.Size()
			p.s.logFrame(wire.ServerToClient, f)
			p.mu.Lock()
			p.bytesIn += size
			p.s2cFrames++
			p.mu.Unlock()
		}
		if err != nil {
			if err != io.EOF && !errors.Is(err, os.ErrClosed) {
				p.s.note(fmt.Sprintf("reading the server's stdout failed: %v", err))
			}
			return
		}
	}
}
