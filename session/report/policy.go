package report

import (
	"fmt"
	"path"
	"slices"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// A Policy is what a check was told to require of the server beyond the
// specification (check's --expect-tool, --forbid-tool, --max-duration and
// --max-latency). Each violation is a finding of the policy family
// (expected-tool-missing, forbidden-tool-present, run-over-max-duration,
// request-over-max-latency), logged with the session's other findings by
// [Policy.Enforce], so it reaches every report and the exit status through
// --fail-on like any other.
type Policy struct {
	ExpectTools []string // tools the server must list, by name
	ForbidTools []string // globs (path.Match) no listed tool may match
	MaxDuration time.Duration
	MaxLatency  time.Duration
}

// Validate refuses globs path.Match cannot read and negative limits.
func (p *Policy) Validate() error {
	for _, g := range p.ForbidTools {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--forbid-tool %q: %v (path.Match syntax: *, ?, [a-z], \\ to escape)", g, err)
		}
	}
	if p.MaxDuration < 0 {
		return fmt.Errorf("--max-duration %s: want a positive duration such as 30s, or 0 for no limit", p.MaxDuration)
	}
	if p.MaxLatency < 0 {
		return fmt.Errorf("--max-latency %s: want a positive duration such as 2s, or 0 for no limit", p.MaxLatency)
	}
	return nil
}

// Active reports whether any policy was given.
func (p *Policy) Active() bool {
	return len(p.ExpectTools) > 0 || len(p.ForbidTools) > 0 || p.MaxDuration > 0 || p.MaxLatency > 0
}

// Enforce logs a finding for each violation of the policy in a finished
// session that took took from start to exit.
func (p *Policy) Enforce(log *eventlog.Log, tr *eventlog.Tracker, took time.Duration) {
	for _, f := range p.Findings(tr, took) {
		log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &f})
	}
}

// Findings are the policy's violations in a finished session.
func (p *Policy) Findings(tr *eventlog.Tracker, took time.Duration) []eventlog.LoggedFinding {
	var out []eventlog.LoggedFinding
	add := func(code string, seq uint64, dir wire.Dir, format string, a ...any) {
		out = append(out, eventlog.LoggedFinding{Finding: wire.NewFinding(code, fmt.Sprintf(format, a...)), FrameSeq: seq, Dir: dir})
	}
	if p.MaxDuration > 0 && took > p.MaxDuration {
		add("run-over-max-duration", 0, 0, "the run took %s, over --max-duration %s", took.Round(time.Millisecond), p.MaxDuration)
	}
	if p.MaxLatency > 0 {
		for _, q := range tr.Requests() {
			if q.Dir != wire.ClientToServer || q.State == eventlog.ReqInFlight || q.EndedAt-q.SentAt <= p.MaxLatency {
				continue
			}
			add("request-over-max-latency", q.Seq, wire.ClientToServer, "%s (id %s) took %s (%s), over --max-latency %s",
				q.Method, q.ID, (q.EndedAt - q.SentAt).Round(time.Millisecond), q.State, p.MaxLatency)
		}
	}
	if len(p.ExpectTools) == 0 && len(p.ForbidTools) == 0 || tr.Handshake().Era == eventlog.EraUnknown {
		return out // no tool policy, or no handshake: nothing was listed to judge
	}
	defs := DefinitionsOf(tr)
	listed := slices.Contains(defs.Listed, "tools")
	for _, name := range p.ExpectTools {
		if slices.Contains(defs.ToolNames(), name) {
			continue
		}
		if listed {
			add("expected-tool-missing", 0, 0, "no tool named %q among the %d listed", name, len(defs.Tools))
		} else {
			add("expected-tool-missing", 0, 0, "no tool named %q: the server listed no tools (no tools capability, or tools/list failed)", name)
		}
	}
	for _, t := range defs.Tools {
		for _, g := range p.ForbidTools {
			if ok, _ := path.Match(g, t.Name); ok {
				add("forbidden-tool-present", t.Seq(), wire.ServerToClient, "tool %q matches --forbid-tool %q", t.Name, g)
				break
			}
		}
	}
	return out
}
