// Package tapctl is the controller of a tap started with --intercept. The
// tap accepts a controller: a unix socket beside its capture (NAME@START-PID.sock, mode 0600), through which
// `linesman view --follow` (or any client of the tap's owner) holds,
// edits, releases and drops frames in flight, with the same hook the
// inspector's own session uses (session/intercept.go). Every step is an
// event of the capture, so the follower sees it as it happens.
//
// The protocol is one line per request, one line per answer:
//
//	arm FILTER      hold the frames matching FILTER (the frame filter's language; empty: stop holding)
//	release N       pass held frame N on as it was
//	edit N BYTES    pass held frame N on as BYTES (one frame, the rest of the line)
//	drop N          drop held frame N (a request is answered with JSON-RPC error -32050)
//
// answered "ok" or "error MESSAGE". The socket is untrusted input: only
// the tap owner's connections are served (the socket's mode, and the
// peer's user id where the system tells it), a few at a time, and a line
// longer than an edit of the largest frame ends its connection.
package tapctl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"linesman/session"
	"linesman/ui"
)

// SocketPath is the controller's socket beside a tap's capture.
func SocketPath(capturePath string) string {
	return strings.TrimSuffix(capturePath, ".jsonl") + ".sock"
}

// maxControllers bounds the connections served at once.
const maxControllers = 4

// tapControl serves a tap's controller socket.
type tapControl struct {
	ln      *os.File
	path    string
	s       *session.Session
	maxLine int
	slots   chan struct{}
	wg      sync.WaitGroup
}

// Controller is tap --intercept's run.TapOptions.Intercept: it serves
// the controller's socket beside the capture.
func Controller(maxFrame int) func(capturePath string, s *session.Session) (stop func(), err error) {
	return func(capturePath string, s *session.Session) (func(), error) {
		c, err := startTapControl(capturePath, s, maxFrame)
		if err != nil {
			return nil, err
		}
		return c.close, nil
	}
}

// startTapControl listens on the socket beside capturePath for the
// session's controller.
func startTapControl(capturePath string, s *session.Session, maxFrame int) (*tapControl, error) {
	path := SocketPath(capturePath)
	os.Remove(path) // a socket left by a tap that died with our pid
	// Bound and listening under another name, then renamed into place: a
	// controller that sees the socket can connect to it at once.
	tmp := path + ".new"
	os.Remove(tmp)
	ln, err := listenUnix(tmp)
	if err != nil {
		return nil, fmt.Errorf("the controller's socket: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		ln.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("the controller's socket: %w", err)
	}
	c := &tapControl{ln: ln, path: path, s: s, maxLine: maxFrame + 64, slots: make(chan struct{}, maxControllers)}
	c.wg.Add(1)
	go c.serve()
	return c, nil
}

func (c *tapControl) serve() {
	defer c.wg.Done()
	for {
		conn, err := acceptUnix(c.ln)
		if err != nil {
			return
		}
		if uid, ok := peerUID(conn); ok && uid != os.Getuid() {
			conn.Close()
			continue
		}
		select {
		case c.slots <- struct{}{}:
		default:
			fmt.Fprintln(conn, "error too many controllers")
			conn.Close()
			continue
		}
		go func() {
			defer func() { <-c.slots }()
			c.serveConn(conn)
		}()
	}
}

// serveConn answers a controller's lines until it hangs up or sends a
// line over the bound.
func (c *tapControl) serveConn(conn *os.File) {
	defer conn.Close()
	r := bufio.NewReaderSize(conn, 4096)
	for {
		line, err := readBoundedLine(r, c.maxLine)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				fmt.Fprintf(conn, "error %v\n", err)
			}
			return
		}
		answer := "ok"
		if err := c.do(line); err != nil {
			answer = "error " + strings.ReplaceAll(err.Error(), "\n", " ")
		}
		if _, err := io.WriteString(conn, answer+"\n"); err != nil {
			return
		}
	}
}

// do carries out one request line.
func (c *tapControl) do(line []byte) error {
	verb, rest, _ := bytes.Cut(line, []byte(" "))
	switch string(verb) {
	case "arm":
		src := strings.TrimSpace(string(rest))
		match, err := ui.InterceptMatcher(src, c.s.Tracker())
		if err != nil {
			return err
		}
		if match == nil {
			src = ""
		}
		c.s.SetInterceptor(match, src)
		return nil
	case "release", "drop", "edit":
		num, edited, _ := bytes.Cut(rest, []byte(" "))
		hold, err := strconv.ParseUint(string(num), 10, 64)
		if err != nil {
			return fmt.Errorf("%s wants the held frame's number: %q", verb, num)
		}
		switch {
		case string(verb) == "drop":
			return c.s.Drop(hold)
		case string(verb) == "release":
			return c.s.Release(hold, nil)
		case len(edited) == 0:
			return errors.New("edit wants the frame after the number")
		}
		return c.s.Release(hold, append(bytes.Clone(edited), '\n'))
	}
	return fmt.Errorf("unknown request %q (arm, release, edit, drop)", verb)
}

// close stops serving and removes the socket.
func (c *tapControl) close() {
	if c == nil {
		return
	}
	c.ln.Close()
	c.wg.Wait()
	os.Remove(c.path)
}

var errLineTooLong = errors.New("line too long")

// readBoundedLine reads one line (without its end) of at most limit
// bytes; a longer one is errLineTooLong.
func readBoundedLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit+2 { // the line and its CR LF
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			if len(line) > limit {
				return nil, errLineTooLong
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return nil, err
	}
}
