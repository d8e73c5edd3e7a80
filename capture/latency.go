package capture

import (
	"bufio"
	"encoding/json"
	"io"
	"time"

	"linesman/session/eventlog"
)

// latencyLine is one line of `export --format latency`: a statistic
// ("method" or "tool") or one logical call ("call") with its rounds and
// polls listed under it.
type latencyLine struct {
	Kind     string   `json:"kind"`
	Method   string   `json:"method"`
	Tool     string   `json:"tool,omitempty"`
	Count    int      `json:"count,omitempty"`
	Requests int      `json:"requests,omitempty"`
	P50Ms    *float64 `json:"p50Ms,omitempty"`
	P95Ms    *float64 `json:"p95Ms,omitempty"`
	P99Ms    *float64 `json:"p99Ms,omitempty"`
	MaxMs    *float64 `json:"maxMs,omitempty"`

	Seq      uint64       `json:"seq,omitempty"`
	Era      string       `json:"era,omitempty"`
	State    string       `json:"state,omitempty"`
	Ms       *float64     `json:"ms,omitempty"`
	Progress int          `json:"progress,omitempty"`
	Rounds   []latencyReq `json:"rounds,omitempty"`
	Polls    []latencyReq `json:"polls,omitempty"`
}

// latencyReq is one request of a call.
type latencyReq struct {
	Seq        uint64   `json:"seq"`
	ID         string   `json:"id"`
	Method     string   `json:"method,omitempty"`
	State      string   `json:"state"`
	Ms         *float64 `json:"ms"`
	ResultType string   `json:"resultType,omitempty"`
	ErrorCode  int64    `json:"errorCode,omitempty"`
}

// WriteLatency writes the latency of the log's calls as JSON Lines: one
// line per method, then one per tool (count, p50, p95, p99 and max in
// milliseconds, from [eventlog.Latency]), then one per logical call of
// the client ([eventlog.Tracker.Calls]) with its rounds and polls.
func WriteLatency(w io.Writer, tr *eventlog.Tracker) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	calls := tr.Calls()
	byMethod, byTool := eventlog.Latency(calls)
	for _, blk := range []struct {
		kind  string
		stats []eventlog.LatencyStat
	}{{"method", byMethod}, {"tool", byTool}} {
		for _, s := range blk.stats {
			l := latencyLine{Kind: blk.kind, Method: s.Method, Tool: s.Tool, Count: s.Count, Requests: s.Requests,
				P50Ms: msOf(s.P50), P95Ms: msOf(s.P95), P99Ms: msOf(s.P99), MaxMs: msOf(s.Max)}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
	}
	for _, c := range calls {
		if err := enc.Encode(callLine(c)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// callLine is the line of one call.
func callLine(c eventlog.Call) latencyLine {
	l := latencyLine{Kind: "call", Method: c.Method, Tool: c.Tool(), Seq: c.Seq, Era: c.Era.String(),
		State: c.Outcome().State.String(), Progress: c.Progress}
	if d, ok := c.Duration(); ok {
		l.Ms = msOf(d)
	}
	for _, q := range c.Rounds {
		l.Rounds = append(l.Rounds, reqOf(q, false))
	}
	for _, q := range c.Polls {
		l.Polls = append(l.Polls, reqOf(q, true))
	}
	return l
}

func reqOf(q eventlog.Request, poll bool) latencyReq {
	r := latencyReq{Seq: q.Seq, ID: q.ID.String(), State: q.State.String(), ResultType: q.ResultType, ErrorCode: q.ErrorCode}
	if poll {
		r.Method = q.Method
	}
	if q.State != eventlog.ReqInFlight && q.EndedAt >= q.SentAt {
		r.Ms = msOf(q.EndedAt - q.SentAt)
	}
	return r
}

func msOf(d time.Duration) *float64 {
	v := float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
	return &v
}
