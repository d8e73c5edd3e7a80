package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap is every key binding of the UI, in one place. Bindings are switched
// on and off from the model's state before each render (see
// Model.syncKeys), so the help line only ever offers what would work now.
type KeyMap struct {
	// Global.
	FocusNext, FocusPrev key.Binding
	Help                 key.Binding
	Quit                 key.Binding
	Filter               key.Binding
	NextFinding          key.Binding
	PrevFinding          key.Binding
	Follow               key.Binding
	Compose              key.Binding
	Shutdown, Restart    key.Binding
	CopyRaw, CopyPretty  key.Binding
	TabNext, TabPrev     key.Binding
	Export               key.Binding

	// Movement in the focused pane.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding

	// Frames pane.
	Resend, EditResend, Answer key.Binding
	// In-flight pane.
	Cancel, ShowFrame key.Binding
	// Process pane.
	Env key.Binding

	// Composer.
	Send, SendRaw, NextTemplate, PrevTemplate, Editor, ClearComposer, CloseComposer key.Binding
	// Filter prompt.
	ApplyFilter, CancelFilter key.Binding
	// Export prompt.
	ExportFormat, WriteExport, CancelExport key.Binding
}

// DefaultKeyMap returns the key bindings. Vim keys and arrows both move.
func DefaultKeyMap() *KeyMap {
	b := func(keys []string, helpKey, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
	}
	return &KeyMap{
		FocusNext:   b([]string{"tab"}, "tab", "next pane"),
		FocusPrev:   b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Help:        b([]string{"?"}, "?", "keys"),
		Quit:        b([]string{"q", "ctrl+c"}, "q", "quit (ladder; again: kill)"),
		Filter:      b([]string{"/"}, "/", "filter frames"),
		NextFinding: b([]string{"n"}, "n", "next finding"),
		PrevFinding: b([]string{"N"}, "N", "previous finding"),
		Follow:      b([]string{"f"}, "f", "follow newest"),
		Compose:     b([]string{"c"}, "c", "compose a request"),
		Shutdown:    b([]string{"S"}, "S", "shutdown ladder"),
		Restart:     b([]string{"R"}, "R", "restart server"),
		CopyRaw:     b([]string{"y"}, "y", "copy frame (raw)"),
		CopyPretty:  b([]string{"Y"}, "Y", "copy frame (pretty)"),
		TabNext:     b([]string{"]", "right", "l"}, "]/→", "next detail tab"),
		TabPrev:     b([]string{"[", "left", "h"}, "[/←", "previous detail tab"),
		Export:      b([]string{"X"}, "X", "export to a file"),

		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+f", "space"}, "pgdn", "page down"),
		Top:      b([]string{"home", "g"}, "g", "first"),
		Bottom:   b([]string{"G", "end"}, "G", "last"),

		Resend:     b([]string{"r"}, "r", "resend client frame"),
		EditResend: b([]string{"e"}, "e", "edit and resend"),
		Answer:     b([]string{"a"}, "a", "answer server request"),
		Cancel:     b([]string{"x"}, "x", "cancel request"),
		ShowFrame:  b([]string{"enter"}, "enter", "select its frame"),
		Env:        b([]string{"E"}, "E", "env and cwd"),

		Send:          b([]string{"ctrl+s"}, "ctrl+s", "send"),
		SendRaw:       b([]string{"ctrl+r"}, "ctrl+r", "send raw (unchecked)"),
		NextTemplate:  b([]string{"ctrl+t"}, "ctrl+t", "next template"),
		PrevTemplate:  b([]string{"ctrl+y"}, "ctrl+y", "previous template"),
		Editor:        b([]string{"ctrl+o"}, "ctrl+o", "edit in $EDITOR"),
		ClearComposer: b([]string{"ctrl+x"}, "ctrl+x", "clear (write from scratch)"),
		CloseComposer: b([]string{"esc"}, "esc", "close composer"),

		ApplyFilter:  b([]string{"enter"}, "enter", "apply filter"),
		CancelFilter: b([]string{"esc"}, "esc", "clear filter"),

		ExportFormat: b([]string{"r", "f", "t"}, "r/f/t", "replay, findings, transcript"),
		WriteExport:  b([]string{"enter"}, "enter", "write file"),
		CancelExport: b([]string{"esc"}, "esc", "cancel"),
	}
}

// keyGroup is a titled set of bindings, for the full help and the README.
type keyGroup struct {
	Title    string
	Bindings []key.Binding
}

// groups lists every binding once, by where it applies.
func (k *KeyMap) groups() []keyGroup {
	return []keyGroup{
		{"Everywhere", []key.Binding{k.FocusNext, k.FocusPrev, k.Help, k.Quit, k.Filter, k.NextFinding, k.PrevFinding,
			k.Follow, k.Compose, k.Shutdown, k.Restart, k.CopyRaw, k.CopyPretty, k.TabNext, k.TabPrev, k.Export}},
		{"Moving", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}},
		{"Frames", []key.Binding{k.Resend, k.EditResend, k.Answer}},
		{"In flight", []key.Binding{k.Cancel, k.Answer, k.ShowFrame}},
		{"Process", []key.Binding{k.Env}},
		{"Composer", []key.Binding{k.Send, k.SendRaw, k.NextTemplate, k.PrevTemplate, k.Editor, k.ClearComposer, k.CloseComposer}},
		{"Filter prompt", []key.Binding{k.ApplyFilter, k.CancelFilter}},
		{"Export prompt", []key.Binding{k.ExportFormat, k.WriteExport, k.CancelExport}},
	}
}

// MarkdownTable renders every binding as a Markdown table (the README's key
// table is generated from it, and a test keeps the two equal).
func MarkdownTable() string {
	k := DefaultKeyMap()
	var sb strings.Builder
	sb.WriteString("| where | keys | action |\n|---|---|---|\n")
	for _, g := range k.groups() {
		for _, b := range g.Bindings {
			keys := make([]string, 0, len(b.Keys()))
			for _, s := range b.Keys() {
				keys = append(keys, "`"+s+"`")
			}
			fmt.Fprintf(&sb, "| %s | %s | %s |\n", g.Title, strings.Join(keys, " "), b.Help().Desc)
		}
	}
	return sb.String()
}
