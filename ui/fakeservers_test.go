package ui

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"linesman/demo"
	"linesman/session"
	"linesman/session/fakeserver"
	"linesman/wire"
)

// servers are the real child servers the UI's tests drive (see package
// fakeserver): the test binary re-run plays the one named.
var servers = fakeserver.Registry{
	// demo is the built-in demo server, as linesman demo-server runs it.
	"demo": func() { os.Exit(demo.Run(nil, os.Stdin, os.Stdout, os.Stderr)) },
}

func TestMain(m *testing.M) { os.Exit(servers.Run(m)) }

// failingHandshake is a live server whose handshake after a restart fails
// the way the session's does when the new process dies at once.
type failingHandshake struct{ *fakeServer }

func (failingHandshake) Handshake(context.Context) error {
	return fmt.Errorf("%w: server/discover: %w", session.ErrHandshake, fmt.Errorf("%w (id 2)", session.ErrNoAnswer))
}

// fakeServer stands in for a live session: it records what the UI asks for
// and logs sent bytes as client frames, as the session does.
type fakeServer struct {
	mu        sync.Mutex
	f         *fixture
	sent      [][]byte
	shutdowns int
	kills     int
	restarts  int
	done      chan struct{}
}

func newFakeServer(f *fixture) *fakeServer { return &fakeServer{f: f, done: make(chan struct{})} }

func (s *fakeServer) Send(raw []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, append([]byte(nil), raw...))
	s.f.frames(wire.ClientToServer, string(raw))
	return nil
}

func (s *fakeServer) Shutdown() { s.mu.Lock(); s.shutdowns++; s.mu.Unlock() }

func (s *fakeServer) Kill() { s.mu.Lock(); s.kills++; s.mu.Unlock() }

// Restart replaces the process: a fresh Done channel, as the session does.
func (s *fakeServer) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restarts++
	s.done = make(chan struct{})
	return nil
}

func (s *fakeServer) Done() <-chan struct{} { s.mu.Lock(); defer s.mu.Unlock(); return s.done }

func (s *fakeServer) lastSent() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sent) == 0 {
		return ""
	}
	return string(s.sent[len(s.sent)-1])
}
