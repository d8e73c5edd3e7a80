// Package ui is linesman's terminal front end, built on Bubble Tea v2. It
// renders a session's event log — frames, stderr, requests in flight, the
// process — and sends what the user composes through the live session.
//
// Threading: one root model (Model) owns every pane and all UI state, and
// changes it only in Update on the program's goroutine. Nothing else sends
// to the program. The session's goroutines append to the log and never wait
// for the UI: a command waits on the log's coalescing signal, and Update
// re-reads what was appended (at most ~30 times a second). Sends, signals,
// restarts and the editor run in commands; their outcome comes back as a
// message. Nothing in this package writes to the terminal except through
// Bubble Tea, and nothing the server wrote reaches it unescaped (inert.go).
//
// Rendering costs what is on screen: the model keeps an index of Seqs and
// fetches only the visible rows' events from the log.
package ui

import (
	"errors"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Run shows the UI until the user quits (nil), or SIGINT arrives
// (ErrInterrupted). With a live Session, quitting runs
// the shutdown ladder first (a second quit kills) and Run returns once the
// server is done or killed; the caller still waits for the session's Done.
func Run(opts Options) error {
	if opts.Log == nil {
		return errors.New("ui: Options.Log is required")
	}
	popts := append([]tea.ProgramOption(nil), opts.ProgramOptions...)
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	m := NewModel(opts)
	defer m.Close()
	_, err := tea.NewProgram(m, popts...).Run()
	if err == nil && m.switching {
		return ErrSwitch
	}
	return err
}

// ErrSwitch is returned by Run when the user asked for Options.NextSource
// (the T key).
var ErrSwitch = errors.New("ui: switch to the next source")

// ErrInterrupted is returned by Run when linesman got SIGINT from outside
// (ctrl+c inside the UI is the quit key, not an interrupt).
var ErrInterrupted = tea.ErrInterrupted
