package ui

import (
	"fmt"
	"testing"
)

// TestGoldenPickerFormHistory renders the picker, a form (as opened, with
// its errors, on a choice) and the composer's history at 80×24 and 160×48.
func TestGoldenPickerFormHistory(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		dir := fmt.Sprintf("%dx%d", w, h)
		t.Run(dir, func(t *testing.T) {
			f := offering(t)
			srv := newFakeServer(f)
			m := f.model(w, h, srv)
			shot := func(name string) { golden(t, dir+"/"+name+".txt", plain(t, m.Render(), w, h)) }

			press(m, "t")
			shot("picker")
			typeText(m, "or")
			shot("picker-filtered")
			press(m, "enter")
			shot("form")
			typeText(m, "12")
			press(m, "ctrl+s")
			shot("form-errors")
			press(m, "tab", "tab", "tab", "right")
			shot("form-choice")
			press(m, "esc", "esc")

			// Two requests sent, then a draft: ↑ walks back through them.
			press(m, "t")
			typeText(m, "echo")
			press(m, "enter")
			typeText(m, "first")
			press(m, "ctrl+s")
			press(m, "t")
			typeText(m, "motd")
			press(m, "ctrl+s")
			m.Update(logMsg{}) // the log grew: the frames show what was sent
			press(m, "c", "ctrl+x")
			typeText(m, `{"draft":true}`)
			press(m, "up")
			shot("history")
			press(m, "up")
			shot("history-older")
		})
	}
}
