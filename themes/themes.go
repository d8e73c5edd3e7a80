// Package themes holds linesman's colour themes: a small set of semantic
// colours per theme, for dark and for light terminals. It chooses colours and
// nothing else; the UI expands a Theme into its styles, and no other package
// names a colour.
//
// A nil colour means "the terminal's default": the NO_COLOR theme is all nil,
// so nothing in the UI may carry meaning by colour alone (glyphs, bold and
// reverse video carry it too).
package themes

import (
	"fmt"
	"image/color"
	"sort"

	"charm.land/lipgloss/v2"
)

// Theme is a palette of semantic colours.
type Theme struct {
	Name string

	Base    color.Color // ordinary text
	Subtle  color.Color // secondary text: times, sizes, separators
	Accent  color.Color // titles, keys in help, the active tab
	Client  color.Color // frames the client (linesman) wrote: client→server
	Server  color.Color // frames the server wrote: server→client
	Stderr  color.Color // the server's stderr
	Error   color.Color // findings of severity error
	Warning color.Color // findings of severity warning
	Note    color.Color // findings of severity note
	// Selection is the background of the selected row (which is also shown
	// in reverse video or with a marker, so it survives NO_COLOR).
	Selection     color.Color
	BorderFocused color.Color
	BorderBlurred color.Color
	// JSON syntax colours for the pretty view.
	JSONKey, JSONString, JSONNumber, JSONLiteral color.Color
	// Escaped marks bytes the server wrote that are shown as symbols
	// (control characters, escape sequences, invalid UTF-8).
	Escaped color.Color
}

// Names returns the names accepted by Get, sorted; "auto" picks dark or light
// from the terminal's background.
func Names() []string {
	n := []string{"auto", "none"}
	for k := range builders {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

var builders = map[string]func() Theme{
	"dark":          Dark,
	"light":         Light,
	"high-contrast": HighContrast,
}

// Get returns the theme called name for a terminal whose background is dark
// (isDark) or light. "auto" (or "") picks Dark or Light; "none" is the
// colourless theme used for NO_COLOR. An unknown name is an error that lists
// the valid ones.
func Get(name string, isDark bool) (Theme, error) {
	switch name {
	case "", "auto":
		if isDark {
			return Dark(), nil
		}
		return Light(), nil
	case "none", "no-color":
		return None(), nil
	}
	b, ok := builders[name]
	if !ok {
		return Theme{}, fmt.Errorf("unknown theme %q: want one of %v", name, Names())
	}
	return b(), nil
}

// Dark is the palette for dark backgrounds.
func Dark() Theme {
	c := lipgloss.Color
	return Theme{
		Name:          "dark",
		Base:          c("#D8DEE9"),
		Subtle:        c("#7B8494"),
		Accent:        c("#88C0D0"),
		Client:        c("#A3BE8C"),
		Server:        c("#81A1C1"),
		Stderr:        c("#C8A2C8"),
		Error:         c("#FF6B6B"),
		Warning:       c("#EBCB8B"),
		Note:          c("#8FBCBB"),
		Selection:     c("#3B4252"),
		BorderFocused: c("#88C0D0"),
		BorderBlurred: c("#4C566A"),
		JSONKey:       c("#81A1C1"),
		JSONString:    c("#A3BE8C"),
		JSONNumber:    c("#B48EAD"),
		JSONLiteral:   c("#D08770"),
		Escaped:       c("#FF9F43"),
	}
}

// Light is the palette for light backgrounds.
func Light() Theme {
	c := lipgloss.Color
	return Theme{
		Name:          "light",
		Base:          c("#2E3440"),
		Subtle:        c("#6B7280"),
		Accent:        c("#005F87"),
		Client:        c("#2E7D32"),
		Server:        c("#1E4FA0"),
		Stderr:        c("#7B1FA2"),
		Error:         c("#C62828"),
		Warning:       c("#9A6700"),
		Note:          c("#00695C"),
		Selection:     c("#DCE3EC"),
		BorderFocused: c("#005F87"),
		BorderBlurred: c("#B0B7C3"),
		JSONKey:       c("#1E4FA0"),
		JSONString:    c("#2E7D32"),
		JSONNumber:    c("#6A1B9A"),
		JSONLiteral:   c("#B23C00"),
		Escaped:       c("#C2410C"),
	}
}

// HighContrast uses the 16 basic ANSI colours at full strength, so the
// terminal's own palette (often tuned for accessibility) decides.
func HighContrast() Theme {
	c := lipgloss.Color
	return Theme{
		Name:          "high-contrast",
		Base:          c("15"),
		Subtle:        c("7"),
		Accent:        c("14"),
		Client:        c("10"),
		Server:        c("12"),
		Stderr:        c("13"),
		Error:         c("9"),
		Warning:       c("11"),
		Note:          c("14"),
		Selection:     c("4"),
		BorderFocused: c("11"),
		BorderBlurred: c("7"),
		JSONKey:       c("12"),
		JSONString:    c("10"),
		JSONNumber:    c("13"),
		JSONLiteral:   c("11"),
		Escaped:       c("11"),
	}
}

// None has no colours at all (NO_COLOR): every field is nil.
func None() Theme { return Theme{Name: "none"} }
