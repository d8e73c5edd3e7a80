package fault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// Target is what an injector acts on besides the wire: where it logs a
// fault, and the server it can kill or cut off. The tap gives it its
// session's.
type Target struct {
	Record      func(eventlog.Event) // logs (and folds) an event
	Signal      func(syscall.Signal)
	CloseStdout func()
}

// Injector applies specs to one conversation. Its Host method is fed the
// host's bytes (from one goroutine), its Write the server's stdout (from
// another); it is safe for that.
type Injector struct {
	specs []Spec
	out   io.Writer // the host's side of the server's stdout

	mu     sync.Mutex
	target Target
	asked  map[string]request // request id (as JSON) -> what it asked
	counts []int              // requests each spec matched
	hostIn []byte             // a host line not yet complete
	srvIn  []byte             // a server line not yet complete
	outMu  sync.Mutex
}

type request struct {
	method string
	id     wire.ID
	spec   int // the answer fault aimed at it, or -1
}

// New returns an injector that passes the server's stdout on to out.
func New(specs []Spec, out io.Writer) *Injector {
	return &Injector{specs: specs, out: out, asked: map[string]request{}, counts: make([]int, len(specs))}
}

// SetTarget tells the injector where to log and what to act on; until it
// is set, faults are injected but not logged.
func (in *Injector) SetTarget(t Target) {
	in.mu.Lock()
	in.target = t
	in.mu.Unlock()
}

// Host reads bytes the host writes to the server, before they are passed
// on: it learns what each request asks (so that its answer, however fast,
// meets its fault), and kills the server or closes its stdout when a spec
// says so, before the server reads the request.
func (in *Injector) Host(b []byte) {
	in.mu.Lock()
	in.hostIn = append(in.hostIn, b...)
	var acts []func()
	for {
		i := bytes.IndexByte(in.hostIn, '\n')
		if i < 0 {
			break
		}
		acts = append(acts, in.hostLine(in.hostIn[:i])...)
		in.hostIn = in.hostIn[i+1:]
	}
	in.hostIn = bytes.Clone(in.hostIn)
	in.mu.Unlock()
	for _, act := range acts {
		act()
	}
}

// hostLine notes one request of the host's; it returns the kills and
// closes to do, once the lock is let go.
func (in *Injector) hostLine(line []byte) (acts []func()) {
	m, _ := wire.Classify(bytes.TrimRight(line, "\r"))
	if m.Kind != wire.KindRequest {
		return nil
	}
	name := requestName(line)
	r := request{method: m.Method, id: m.ID, spec: -1}
	for i := range in.specs {
		sp := &in.specs[i]
		if !sp.targets(m.Method, name) {
			continue
		}
		in.counts[i]++
		n := in.counts[i]
		switch {
		case sp.onRequest() && n == max(sp.Nth, 1):
			acts = append(acts, in.endServer(sp, m))
		case !sp.onRequest() && r.spec < 0 && (sp.Nth == 0 || n == sp.Nth):
			r.spec = i
		}
	}
	in.asked[m.ID.String()] = r
	return acts
}

// endServer returns the kill or close sp asks for, logged first.
func (in *Injector) endServer(sp *Spec, m wire.Message) func() {
	t := in.target
	return func() {
		if sp.Kind == eventlog.FaultKill {
			in.log(t, sp, m.Method, wire.ID{}, fmt.Sprintf("injected: %s sent to the server as %s (id %s) passed", signalName(sp.Signal), m.Method, m.ID))
			if t.Signal != nil {
				t.Signal(sp.Signal)
			}
			return
		}
		in.log(t, sp, m.Method, wire.ID{}, fmt.Sprintf("injected: the server's stdout closed as %s (id %s) passed", m.Method, m.ID))
		if t.CloseStdout != nil {
			t.CloseStdout()
		}
	}
}

func (in *Injector) log(t Target, sp *Spec, method string, id wire.ID, note string) {
	if t.Record == nil {
		return
	}
	t.Record(eventlog.Event{Type: eventlog.EventFault, Note: note,
		Fault: &eventlog.FaultEvent{Kind: sp.Kind, Spec: sp.Raw, Method: method, ID: id}})
}

// Write passes the server's stdout on to the host, whole lines at a time,
// changing the answers a spec aims at. It never fails for a fault: a
// dropped answer still counts as written.
func (in *Injector) Write(b []byte) (int, error) {
	in.mu.Lock()
	in.srvIn = append(in.srvIn, b...)
	var lines [][]byte
	for {
		i := bytes.IndexByte(in.srvIn, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, in.srvIn[:i+1])
		in.srvIn = in.srvIn[i+1:]
	}
	in.srvIn = bytes.Clone(in.srvIn)
	in.mu.Unlock()
	for _, l := range lines {
		if err := in.serverLine(l); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// serverLine passes one line of the server's on, as its fault says.
func (in *Injector) serverLine(line []byte) error {
	m, _ := wire.Classify(bytes.TrimRight(line, "\r\n"))
	in.mu.Lock()
	r, ok := in.asked[m.ID.String()]
	t := in.target
	in.mu.Unlock()
	if (m.Kind != wire.KindResult && m.Kind != wire.KindError) || !ok || r.spec < 0 {
		return in.emit(line)
	}
	sp := &in.specs[r.spec]
	what := fmt.Sprintf("the answer to %s (id %s)", r.method, m.ID)
	switch sp.Kind {
	case eventlog.FaultDelay:
		in.log(t, sp, r.method, m.ID, fmt.Sprintf("injected: %s held back %s", what, sp.Delay))
		held := bytes.Clone(line)
		time.AfterFunc(sp.Delay, func() { in.emit(held) })
		return nil
	case eventlog.FaultDrop:
		in.log(t, sp, r.method, m.ID, "injected: "+what+" dropped")
		return nil
	case eventlog.FaultError:
		in.log(t, sp, r.method, m.ID, fmt.Sprintf("injected: %s replaced by error %d", what, sp.Code))
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.IDRaw),
			"error": map[string]any{"code": sp.Code, "message": sp.Message}})
		return in.emit(append(b, '\n'))
	case eventlog.FaultTruncate:
		in.log(t, sp, r.method, m.ID, "injected: "+what+" cut mid-line")
		return in.emit(append(bytes.Clone(line[:len(line)/2]), '\n'))
	case eventlog.FaultCorrupt:
		in.log(t, sp, r.method, m.ID, "injected: invalid UTF-8 put into "+what)
		return in.emit(corrupt(line))
	case eventlog.FaultStray:
		in.log(t, sp, r.method, m.ID, "injected: a stray stdout line before "+what)
		if err := in.emit([]byte("linesman: an injected stray line\n")); err != nil {
			return err
		}
	}
	return in.emit(line)
}

func (in *Injector) emit(b []byte) error {
	in.outMu.Lock()
	defer in.outMu.Unlock()
	_, err := in.out.Write(b)
	return err
}

// corrupt puts two bytes that are never UTF-8 into the first string of
// the line, after its opening quote.
func corrupt(line []byte) []byte {
	i := bytes.IndexByte(line, '"')
	out := make([]byte, 0, len(line)+2)
	out = append(out, line[:i+1]...)
	out = append(out, 0xff, 0xfe)
	return append(out, line[i+1:]...)
}

// requestName is what a request names: a tool's or prompt's name, a
// resource's uri.
func requestName(line []byte) string {
	var r struct {
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	json.Unmarshal(line, &r)
	if r.Params.Name != "" {
		return r.Params.Name
	}
	return r.Params.URI
}

func signalName(sig syscall.Signal) string {
	if n := unixSignalName(sig); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}
