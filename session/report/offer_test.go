package report

import (
	"slices"
	"testing"
	"time"

	"linesman/session"
	"linesman/wire"
)

// foldLog logs JSON frames (c> the client's, s> the server's) and process
// events the way a live session does (session.Record), so that the tracker
// is the log's projection.
func foldLog(events ...any) (*session.Log, *session.Tracker) {
	l, tr := session.NewLog(0), session.NewTracker(session.TrackerOptions{})
	for _, e := range events {
		switch e := e.(type) {
		case string:
			dir := wire.ClientToServer
			if e[:2] == "s>" {
				dir = wire.ServerToClient
			}
			f := wire.FramesOf([]byte(e[2:]+"\n"), wire.Options{})[0]
			session.Record(l, tr, session.Event{Type: session.EventFrame, Dir: dir, Frame: f})
		case session.ProcessEvent:
			session.Record(l, tr, session.Event{Type: session.EventProcess, Process: &e})
		}
		time.Sleep(time.Microsecond) // distinct times, as on a wire
	}
	return l, tr
}

// TestReportOffersWhatThePickerOffers: tools/list answered [a, b], then
// [a]: the report's definitions (and so --baseline, --expect-tool and
// diff, which read them) name [a], as the picker does.
func TestReportOffersWhatThePickerOffers(t *testing.T) {
	l, tr := foldLog(
		`c>{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`s>{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}}`,
		`c>{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`s>{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`,
	)
	if got := DefinitionsOf(tr).ToolNames(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("definitions name %v; want [a]", got)
	}
	r := FromLog(l, tr, Meta{Mode: "check"})
	if r.Definitions == nil || !slices.Equal(r.Definitions.ToolNames(), []string{"a"}) {
		t.Errorf("the report's definitions: %+v; want [a]", r.Definitions)
	}
}

// TestReportProcessIsTheProjections: a shutdown step logged after the exit
// leaves the report's process exited, as the inspector shows it.
func TestReportProcessIsTheProjections(t *testing.T) {
	l, tr := foldLog(
		session.ProcessEvent{State: session.StateRunning, Pid: 7},
		session.ProcessEvent{State: session.StateExited, Pid: 7, ExitCode: -1, Signal: "SIGTERM", Step: session.StepSIGTERM},
		session.ProcessEvent{State: session.StateExiting, Pid: 7, Step: session.StepSIGKILL},
	)
	r := FromLog(l, tr, Meta{Mode: "check"})
	if r.Process.State != "exited" || r.Process.EndedBy == nil || *r.Process.EndedBy != "sigterm" {
		t.Errorf("process block %+v; want exited, ended by sigterm", r.Process)
	}
	if p := tr.Process(); p.State != session.StateExited {
		t.Errorf("the projection says %s", p.State)
	}
}
