package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
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
	LineEnd              lipgloss.Style // Raw's line end, in reverse video
	LineEndOdd           lipgloss.Style // a CRLF line end

	Error, Warning, Note lipgloss.Style // badge text per severity

	Title, TitleFocused lipgloss.Style // pane title rules
	Rule, RuleFocused   lipgloss.Style
	Selected            lipgloss.Style // the selected row (reverse video, so it survives NO_COLOR)
	SelectedBlurred     lipgloss.Style
	Match, MatchCurrent lipgloss.Style // a search's matches (underlined), the current one (reverse video)
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

// NewStyles expands a theme into styles: every colour of every style,
// the bubbles' included, is one of the theme's. (isDark is kept for
// callers; the theme already chose for the background.)
func NewStyles(t themes.Theme, isDark bool) *Styles {
	s := &Styles{Theme: t}
	s.Base = fg(t.Base)
	s.Subtle = fg(t.Subtle)
	s.Accent = fg(t.Accent).Bold(true)
	s.Client = fg(t.Client)
	s.Server = fg(t.Server)
	s.Stderr = fg(t.Stderr)
	// Escapes and line ends are in reverse video in every theme, so no
	// colour is needed to tell them from the same characters written by
	// the server (NO_COLOR).
	s.Escaped = fg(t.Escaped).Reverse(true)
	s.LineEnd = fg(t.Subtle).Reverse(true)
	s.LineEndOdd = fg(t.Warning).Reverse(true)
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
	s.Match = lipgloss.NewStyle().Underline(true)
	s.MatchCurrent = lipgloss.NewStyle().Reverse(true)
	s.Tab = fg(t.Subtle)
	s.TabActive = fg(t.Accent).Bold(true).Underline(true)
	s.StatusBar = fg(t.Base)
	s.JSONKey = fg(t.JSONKey)
	s.JSONString = fg(t.JSONString)
	s.JSONNumber = fg(t.JSONNumber)
	s.JSONLiteral = fg(t.JSONLiteral)
	s.JSONPunct = fg(t.Subtle)

	s.Help = helpStyles(t)
	s.Textarea = textareaStyles(t)
	s.TextInput = textInputStyles(t)
	return s
}

// bg is a style with background c, or a plain style when c is nil.
func bg(c color.Color) lipgloss.Style {
	s := lipgloss.NewStyle()
	if c != nil {
		s = s.Background(c)
	}
	return s
}

// helpStyles colours the help line and the full help from the theme (the
// bubble's defaults are fixed greys, whatever the theme): keys in the
// accent, descriptions in the base colour, separators subtle. Without
// colours, keys are bold.
func helpStyles(t themes.Theme) help.Styles {
	key := fg(t.Accent)
	if t.Accent == nil {
		key = key.Bold(true)
	}
	return help.Styles{Ellipsis: fg(t.Subtle), ShortKey: key, ShortDesc: fg(t.Base), ShortSeparator: fg(t.Subtle),
		FullKey: key, FullDesc: fg(t.Base), FullSeparator: fg(t.Subtle)}
}

// textareaStyles colours the composer from the theme. The cursor is steady:
// a blinking one redraws the screen twice a second for nothing.
func textareaStyles(t themes.Theme) textarea.Styles {
	var s textarea.Styles
	s.Focused = textarea.StyleState{
		Base: lipgloss.NewStyle(), Text: fg(t.Base),
		LineNumber: fg(t.Subtle), CursorLineNumber: fg(t.Accent), CursorLine: bg(t.Selection),
		EndOfBuffer: fg(t.Subtle), Placeholder: fg(t.Subtle), Prompt: fg(t.Subtle), Selection: bg(t.Selection).Reverse(t.Selection == nil),
	}
	s.Blurred = s.Focused
	s.Blurred.CursorLine, s.Blurred.CursorLineNumber, s.Blurred.Text = fg(t.Subtle), fg(t.Subtle), fg(t.Subtle)
	s.Cursor = textarea.CursorStyle{Color: t.Accent, Shape: tea.CursorBlock}
	return s
}

// textInputStyles colours the prompts (filter, export) from the theme.
func textInputStyles(t themes.Theme) textinput.Styles {
	var s textinput.Styles
	s.Focused = textinput.StyleState{Text: fg(t.Base), Placeholder: fg(t.Subtle), Suggestion: fg(t.Subtle), Prompt: fg(t.Accent)}
	s.Blurred = s.Focused
	s.Blurred.Text = fg(t.Subtle)
	s.Cursor = textinput.CursorStyle{Color: t.Accent, Shape: tea.CursorBlock}
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
