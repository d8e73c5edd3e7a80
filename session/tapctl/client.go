package tapctl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Client is the client of a tap's controller socket: a
// ui.Controller for view --follow.
type Client struct {
	mu   sync.Mutex
	conn *os.File
	r    *bufio.Reader
}

// controlTimeout bounds one request to the tap.
const controlTimeout = 5 * time.Second

// Dial connects to the controller socket of the tap whose
// capture is at capturePath; it fails when the tap was not started with
// --intercept (no socket) or has ended.
func Dial(capturePath string) (*Client, error) {
	conn, err := dialUnix(SocketPath(capturePath))
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, r: bufio.NewReader(conn)}, nil
}

func (c *Client) call(line string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetDeadline(time.Now().Add(controlTimeout))
	if _, err := io.WriteString(c.conn, line+"\n"); err != nil {
		return fmt.Errorf("the tap's controller: %w", err)
	}
	answer, err := readBoundedLine(c.r, 64<<10)
	switch {
	case err != nil:
		return fmt.Errorf("the tap's controller: %w", err)
	case string(answer) == "ok":
		return nil
	}
	return errors.New(strings.TrimPrefix(string(answer), "error "))
}

func (c *Client) Arm(filter string) error { return c.call("arm " + filter) }

func (c *Client) Release(hold uint64, edited []byte) error {
	if edited == nil {
		return c.call(fmt.Sprintf("release %d", hold))
	}
	one := bytes.TrimSuffix(bytes.TrimSuffix(edited, []byte("\n")), []byte("\r"))
	if bytes.ContainsAny(one, "\r\n") {
		return errors.New("an edit sent to a tap must be one line (the frame compact)")
	}
	return c.call(fmt.Sprintf("edit %d %s", hold, one))
}

func (c *Client) Drop(hold uint64) error { return c.call(fmt.Sprintf("drop %d", hold)) }

func (c *Client) Close() error { return c.conn.Close() }
