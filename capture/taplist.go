package capture

import (
	"fmt"
	"io"

	"linesman/session/hosts"
	"linesman/session/report"
	"linesman/wire"
)

// WriteTapList writes taps as linesman taps lists them, a line each under
// a header: name, state (live or not, running or how the server ended),
// start, findings so far and the server's command, secrets redacted; each
// tap is described ([Tap.Describe]) on the way.
func WriteTapList(stdout io.Writer, taps []Tap) {
	fmt.Fprintf(stdout, "%-20s %-22s %-19s %8s  %s\n", "NAME", "STATE", "STARTED", "FINDINGS", "COMMAND")
	for i := range taps {
		t := &taps[i]
		t.Describe()
		state, findings, cmd := t.State, fmt.Sprint(t.Findings), report.ShellJoin(hosts.RedactCommand(t.Command))
		if t.Err != nil {
			state, findings, cmd = "unreadable", "-", t.Err.Error()
		}
		if t.Live {
			state = "live, " + state
		}
		fmt.Fprintf(stdout, "%-20s %-22s %-19s %8s  %s\n", wire.VisibleString(t.Name, wire.Pictures), state,
			t.Start.Local().Format("2006-01-02 15:04:05"), findings, wire.VisibleString(cmd, wire.Pictures))
	}
}
