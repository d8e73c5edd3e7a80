package report

import (
	"encoding/json"

	"linesman/wire"
)

// The blocks of the JSON report beside its header (see [Report]): each type
// is one member's shape, documented with its JSON name.

// Process is the "process" block: how the server process ran and ended.
type Process struct {
	Pid int `json:"pid"`
	// State is "starting", "running", "exiting" or "exited".
	State string `json:"state"`
	// ExitCode is null when a signal ended the process or it has not exited.
	ExitCode *int `json:"exitCode"`
	// Signal names the signal that ended it ("SIGKILL"), or null.
	Signal *string `json:"signal"`
	// EndedBy is "exit" (it exited on its own), "stdin-close", "sigterm" or
	// "sigkill": the shutdown step that ended it; null while it runs.
	EndedBy *string `json:"endedBy"`
	// ShutdownMs is the time from the first shutdown step to the exit.
	ShutdownMs float64 `json:"shutdownMs"`
	// AfterEOF: it exited after its stdin was closed (the end of its
	// input, not a crash); EndedByHost: the host linesman stood between
	// (a tap's) closed its stdin or sent the signal that ended it. Both
	// are left out when false.
	AfterEOF    bool `json:"afterEOF,omitempty"`
	EndedByHost bool `json:"endedByHost,omitempty"`
	// Restarts counts the times the server was restarted within the log;
	// the other fields describe the last process.
	Restarts int `json:"restarts"`
}

// Frame is one logical frame of the "frames" list.
type Frame struct {
	Seq    uint64          `json:"seq"`
	Time   string          `json:"time"`
	Dir    string          `json:"dir"`
	Kind   string          `json:"kind"`
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Bytes  int64           `json:"bytes"`
	Lines  int             `json:"lines"`
	// Findings are the codes raised on the frame, then the codes of later
	// findings that point at it (a timeout, unflushed output).
	Findings []string `json:"findings"`
	// Text is the frame's bytes as text (invalid UTF-8 replaced), present
	// only when Meta.FrameText asks for it (send does).
	Text          *string `json:"text,omitempty"`
	TextTruncated bool    `json:"textTruncated,omitempty"`
	// InReplyTo names, on a response, the request it answered (as the
	// tracker matched them), since a response carries no method.
	InReplyTo *ReplyTo `json:"inReplyTo,omitempty"`

	frame *wire.Frame // for the text report's excerpts (log events are immutable)
	wrote wire.Dir    // Dir as the log has it
}

// ReplyTo points from a response frame to the request it answered.
type ReplyTo struct {
	Seq    uint64 `json:"seq"`
	Method string `json:"method"`
}

// Request is one request of the "requests" list.
type Request struct {
	Dir    string          `json:"dir"`
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	State  string          `json:"state"`
	// Ms is how long the request took to end (answer, error, timeout, loss);
	// null while it is still in flight.
	Ms          *float64 `json:"ms"`
	Seq         uint64   `json:"seq"`
	ResponseSeq *uint64  `json:"responseSeq"`
	Late        bool     `json:"late,omitempty"`
	// Tool is the tool a tools/call calls; Call, on a later round of a
	// multi-round request or a poll of a task, the seq of its call's
	// first request.
	Tool string  `json:"tool,omitempty"`
	Call *uint64 `json:"call,omitempty"`
}

// Finding is one entry of the "findings" list.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	// Seq is the frame the finding points at, or null for findings that
	// belong to no frame (process and stderr findings).
	Seq *uint64 `json:"seq"`
	Dir *string `json:"dir"`
	// Party is who the finding holds at fault: "server" or "host" (the
	// client side: a tap's host, the host of a recording, or linesman).
	Party   string `json:"party"`
	Message string `json:"message"`
	Title   string `json:"title,omitempty"`
	Fix     string `json:"fix,omitempty"`
}

// Host is the "host" block: the listed findings that hold the host at
// fault, by severity, and their codes (each once, in order).
type Host struct {
	Errors   int      `json:"errors"`
	Warnings int      `json:"warnings"`
	Notes    int      `json:"notes"`
	Codes    []string `json:"codes"`
}

// Summary counts the session's findings by severity, and its frames: all of
// them, listed or dropped by the retention budget.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Notes    int `json:"notes"`
	Frames   int `json:"frames"`
}

// Totals is the "totals" block: exact counts of the whole session, kept
// outside the retention budget ([eventlog.Log.Totals]).
type Totals struct {
	Frames      ByDir          `json:"frames"`
	Bytes       ByDir          `json:"bytes"`
	StderrLines int            `json:"stderrLines"`
	Requests    map[string]int `json:"requests"` // by state
	Findings    map[string]int `json:"findings"` // by code
}

// ByDir counts something in each direction.
type ByDir struct {
	C2S int64 `json:"c2s"`
	S2C int64 `json:"s2c"`
}

// Note is something linesman itself logged (era decisions, restarts).
type Note struct {
	Seq  uint64 `json:"seq"`
	Time string `json:"time"`
	Text string `json:"text"`
}

// Dropped says how much of the session the log's retention limit
// dropped before the report was built.
type Dropped struct {
	Events uint64 `json:"events"`
	Bytes  int64  `json:"bytes"`
	// Frames and Findings are those counted in Totals and Summary but not
	// listed; Notes are linesman's notes past the thousand it keeps.
	Frames   int `json:"frames"`
	Findings int `json:"findings"`
	Notes    int `json:"notes,omitempty"`
}
