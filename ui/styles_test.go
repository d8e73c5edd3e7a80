package ui

import (
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestThemesBuild(t *testing.T) {
	f := misbehaving(t, true)
	for _, name := range []string{"auto", "dark", "light", "high-contrast", "none"} {
		for _, dark := range []bool{true, false} {
			m := NewModel(Options{Log: f.log, Tracker: f.tr, Theme: name})
			m.Update(tea.BackgroundColorMsg{Color: map[bool]color.Color{true: color.Black, false: color.White}[dark]})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			if m.isDark != dark {
				t.Fatalf("background message: isDark=%v", m.isDark)
			}
			if got := ansi.Strip(m.Render()); !strings.Contains(got, "Frames") {
				t.Fatalf("theme %s: screen lacks the frames pane", name)
			}
			m.Close()
		}
	}
}
