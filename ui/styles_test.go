package ui

import (
	"fmt"
	"image/color"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/themes"
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

// TestThemesOwnEveryColour: every colour in every style the UI builds —
// the help line's, the composer's and the prompts' included — is one of
// the theme's, so high-contrast and NO_COLOR reach everything (the help
// bubble's default greys did not).
func TestThemesOwnEveryColour(t *testing.T) {
	for _, name := range []string{"dark", "light", "high-contrast", "none"} {
		th, err := themes.Get(name, true)
		if err != nil {
			t.Fatal(err)
		}
		own := map[string]bool{}
		tv := reflect.ValueOf(th)
		for i := range tv.NumField() {
			if c, ok := tv.Field(i).Interface().(color.Color); ok && c != nil {
				own[colourKey(c)] = true
			}
		}
		for _, dark := range []bool{true, false} {
			st := NewStyles(th, dark)
			walkColours(reflect.ValueOf(*st), "Styles", func(path string, c color.Color) {
				if !own[colourKey(c)] {
					t.Errorf("theme %s: %s is %s, not a colour of the theme", name, path, colourKey(c))
				}
			})
		}
	}
}

func colourKey(c color.Color) string {
	r, g, b, a := c.RGBA()
	return fmt.Sprintf("#%04x%04x%04x%04x", r, g, b, a)
}

// walkColours calls f for every colour set in v: lipgloss styles'
// foreground, background and border colours, and color.Color fields.
func walkColours(v reflect.Value, path string, f func(string, color.Color)) {
	if st, ok := v.Interface().(lipgloss.Style); ok {
		for what, c := range map[string]color.Color{"foreground": st.GetForeground(), "background": st.GetBackground(),
			"border": st.GetBorderTopForeground(), "underline": st.GetUnderlineColor()} {
			if _, none := c.(lipgloss.NoColor); c != nil && !none {
				f(path+" "+what, c)
			}
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkColours(v.Field(i), path+"."+v.Type().Field(i).Name, f)
			}
		}
	case reflect.Interface:
		if c, ok := v.Interface().(color.Color); ok && c != nil {
			f(path, c)
		}
	}
}
