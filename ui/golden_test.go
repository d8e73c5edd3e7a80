package ui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"linesman/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func tea_WindowSize(w, h int) tea.Msg { return tea.WindowSizeMsg{Width: w, Height: h} }

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (-update rewrites it)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// plain strips styles and checks the block's shape: h lines of w cells.
func plain(t *testing.T, s string, w, h int) string {
	t.Helper()
	out := ansi.Strip(s)
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("rendered %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("line %d is %d cells wide, want %d: %q", i, got, w, l)
		}
	}
	return out + "\n"
}

// findSeq returns the Seq of the first frame whose bytes contain s.
func findSeq(t *testing.T, m *Model, s string) uint64 {
	t.Helper()
	for _, seq := range m.c.ix.frames {
		ev, _ := m.c.ix.log.Get(seq)
		if strings.Contains(string(ev.Frame.Raw()), s) {
			return seq
		}
	}
	t.Fatalf("no frame contains %q", s)
	return 0
}

// TestGolden renders every pane, and the whole screen, of a session that
// has every kind of finding, at 80×24, 160×48 and 200×50.
func TestGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}, {200, 50}} {
		w, h := size[0], size[1]
		dir := fmt.Sprintf("%dx%d", w, h)
		t.Run(dir, func(t *testing.T) {
			f := misbehaving(t, false)
			m := f.model(w, h, nil)
			golden(t, dir+"/screen.txt", plain(t, m.Render(), w, h))
			golden(t, dir+"/status.txt", plain(t, m.statusBar(), w, 1))

			r := m.rects
			golden(t, dir+"/frames.txt", plain(t, m.frames.Render(true), r[focusFrames].w, r[focusFrames].h))
			golden(t, dir+"/stderr.txt", plain(t, m.stderr.Render(false, 0), r[focusStderr].w, r[focusStderr].h))
			golden(t, dir+"/process.txt", plain(t, m.process.Render(false), r[focusProcess].w, r[focusProcess].h))

			// The detail tabs, each on the frame that teaches it best.
			tabs := []struct {
				name  string
				tab   int
				frame string
			}{
				{"detail-json", tabJSON, `"tools": [`},
				{"detail-raw", tabRaw, "bad \xff byte"},
				{"detail-raw-crlf", tabRaw, `"crlf"`},
				{"detail-findings", tabFindings, `"tools": [`},
				{"detail-pair", tabPair, `"method":"tools/list"`},
			}
			for _, c := range tabs {
				m.frames.selectSeq(findSeq(t, m, c.frame))
				m.detail.setTab(c.tab)
				m.refresh()
				r = m.rects // the detail's rows follow what it shows
				golden(t, dir+"/"+c.name+".txt", plain(t, m.detail.Render(true), r[focusDetail].w, r[focusDetail].h))
			}
			// The stderr lines around a selected frame.
			m.frames.selectSeq(findSeq(t, m, `"method":"tools/call","params":{"name":"slow"`))
			m.refresh()
			r = m.rects
			golden(t, dir+"/stderr-around.txt", plain(t, m.stderr.Render(false, m.frames.SelectedSeq()), r[focusStderr].w, r[focusStderr].h))
			golden(t, dir+"/screen-selected.txt", plain(t, m.Render(), w, h))

			m.showHelp = true
			golden(t, dir+"/help.txt", plain(t, m.Render(), w, h))
		})
		t.Run(dir+"-running", func(t *testing.T) {
			f := misbehaving(t, true)
			m := f.model(w, h, nil)
			r := m.rects
			golden(t, dir+"/inflight.txt", plain(t, m.inflight.Render(true), r[focusInFlight].w, r[focusInFlight].h))
			golden(t, dir+"/screen-running.txt", plain(t, m.Render(), w, h))
		})
	}
}

// TestFixtureHasEveryFinding keeps the golden session honest: every code in
// the registry appears in it.
func TestFixtureHasEveryFinding(t *testing.T) {
	f := misbehaving(t, false)
	m := f.model(80, 24, nil)
	seen := map[string]bool{}
	for _, ev := range f.log.Range(0, 1<<62) {
		if ev.Frame != nil {
			for _, x := range m.c.ix.findings(&ev) {
				seen[x.Code] = true
			}
		}
		if ev.Finding != nil {
			seen[ev.Finding.Code] = true
		}
	}
	for _, in := range wire.Codes() {
		if !seen[in.Code] {
			t.Errorf("the fixture has no %s finding", in.Code)
		}
	}
}
