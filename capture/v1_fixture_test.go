package capture

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var updateV1 = flag.Bool("update-v1", false, "rewrite testdata/*.findings.json from the current code (only ever with the release that wrote the v1 captures)")

// v1Fixtures are captures written by linesman 0.1.0 (capture format
// version 1, where era decisions and restarts were notes in English), with
// the era, protocol version and server they must still open with.
var v1Fixtures = []struct {
	file, era, version, server string
	restarts                   int
}{
	// auto era: the probe decided modern; tools called (stray print,
	// pretty reply, a server request reusing an id), a restart, a second
	// handshake, a line that is not JSON sent by hand.
	{"v1-auto-restart.capture", "modern", "2026-07-28", "linesman-demo", 1},
	// --era legacy: initialize, tools, a ping by hand reusing id 1.
	{"v1-legacy.capture", "legacy", "2025-11-25", "linesman-demo", 0},
	// --era modern with the handshake off: the era comes from the header.
	{"v1-nohandshake.capture", "modern", "2026-07-28", "", 0},
}

// stable is the part of a findings report that must not change when an old
// capture is opened by a newer linesman: the findings, the requests and
// their pairing, the frames' finding codes and replies, the process.
type stable struct {
	Frames   []json.RawMessage `json:"frames"`
	Requests []json.RawMessage `json:"requests"`
	Findings []json.RawMessage `json:"findings"`
	Summary  json.RawMessage   `json:"summary"`
	Process  json.RawMessage   `json:"process"`
	Notes    []json.RawMessage `json:"linesmanNotes"`
}

// requestsAsOf01 is a requests list without the members added to it since
// linesman 0.1.0 (the schema adds fields, never renames them).
func requestsAsOf01(t *testing.T, raws []json.RawMessage) []map[string]any {
	var out []map[string]any
	for _, raw := range raws {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "tool")
		delete(m, "call")
		out = append(out, m)
	}
	return out
}

// TestV1CapturesStillOpen opens captures written by the release before
// era decisions and restarts became typed records, and checks that they
// give the same findings, requests and pairing as that release did (the
// .findings.json beside each were written by it), and the handshake facts
// they were recorded with. That release had no protocol rules
// (session/protocol): they are left out here, or their findings on the
// recorded demo sessions would be new ones, not changed ones.
func TestV1CapturesStillOpen(t *testing.T) {
	for _, fx := range v1Fixtures {
		t.Run(fx.file, func(t *testing.T) {
			path := filepath.Join("testdata", fx.file)
			c, err := OpenWith(path, OpenOptions{NoProtocolRules: true})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteFindings(&buf, c.Log, c.Tracker, c.Header); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(path, ".capture") + ".findings.json"
			if *updateV1 {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			var w, g stable
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(buf.Bytes(), &g); err != nil {
				t.Fatal(err)
			}
			if len(g.Findings) == 0 {
				t.Fatal("no findings: the fixture lost what it was recorded for")
			}
			for name, pair := range map[string][2]any{
				"frames": {w.Frames, g.Frames}, "requests": {requestsAsOf01(t, w.Requests), requestsAsOf01(t, g.Requests)},
				"findings": {since010(w.Findings), since010(g.Findings)}, "summary": {w.Summary, g.Summary},
				"process": {w.Process, g.Process}, "linesmanNotes": {w.Notes, g.Notes},
			} {
				if !reflect.DeepEqual(pair[0], pair[1]) {
					t.Errorf("%s differ from what linesman 0.1.0 said:\nwant %s\n got %s", name, pair[0], pair[1])
				}
			}
			var hs struct {
				Era             string `json:"era"`
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name string `json:"name"`
				} `json:"serverInfo"`
				Process struct {
					Restarts int `json:"restarts"`
				} `json:"process"`
			}
			if err := json.Unmarshal(buf.Bytes(), &hs); err != nil {
				t.Fatal(err)
			}
			if hs.Era != fx.era || hs.ProtocolVersion != fx.version || hs.ServerInfo.Name != fx.server || hs.Process.Restarts != fx.restarts {
				t.Errorf("handshake: era %q version %q server %q restarts %d, want %q %q %q %d",
					hs.Era, hs.ProtocolVersion, hs.ServerInfo.Name, hs.Process.Restarts, fx.era, fx.version, fx.server, fx.restarts)
			}
			if got := c.Tracker.Era().String(); got != fx.era {
				t.Errorf("tracker era %s, want %s", got, fx.era)
			}
		})
	}
}

// since010 reads findings without the members added to the report after
// linesman 0.1.0 wrote the fixtures (a finding's "party"), which say more
// about a finding without changing it.
func since010(fs []json.RawMessage) []map[string]any {
	out := make([]map[string]any, len(fs))
	for i, f := range fs {
		_ = json.Unmarshal(f, &out[i])
		delete(out[i], "party")
	}
	return out
}
