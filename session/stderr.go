package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"linesman/session/eventlog"
	"linesman/wire"
)

// readStderr splits the server's stderr into lines with their exact bytes and
// logs each one, until EOF. It never parses them as protocol. A flood is
// drained as fast as it comes (the log's retention bounds the memory): a
// server whose stderr pipe fills up blocks. In a tap, it is drained as fast
// as the capture records it: a recorder a log's budget behind (Log.Pace)
// holds the reading up, and the server's writes with it, so that the capture
// holds every line.
func (p *proc) readStderr() {
	defer close(p.stderrDone)
	defer p.pipes.stderrR.Close()
	s := p.s
	maxLine := min(stderrMaxLine, s.cfg.MaxFrame)
	var r io.Reader = p.pipes.stderrR
	if tee := s.cfg.StderrTee; tee != nil {
		r = &teeReader{r: r, w: tee}
	}
	sp := wire.NewSplitter(r, maxLine)
	for {
		line, err := sp.Next()
		if err != nil {
			if err != io.EOF && !errors.Is(err, os.ErrClosed) {
				s.note(fmt.Sprintf("reading the server's stderr failed: %v", err))
			}
			return
		}
		l := line
		s.log.Pace() // a tap's capture recorder behind: see below
		s.log.Append(eventlog.Event{Type: eventlog.EventStderr, Stderr: &l})
		p.mu.Lock()
		p.bytesErr += l.Length + int64(len(l.Term.Bytes()))
		p.addTailLocked(l.Content)
		p.mu.Unlock()
		// Escape sequences stay in the log as data (the UI renders them
		// inert); a server that colours its logs is told once.
		if bytes.IndexByte(l.Content, 0x1b) >= 0 && s.flagOnce(&s.stderrEsc) {
			s.logFinding("stderr-escape-sequences", "the server writes terminal escape sequences to stderr (first seen here); they are shown as text, never interpreted")
		}
	}
}

// tailLineMax bounds one line kept in the stderr tail (errors carry it).
const tailLineMax = 1024

func (p *proc) addTailLocked(content []byte) {
	if len(content) > tailLineMax {
		content = content[:tailLineMax]
	}
	if len(p.tail) < tailKeep {
		p.tail = append(p.tail, string(content))
		return
	}
	p.tail[p.tailNext] = string(content)
	p.tailNext = (p.tailNext + 1) % tailKeep
}

// tailLocked returns up to the last n stderr lines, oldest first.
func (p *proc) tailLocked(n int) []string {
	if n > len(p.tail) {
		n = len(p.tail)
	}
	if n <= 0 {
		return nil
	}
	out := make([]string, 0, n)
	start := len(p.tail) - n // index in logical (oldest-first) order
	for i := start; i < len(p.tail); i++ {
		out = append(out, p.tail[(p.tailNext+i)%len(p.tail)])
	}
	return out
}

func (p *proc) stderrTail(n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tailLocked(n)
}
