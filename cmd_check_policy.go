package main

import (
	"flag"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"linesman/session/eventlog"
	"linesman/session/report"
	"linesman/wire"
)

// policyFlags are the policy of check: what the run was told to require of
// the server beyond the specification. Each violation is a finding of the
// policy family (registry: expected-tool-missing, forbidden-tool-present,
// run-over-max-duration, request-over-max-latency), logged with the
// session's other findings, so it reaches every report and the exit status
// through --fail-on like any other.
type policyFlags struct {
	expectTools listFlag
	forbidTools listFlag
	maxDuration time.Duration
	maxLatency  time.Duration
}

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("want a non-empty value")
	}
	*l = append(*l, v)
	return nil
}

// register adds the policy flags to fs.
func (p *policyFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.expectTools, "expect-tool", "policy: the server must list a tool named `NAME` (repeatable); missing is an expected-tool-missing error")
	fs.Var(&p.forbidTools, "forbid-tool", "policy: no listed tool may match `GLOB` (path.Match syntax: *, ?, [a-z]; repeatable); a match is a forbidden-tool-present error")
	durationVar(fs, &p.maxDuration, "max-duration", 0, "policy: the whole run (start to exit) must take at most this long, else run-over-max-duration (0: no limit)")
	durationVar(fs, &p.maxLatency, "max-latency", 0, "policy: each request must be answered within this, else request-over-max-latency (0: no limit)")
}

// validate refuses globs path.Match cannot read and negative limits.
func (p *policyFlags) validate() error {
	for _, g := range p.forbidTools {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--forbid-tool %q: %v (path.Match syntax: *, ?, [a-z], \\ to escape)", g, err)
		}
	}
	if p.maxDuration < 0 {
		return fmt.Errorf("--max-duration %s: want a positive duration such as 30s, or 0 for no limit", p.maxDuration)
	}
	if p.maxLatency < 0 {
		return fmt.Errorf("--max-latency %s: want a positive duration such as 2s, or 0 for no limit", p.maxLatency)
	}
	return nil
}

// active reports whether any policy was given.
func (p *policyFlags) active() bool {
	return len(p.expectTools) > 0 || len(p.forbidTools) > 0 || p.maxDuration > 0 || p.maxLatency > 0
}

// judge logs a finding for each violation of the policy in a finished
// session that took took from start to exit.
func (p *policyFlags) judge(log *eventlog.Log, tr *eventlog.Tracker, took time.Duration) {
	for _, f := range p.findings(log, tr, took) {
		log.Append(eventlog.Event{Type: eventlog.EventFinding, Finding: &f})
	}
}

// findings are the policy's violations in a finished session.
func (p *policyFlags) findings(log *eventlog.Log, tr *eventlog.Tracker, took time.Duration) []eventlog.LoggedFinding {
	var out []eventlog.LoggedFinding
	add := func(code string, seq uint64, dir wire.Dir, format string, a ...any) {
		out = append(out, eventlog.LoggedFinding{Finding: wire.NewFinding(code, fmt.Sprintf(format, a...)), FrameSeq: seq, Dir: dir})
	}
	if p.maxDuration > 0 && took > p.maxDuration {
		add("run-over-max-duration", 0, 0, "the run took %s, over --max-duration %s", took.Round(time.Millisecond), p.maxDuration)
	}
	if p.maxLatency > 0 {
		for _, q := range tr.Requests() {
			if q.Dir != wire.ClientToServer || q.State == eventlog.ReqInFlight || q.EndedAt-q.SentAt <= p.maxLatency {
				continue
			}
			add("request-over-max-latency", q.Seq, wire.ClientToServer, "%s (id %s) took %s (%s), over --max-latency %s",
				q.Method, q.ID, (q.EndedAt - q.SentAt).Round(time.Millisecond), q.State, p.maxLatency)
		}
	}
	if len(p.expectTools) == 0 && len(p.forbidTools) == 0 || tr.Handshake().Era == eventlog.EraUnknown {
		return out // no tool policy, or no handshake: nothing was listed to judge
	}
	defs := report.DefinitionsOf(tr)
	listed := slices.Contains(defs.Listed, "tools")
	for _, name := range p.expectTools {
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
		for _, g := range p.forbidTools {
			if ok, _ := path.Match(g, t.Name); ok {
				add("forbidden-tool-present", t.Seq(), wire.ServerToClient, "tool %q matches --forbid-tool %q", t.Name, g)
				break
			}
		}
	}
	return out
}
