package report

import (
	"slices"
	"testing"
	"time"

	"linesman/session/eventlog"
	"linesman/wire"
)

// foldLog logs JSON frames (c> the client's, s> the server's) and process
// events the way a live session does (eventlog.Record), so that the tracker
// is the log's projection.
func foldLog(events ...any) (*eventlog.Log, *eventlog.Tracker) {
	l, tr := eventlog.NewLog(0), eventlog.NewTracker(eventlog.TrackerOptions{})
	for _, e := range events {
		switch e := e.(type) {
		case string:
			dir := wire.ClientToServer
			if e[:2] == "s>" {
				dir = wire.ServerToClient
			}
			f := wire.FramesOf([]byte(e[2:]+"\n"), wire.Options{})[0]
			eventlog.Record(l, tr, eventlog.Event{Type: eventlog.EventFrame, Dir: dir, Frame: f})
		case eventlog.ProcessEvent:
			eventlog.Record(l, tr, eventlog.Event{Type: eventlog.EventProcess, Process: &e})
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
		eventlog.ProcessEvent{State: eventlog.StateRunning, Pid: 7},
		eventlog.ProcessEvent{State: eventlog.StateExited, Pid: 7, ExitCode: -1, Signal: "SIGTERM", Step: eventlog.StepSIGTERM},
		eventlog.ProcessEvent{State: eventlog.StateExiting, Pid: 7, Step: eventlog.StepSIGKILL},
	)
	r := FromLog(l, tr, Meta{Mode: "check"})
	if r.Process.State != "exited" || r.Process.EndedBy == nil || *r.Process.EndedBy != "sigterm" {
		t.Errorf("process block %+v; want exited, ended by sigterm", r.Process)
	}
	if p := tr.Process(); p.State != eventlog.StateExited {
		t.Errorf("the projection says %s", p.State)
	}
}
