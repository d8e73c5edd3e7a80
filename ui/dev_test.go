package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func tea_WindowSize(w, h int) tea.Msg { return tea.WindowSizeMsg{Width: w, Height: h} }

func TestDevPrint(t *testing.T) {
	f := misbehaving(t)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m := f.model(sz[0], sz[1], nil)
		fmt.Println(ansi.Strip(m.Render()))
	}
}
