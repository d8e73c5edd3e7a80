package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"

	"linesman/session/eventlog"
	"linesman/session/report"
)

// ErrInterrupted is what an inspector's UI returns when linesman got
// SIGINT from outside while it ran (the UI's own signal: [Inspect] exits
// 130 as for a watched one).
var ErrInterrupted = errors.New("interrupted")

// Inspect is the inspector's run: it starts the server, makes the
// handshake in the background (unless handshake is false: the user makes
// it in the composer), runs ui until the user quits or a watched signal
// ends its context, then shuts the server down through the ladder and
// returns the exit status: 0 when the user quit, 128+n after a signal, 1
// when the UI or the capture failed.
func Inspect(opts *Options, handshake bool, ui func(ctx context.Context, r *Run) error, stderr io.Writer) int {
	r, status, _ := Start(opts, stderr)
	if r == nil {
		return status
	}
	defer r.Close()
	handshakeDone := make(chan struct{})
	go func() {
		defer close(handshakeDone)
		if handshake {
			inspectHandshake(r)
		}
	}()

	uiCtx, uiCancel := context.WithCancel(r.ctx)
	defer uiCancel()
	runErr := ui(uiCtx, r)
	uiCancel()

	// The UI ran the ladder on quit (or killed on a second quit); make sure
	// the server is gone whatever happened, and wait for it, bounded.
	r.cancel() // a handshake still waiting stops here, not as a failure when the ladder ends the server
	r.Shutdown()
	WaitBounded(handshakeDone, drainMargin)
	captureErr := r.stopCapture()

	if status, ok := r.SignalStatus(); ok {
		return status
	}
	if errors.Is(runErr, ErrInterrupted) {
		return report.SignalStatus(syscall.SIGINT)
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "%s: %v\n", opts.Name, runErr)
		return StatusFailed
	}
	if captureErr != nil {
		fmt.Fprintf(stderr, "%s: capture: %v\n", opts.Name, captureErr)
		return StatusFailed
	}
	return StatusOK
}

// inspectHandshake makes the handshake in the background, as a host would,
// and lists the tools the server declares (the composer's tools/call
// templates are built from the answer). A failure is said where the user
// looks: the stderr & events pane.
func inspectHandshake(r *Run) {
	s, ctx := r.s, r.ctx
	if err := s.Handshake(ctx); err != nil {
		r.Logf("handshake: %v", err)
		if ctx.Err() == nil { // not because the user quit
			s.Log().Append(eventlog.Event{Type: eventlog.EventNote,
				Note: err.Error() + "; open the conversation by hand (c), or restart the server (R)"})
		}
		return
	}
	r.Logf("handshake: %s era, protocol %s", s.Era(), s.ProtocolVersion())
	if hs := s.Tracker().Handshake(); hs.ServerDeclares("tools") {
		if _, err := Call(ctx, s, r.opts.Session.Timeout, "tools/list", nil); err != nil {
			r.Logf("tools/list: %v", err)
		}
	}
}
