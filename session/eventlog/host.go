package eventlog

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"linesman/wire"
)

// The host rules judge the client side of a conversation (a host under a
// tap, the host that wrote a recorded log; linesman itself in check, send
// and the inspector, which must never break them): the era probe and its
// fallback, cancelling initialize, re-initialising a restarted server, the
// shutdown sequence. Their codes hold the host at fault (wire.PartyHost).
// They run inside the fold with the protocol rules, and like them not at
// all with TrackerOptions.NoProtocolRules.

// probeOutcome is what the server's answer to the host's last
// server/discover said of the server's era.
type probeOutcome uint8

const (
	probeNone   probeOutcome = iota // no answer to a server/discover yet
	probeModern                     // a DiscoverResult with a modern version, or -32022
	probeLegacy                     // any other error, or a result without a modern version
)

// hostBook is the host rules' state (kept in the tracker's rules).
type hostBook struct {
	// probe is the outcome of the host's last server/discover of this
	// process, unless the client had pinned the era itself (linesman's
	// --era: its choice, not a probe's); initSince: an initialize was
	// sent after it; fallbackRaised: a fallback finding was raised.
	probe          probeOutcome
	initSince      bool
	fallbackRaised bool
	// initID is the id of the host's initialize request (initKnown).
	initID    wire.ID
	initKnown bool
	// afterRestart: a restart happened and the host has sent no request
	// to the new process yet.
	afterRestart bool
}

// hostRestarted starts the host rules over for a fresh process, which the
// host must initialise (or probe) again.
func (t *Tracker) hostRestarted() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rules != nil {
		t.rules.host = hostBook{afterRestart: true}
	}
}

// hostFrame judges a frame by the host rules, after the protocol rules
// (under the tracker's lock: judge calls it).
func (t *Tracker) hostFrame(j *Judged) {
	if t.rules == nil {
		return
	}
	h, f := &t.rules.host, j.Frame
	switch {
	case j.Dir == wire.ServerToClient && j.Request != nil && j.Request.Method == "server/discover" &&
		(f.Msg.Kind == wire.KindResult || f.Msg.Kind == wire.KindError):
		h.learnProbe(f, t.hs.EraPinned)
	case j.Dir == wire.ClientToServer && f.Msg.Kind == wire.KindRequest:
		h.request(f)
	case j.Dir == wire.ClientToServer && f.Msg.Kind == wire.KindNotification && f.Msg.Method == "notifications/cancelled":
		if h.initKnown && f.Msg.RequestID() == h.initID {
			addFinding(f, wire.NewFinding("host-cancel-initialize", fmt.Sprintf(
				"the host cancelled its initialize request (id %s); a client must not cancel initialize", idText(h.initID))))
		}
	}
}

// learnProbe reads the era off the server's answer to the host's probe.
func (h *hostBook) learnProbe(f *wire.Frame, pinned bool) {
	if pinned {
		h.probe = probeNone
		return
	}
	h.probe, h.initSince = probeLegacy, false
	if era, _, _ := DecideEra(f); era == EraModern {
		h.probe = probeModern
	}
}

// request judges one of the host's requests: the fallback its probe
// called for, and the first request to a restarted process.
func (h *hostBook) request(f *wire.Frame) {
	m := &f.Msg
	if h.afterRestart {
		h.afterRestart = false
		notReinitialized(f)
	}
	switch {
	case m.Method == "initialize":
		h.initID, h.initKnown = m.ID, true
		if h.probe == probeModern && !h.fallbackRaised {
			h.fallbackRaised = true
			addFinding(f, wire.NewFinding("host-fallback-needless",
				"the host sent initialize after its server/discover probe showed a 2026-07-28 server (a DiscoverResult with a modern version, or -32022): it should speak a version the server listed"))
		}
		h.initSince = true
	case m.Method == "server/discover":
	case h.probe == probeLegacy && !h.initSince && !h.fallbackRaised && carriesModernMeta(f):
		h.fallbackRaised = true
		addFinding(f, wire.NewFinding("host-fallback-missing", fmt.Sprintf(
			"the host sent %s with the 2026-07-28 _meta after its server/discover probe failed with a non-modern error (a legacy server), without falling back to initialize",
			withArticle(m.Method))))
	}
}

// notReinitialized names, on the host's first request to a restarted
// process, the protocol rules' initialize-not-first for what it is: the
// host did not initialise the new process.
func notReinitialized(f *wire.Frame) {
	for i := range f.Findings {
		if fd := &f.Findings[i]; fd.Code == "initialize-not-first" {
			*fd = wire.NewFinding("host-restart-not-reinitialized", fmt.Sprintf(
				"the server restarted and the host's first request to the new process is %s, not initialize: the new process was never initialized", f.Msg.Method))
		}
	}
}

// carriesModernMeta reports whether a request carries the 2026-07-28
// request _meta (its protocol version key).
func carriesModernMeta(f *wire.Frame) bool {
	raw := f.Raw()
	if len(f.Lines) == 1 {
		raw = f.Lines[0].Content
	}
	return bytes.Contains(raw, []byte(`"`+MetaProtocolVersion+`"`))
}

// hostShutdown judges a shutdown step the host took (a signal it sent
// through the tap), before the step is folded: a signal while the
// server's stdin is still open, a SIGKILL with no SIGTERM before it. The
// findings point at the process, not a frame. Called under t.mu.
func (t *Tracker) hostShutdown(ev *ProcessEvent, at time.Duration) []LoggedFinding {
	if t.rules == nil || ev.State != StateExiting || !ev.ByHost || t.proc.Exited() {
		return nil
	}
	sig := ev.Signal
	if sig == "" {
		sig = strings.ToUpper(ev.Step.String())
	}
	when := at.Round(time.Millisecond)
	var out []LoggedFinding
	if t.stdinClosedAt == 0 && !ev.AfterEOF { // AfterEOF: the host closed stdin first, logged or not yet
		out = append(out, LoggedFinding{Finding: wire.NewFinding("host-signal-before-close", fmt.Sprintf(
			"the host sent %s at %s with the server's stdin still open: it should close stdin first and wait for the server to exit", sig, when))})
	}
	out = append(out, t.serverOutlived(ev, sig, at)...)
	if ev.Step == StepSIGKILL && !t.proc.tookStep(StepSIGTERM) {
		out = append(out, LoggedFinding{Finding: wire.NewFinding("host-kill-first", fmt.Sprintf(
			"the host sent SIGKILL at %s with no SIGTERM before it: the server had no chance to clean up", when))})
	}
	return out
}

// hostPatience is how long a host must have waited after a shutdown step
// for the server still running at the next to be held to it: about as long
// as linesman's own ladder waits (2 s, session.DefaultLadderWait; the
// TypeScript SDK's client waits 2 s too, the go-sdk's 5 s), less what the
// step takes to reach the tap and be logged. A host that signals sooner
// gave the server no reasonable time.
const hostPatience = 1500 * time.Millisecond

// serverOutlived judges the server's side of the host's shutdown, as
// linesman's own ladder judges it: still running when the host signals it
// a reasonable time after closing its stdin, it ignored the close
// (ignored-stdin-eof); still running when the host sends SIGKILL that long
// after its SIGTERM, it needed SIGKILL (needed-sigkill). The findings are
// the server's. Called under t.mu, before the step is folded.
func (t *Tracker) serverOutlived(ev *ProcessEvent, sig string, at time.Duration) []LoggedFinding {
	termed, termAt := false, time.Duration(0)
	for _, st := range t.proc.Steps {
		if st.Step == StepSIGTERM && !termed {
			termed, termAt = true, st.At
		}
	}
	switch {
	case !termed && !t.proc.tookStep(StepSIGKILL) && t.stdinClosedAt != 0 && at-t.stdinClosedAt >= hostPatience:
		return []LoggedFinding{{Finding: wire.NewFinding("ignored-stdin-eof", fmt.Sprintf(
			"the server was still running %s after the host closed its stdin; the host sent %s", (at-t.stdinClosedAt).Round(time.Millisecond), sig))}}
	case termed && ev.Step == StepSIGKILL && !t.proc.tookStep(StepSIGKILL) && at-termAt >= hostPatience:
		return []LoggedFinding{{Finding: wire.NewFinding("needed-sigkill", fmt.Sprintf(
			"the server was still running %s after the host's SIGTERM; the host sent SIGKILL", (at-termAt).Round(time.Millisecond)))}}
	}
	return nil
}

// tookStep reports whether the process took shutdown step s already.
func (p *ProcessStatus) tookStep(s ShutdownStep) bool {
	for _, st := range p.Steps {
		if st.Step == s {
			return true
		}
	}
	return false
}
