package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// serveAsksRoots behaves like @modelcontextprotocol/server-everything over
// stdio: when the client declared the roots capability, it asks roots/list
// 350 ms after notifications/initialized (a timer, which like node's keeps
// the process alive until it fires), and it exits only once that request is
// answered — an unanswered request keeps it alive past stdin's EOF. A client
// that did not declare roots is never asked, and the server exits at EOF
// (once its timer has fired, as node does).
func serveAsksRoots() {
	s := newFake("asks-roots")
	var (
		mu       sync.Mutex
		declared bool
		answered = make(chan struct{})
		fired    = make(chan struct{})
	)
	s.on = func(s *fakeMCP, m fakeMsg) bool {
		switch {
		case m.Method == "initialize":
			var p struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			json.Unmarshal(m.Params, &p)
			_, ok := p.Capabilities["roots"]
			mu.Lock()
			declared = ok
			mu.Unlock()
			return false
		case m.Method == "" && string(m.ID) == `"everything-roots"`:
			close(answered)
			return true
		}
		return false
	}
	s.afterInit = func(s *fakeMCP) {
		time.AfterFunc(350*time.Millisecond, func() {
			mu.Lock()
			asks := declared
			mu.Unlock()
			if asks {
				s.send(map[string]any{"jsonrpc": "2.0", "id": "everything-roots", "method": "roots/list"})
			} else {
				close(answered)
			}
			close(fired)
		})
	}
	s.atEOF = func(*fakeMCP) {
		<-fired
		<-answered
	}
	s.serve()
}

// A server that asks roots/list some time after initialized (as the most
// used reference server does) ends on its own when a headless run closes its
// stdin: no ignored-stdin-eof, no SIGTERM, no finding of linesman's making.
// Before headless modes stopped declaring roots, every run said
// ignored-stdin-eof and waited out --stdin-wait.
func TestHeadlessServerAskingRootsAfterInitializedEndsOnItsOwn(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"check", "send"} {
		t.Run(mode, func(t *testing.T) {
			var r jReport
			var status int
			if mode == "check" {
				r, status = checkJSON(t, "headless-asks-roots", "--stdin-wait", "10s")
			} else {
				r, status = sendJSON(t, "headless-asks-roots", `{"jsonrpc":"2.0","method":"tools/list"}`+"\n", "--stdin-wait", "10s")
			}
			var codes []string
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			if status != 0 || len(codes) != 0 {
				t.Errorf("status %d, findings %q; want 0 and none", status, codes)
			}
			if r.Process.EndedBy == nil || *r.Process.EndedBy != "stdin-close" || r.Process.ExitCode == nil || *r.Process.ExitCode != 0 {
				t.Errorf("the server did not exit on its own with 0: endedBy %s, exit %v", deref(r.Process.EndedBy), r.Process.ExitCode)
			}
			for _, f := range r.Frames {
				if f.Method != nil && strings.HasPrefix(*f.Method, "roots/") {
					t.Errorf("frame %d %s: a headless run declared roots", f.Seq, *f.Method)
				}
			}
		})
	}
}
