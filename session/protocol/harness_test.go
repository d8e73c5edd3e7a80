package protocol

import (
	"strings"
	"testing"

	"linesman/wire"
)

// A conversation is written one message per line: "> " for the client's,
// "< " for the server's. $META expands to the _meta every 2026-07-28
// request carries; $INIT to a legacy handshake (2025-11-25, every server
// capability declared); $TASKS to the same handshake with the server's
// tasks capability too (list, cancel, task-augmented tools/call) and a
// tools/list of three tools: "plain" (no execution), "either" (optional)
// and "job" (required); $DISCOVER to a 2026-07-28 server/discover exchange
// declaring every capability.
const (
	metaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}}`
	initJSON = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}`
	tasksJSON = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}
< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}
> {"jsonrpc":"2.0","method":"notifications/initialized"}
> {"jsonrpc":"2.0","id":"tl","method":"tools/list"}
< {"jsonrpc":"2.0","id":"tl","result":{"tools":[{"name":"plain","inputSchema":{"type":"object"}},{"name":"either","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}}`
	discoverJSON = `> {"jsonrpc":"2.0","id":0,"method":"server/discover","params":{$META}}
< {"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"logging":{},"completions":{}},"ttlMs":0,"cacheScope":"public"}}`
)

func expand(conv string) string {
	conv = strings.ReplaceAll(conv, "$TASKS", tasksJSON)
	conv = strings.ReplaceAll(conv, "$INIT", initJSON)
	conv = strings.ReplaceAll(conv, "$DISCOVER", discoverJSON)
	return strings.ReplaceAll(conv, "$META", metaJSON)
}

// judged is a frame as the judge left it.
type judged struct {
	dir   wire.Dir
	frame *wire.Frame
}

// run feeds a conversation through a judge, pairing answers with requests
// by id the way the session's fold does in the simple case.
func run(t testing.TB, conv string) (*Judge, []judged) {
	t.Helper()
	j := New()
	pending := map[[2]string]*wire.Frame{}
	var out []judged
	for _, line := range strings.Split(expand(conv), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var dir wire.Dir
		switch line[0] {
		case '>':
			dir = wire.ClientToServer
		case '<':
			dir = wire.ServerToClient
		default:
			t.Fatalf("line without direction: %q", line)
		}
		frames := wire.FramesOf([]byte(strings.TrimSpace(line[1:])+"\n"), wire.Options{})
		if len(frames) != 1 {
			t.Fatalf("%q: %d frames", line, len(frames))
		}
		f := frames[0]
		if f.Msg.Kind == wire.KindNonJSON || f.Msg.Kind == wire.KindInvalid {
			t.Fatalf("%q: %s %v", line, f.Msg.Kind, f.Findings)
		}
		in := Input{Seq: uint64(len(out) + 1), Dir: dir, Frame: f}
		switch f.Msg.Kind {
		case wire.KindRequest:
			pending[[2]string{dir.String(), f.Msg.ID.String()}] = f
		case wire.KindResult, wire.KindError:
			other := wire.ClientToServer
			if dir == wire.ClientToServer {
				other = wire.ServerToClient
			}
			k := [2]string{other.String(), f.Msg.ID.String()}
			in.Request = pending[k]
			delete(pending, k)
		}
		j.Frame(in)
		out = append(out, judged{dir, f})
	}
	return j, out
}

// codes lists the codes of the findings raised, in order.
func codes(frames []judged) []string {
	var out []string
	for _, f := range frames {
		for _, fd := range f.frame.Findings {
			out = append(out, fd.Code)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
