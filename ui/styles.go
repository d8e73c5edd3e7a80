package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"

	"linesman/themes"
	"linesman/wire"
)

// Styles is every style the UI uses, built once from a theme. Panes take
// their styles from here and never name a colour.
type Styles struct {
	Theme themes.Theme

	Base, Subtle, Accent lipgloss.Style
	Client, Server       lipgloss.Style
	Stderr               lipgloss.Style
	Escaped              lipgloss.Style

	Error, Warning, Note lipgloss.Style // badge text per severity

	Title, TitleFocused lipgloss.Style // pane title rules
	Rule, RuleFocused   lipgloss.Style
	Selected            lipgloss.Style // the selected row (reverse video, so it survives NO_COLOR)
	SelectedBlurred     lipgloss.Style
	Tab, TabActive      lipgloss.Style
	StatusBar           lipgloss.Style

	JSONKey, JSONString, JSONNumber, JSONLiteral, JSONPunct lipgloss.Style

	Help      help.Styles
	Textarea  textarea.Styles
	TextInput textinput.Styles
}

// fg is a style with foreground c, or a plain style when c is nil (NO_COLOR).
func fg(c color.Color) lipgloss.Style {
	s := lipgloss.NewStyle()
	if c != nil {
		s = s.Foreground(c)
	}
	return s
}

// NewStyles expands a theme into styles. isDark picks the bubbles defaults
// that the theme does not cover.
func NewStyles(t themes.Theme, isDark bool) *Styles {
	s := &Styles{Theme: t}
	s.Base = fg(t.Base)
	s.Subtle = fg(t.Subtle)
	s.Accent = fg(t.Accent).Bold(true)
	s.Client = fg(t.Client)
	s.Server = fg(t.Server)
	s.Stderr = fg(t.Stderr)
	s.Escaped = fg(t.Escaped)
	s.Error = fg(t.Error).Bold(true)
	s.Warning = fg(t.Warning)
	s.Note = fg(t.Note)
	s.Title = fg(t.Subtle)
	s.TitleFocused = fg(t.Accent).Bold(true)
	s.Rule = fg(t.BorderBlurred)
	s.RuleFocused = fg(t.BorderFocused)
	s.Selected = lipgloss.NewStyle().Reverse(true)
	s.SelectedBlurred = lipgloss.NewStyle().Underline(true)
	if t.Selection != nil {
		s.SelectedBlurred = lipgloss.NewStyle().Background(t.Selection)
	}
	s.Tab = fg(t.Subtle)
	s.TabActive = fg(t.Accent).Bold(true).Underline(true)
	s.StatusBar = fg(t.Base)
	s.JSONKey = fg(t.JSONKey)
	s.JSONString = fg(t.JSONString)
	s.JSONNumber = fg(t.JSONNumber)
	s.JSONLiteral = fg(t.JSONLiteral)
	s.JSONPunct = fg(t.Subtle)

	s.Help = help.DefaultStyles(isDark)
	if t.Name == "none" {
		plain := lipgloss.NewStyle()
		s.Help = help.Styles{Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain}
	} else {
		s.Help.ShortKey = fg(t.Accent)
		s.Help.FullKey = fg(t.Accent)
	}
	// A steady cursor: a blinking one redraws the screen twice a second
	// for nothing.
	s.Textarea = textarea.DefaultStyles(isDark)
	s.Textarea.Cursor.Blink = false
	s.TextInput = textinput.DefaultStyles(isDark)
	s.TextInput.Cursor.Blink = false
	return s
}

// Severity returns the badge style for a severity.
func (s *Styles) Severity(v wire.Severity) lipgloss.Style {
	switch v {
	case wire.SeverityError:
		return s.Error
	case wire.SeverityWarning:
		return s.Warning
	default:
		return s.Note
	}
}

// severityGlyph gives each severity a shape, so that severity is readable
// without colour: ✖ error, ▲ warning, ● note.
func severityGlyph(v wire.Severity) string {
	switch v {
	case wire.SeverityError:
		return "✖"
	case wire.SeverityWarning:
		return "▲"
	default:
		return "●"
	}
}
