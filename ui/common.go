package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// focusID names a pane that can have the keyboard focus.
type focusID int

const (
	focusFrames focusID = iota
	focusDetail
	focusInFlight
	focusProcess
	focusStderr
	focusComposer // only while the composer is open
	numPanes      = focusComposer
)

func (f focusID) String() string {
	return [...]string{"Frames", "Detail", "In flight", "Process", "stderr", "Composer"}[f]
}

// common is what every pane shares: styles, keys, the index and the clock.
// The root model owns it; panes hold a pointer and never change it.
type common struct {
	st  *Styles
	km  *KeyMap
	ix  *index
	now time.Duration // the log clock at the last update (ages, uptime)
	// icptFilter is the interception filter armed now ("" = off; i).
	icptFilter string
}

// rect is a pane's place on the screen, computed once per resize.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

// titleLine draws a pane's title rule: a focus marker (a glyph, so focus does
// not depend on colour), the name, extra text, and a rule to the width.
func (c *common) titleLine(w int, name string, focused bool, extra string) string {
	marker, ts, rs := "  ", c.st.Title, c.st.Rule
	if focused {
		marker, ts, rs = "▶ ", c.st.TitleFocused, c.st.RuleFocused
	}
	head := ts.Render(marker+name) + " "
	if extra != "" {
		head += extra + " "
	}
	head = truncate(head, w)
	rest := w - ansi.StringWidth(head)
	if rest > 0 {
		head += rs.Render(strings.Repeat("─", rest))
	}
	return head
}

// block joins exactly h lines of exactly w cells: the contract of every
// pane's Render.
func block(lines []string, w, h int) string {
	var sb strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if i < len(lines) {
			sb.WriteString(fit(lines[i], w))
		} else {
			sb.WriteString(strings.Repeat(" ", max(w, 0)))
		}
	}
	return sb.String()
}

// humanBytes renders a byte count in binary units, as the docs and the
// flags do (one unit style everywhere): 512 B, 5.1 KiB, 16 MiB, 1.2 GiB —
// one decimal under 10, at most 7 cells.
func humanBytes(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 999.5 {
			break
		}
		v, unit = v/1024, u
	}
	if v < 9.95 {
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

// humanAge renders a duration for ages and uptimes: 850ms, 12.3s, 4m05s, 2h03m.
func humanAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
