package protocol

import (
	"fmt"
	"strings"
	"testing"

	"linesman/wire"
)

// A host that lists tools again and again for hours (through a tap) is
// issued new cursors each time: the judge keeps at most maxCursors of a
// method's, and, once it has forgotten some, calls no cursor unknown (the
// one asked for may be a forgotten one, rightly issued).
func TestIssuedCursorsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("$INIT\n")
	const pages = maxCursors + 500
	for i := 1; i <= pages; i++ {
		fmt.Fprintf(&b, "> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n", i)
		fmt.Fprintf(&b, "< {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"tools\":[],\"nextCursor\":\"c-%d\"}}\n", i, i)
	}
	// c-1 was issued, then forgotten with the rest; never-issued is not
	// known to be unknown any more either.
	fmt.Fprintf(&b, "> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c-1\"}}\n", pages+1)
	j, frames := run(t, b.String())
	if n := len(j.pages["tools/list"].set); n > maxCursors {
		t.Errorf("%d cursors kept, want at most %d", n, maxCursors)
	}
	if got := codes(frames); contains(got, "unknown-cursor") {
		t.Errorf("a forgotten cursor was called unknown: %v", got)
	}

	// Below the bound, an unknown cursor is still called.
	_, frames = run(t, "$INIT\n"+`> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"c-1"}}
> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c-9"}}`)
	if got := codes(frames); !contains(got, "unknown-cursor") {
		t.Errorf("an unknown cursor was not called: %v", got)
	}
}

// A server whose tool schemas change with every listing does not grow the
// judge's cache of compiled schemas past maxCachedSchemas.
func TestCompiledSchemaCacheIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("$INIT\n")
	for i := 1; i <= maxCachedSchemas+200; i++ {
		fmt.Fprintf(&b, "> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\"}\n", i)
		fmt.Fprintf(&b, "< {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\",\"description\":\"v%d\"}}]}}\n", i, i)
	}
	j, _ := run(t, b.String())
	if n := len(j.tools.cache); n == 0 || n > maxCachedSchemas {
		t.Errorf("%d schemas cached, want 1 to %d", n, maxCachedSchemas)
	}
}

// input_required answers never retried are forgotten past maxRounds; a
// retry of a forgotten one is then not called unsolicited.
func TestInputRequiredRoundsAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("$DISCOVER\n")
	const n = maxRounds + 10
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"w-%d\",$META}}\n", i, i)
		fmt.Fprintf(&b, "< {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"login\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"who?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}},\"requestState\":\"st-%d\"}}\n", i, i)
	}
	fmt.Fprintf(&b, "> {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"w-1\",\"inputResponses\":{\"login\":{\"action\":\"accept\",\"content\":{}}},\"requestState\":\"st-1\",$META}}\n", n+1)
	j, frames := run(t, b.String())
	if k := len(j.modern.rounds); k > maxRounds {
		t.Errorf("%d rounds kept, want at most %d", k, maxRounds)
	}
	got := codes(frames)
	for _, c := range []string{"unsolicited-request-state", "request-state-misused"} {
		if contains(got, c) {
			t.Errorf("the retry of a forgotten round was called %s", c)
		}
	}
}

// structuredContent and outputSchema came with 2025-06-18: a server that
// negotiated an earlier version is held to neither.
func TestStructuredContentRulesStartWith20250618(t *testing.T) {
	conv := expand("$INIT\n" + outputTool + `
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w"}}
< {"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"t":"hot"}}}
> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"w"}}
< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}]}}`)
	rules := []string{"structured-content-without-text", "structured-content-invalid", "structured-content-missing"}
	for _, v := range []string{V20241105, V20250326, V20250618, V20251125} {
		_, frames := run(t, strings.ReplaceAll(conv, V20251125, v))
		got := codes(frames)
		for _, r := range rules {
			if want := v >= V20250618; contains(got, r) != want {
				t.Errorf("%s: %s raised %v, want %v (all: %v)", v, r, contains(got, r), want, got)
			}
		}
	}
}

// A JSON-RPC batch is a foul in every version but 2025-03-26, whose base
// protocol has batches: there the framer's batch-array becomes a note that
// says the messages inside were not judged.
func TestBatchIsANoteOnlyIn20250326(t *testing.T) {
	for _, v := range []string{V20241105, V20250326, V20250618, V20251125} {
		j := New()
		j.SetEra(EraLegacy, v)
		f := wire.FramesOf([]byte(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}]`+"\n"), wire.Options{})[0]
		j.Frame(Input{Seq: 1, Dir: wire.ServerToClient, Frame: f})
		var sev wire.Severity
		found := false
		for _, fd := range f.Findings {
			if fd.Code == "batch-array" {
				sev, found = fd.Severity, true
			}
		}
		want := wire.SeverityError
		if v == V20250326 {
			want = wire.SeverityNote
		}
		if !found || sev != want {
			t.Errorf("%s: batch-array at severity %v, want %v", v, sev, want)
		}
	}
}

// 2025-11-25 made 2020-12 the dialect of a schema without $schema; before
// it, a draft-07 schema (an "items" array) is no foul, and is judged as
// draft-07.
func TestDraft07SchemaWithoutDialectBefore20251125(t *testing.T) {
	conv := expand("$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"number"}]}}}}]}}
> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"pair":[1,"a"]}}}`)
	for _, v := range []string{V20241105, V20250326, V20250618, V20251125} {
		_, frames := run(t, strings.ReplaceAll(conv, V20251125, v))
		got := codes(frames)
		if v == V20251125 {
			if !contains(got, "tool-schema-invalid") {
				t.Errorf("%s: an items array in a 2020-12 schema was not called: %v", v, got)
			}
			continue
		}
		if contains(got, "tool-schema-invalid") || !contains(got, "tool-arguments-invalid") {
			t.Errorf("%s: %v; want the schema taken as draft-07 and the arguments held to it", v, got)
		}
	}
}

// A server that echoes the version the client asked for does what the
// clause asks, even for a version linesman does not list (the prerelease
// 2024-10-07, which the TypeScript SDK still accepts); answering another
// version it cannot have a handshake in is still called.
func TestInitializeEchoOfTheAskedVersionIsNoFoul(t *testing.T) {
	init := strings.NewReplacer(`"protocolVersion":"2025-11-25","capabilities":{"roots"`, `"protocolVersion":"ASKED","capabilities":{"roots"`,
		`"protocolVersion":"2025-11-25","capabilities":{"tools"`, `"protocolVersion":"ANSWERED","capabilities":{"tools"`).Replace(initJSON)
	for _, tc := range []struct {
		asked, answered string
		called          bool
	}{
		{"2024-10-07", "2024-10-07", false},
		{"2025-06-18", "2025-03-26", false},
		{"2025-06-18", "2024-10-07", true},
		{"2025-06-18", "2025-09-30", true},
	} {
		conv := strings.NewReplacer("ASKED", tc.asked, "ANSWERED", tc.answered).Replace(init)
		_, frames := run(t, conv)
		if got := contains(codes(frames), "initialize-result-version-invalid"); got != tc.called {
			t.Errorf("asked %s, answered %s: called %v, want %v", tc.asked, tc.answered, got, tc.called)
		}
	}
}

// Before 2025-11-25 no clause names the characters of a tool name, but
// hosts refuse a name a model API cannot take: a note then, a warning
// from 2025-11-25; a name every version allows gets neither.
func TestToolNameBefore20251125IsANote(t *testing.T) {
	list := func(name string) string {
		return "$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"` + name + `","inputSchema":{"type":"object"}}]}}`
	}
	for _, tc := range []struct {
		version, name string
		want          wire.Severity
		called        bool
	}{
		{V20250618, "my tool!", wire.SeverityNote, true},
		{V20241105, "my tool!", wire.SeverityNote, true},
		{V20251125, "my tool!", wire.SeverityWarning, true},
		{V20250618, "db.query", 0, false},
		{V20250618, "get_weather", 0, false},
	} {
		_, frames := run(t, strings.ReplaceAll(expand(list(tc.name)), V20251125, tc.version))
		called := false
		for _, fr := range frames {
			for _, fd := range fr.frame.Findings {
				if fd.Code == "tool-name-invalid" {
					called = true
					if fd.Severity != tc.want {
						t.Errorf("%s %q: severity %v, want %v", tc.version, tc.name, fd.Severity, tc.want)
					}
				}
			}
		}
		if called != tc.called {
			t.Errorf("%s %q: called %v, want %v", tc.version, tc.name, called, tc.called)
		}
	}
}

// A tool name is judged in characters, not bytes: its length is counted
// in runes and the character it names is the one the server wrote, by
// its code point, never a byte of its UTF-8 taken for a Latin-1 letter;
// a control or bidirectional character is named by code point alone, so
// the message stays inert wherever it is shown.
func TestToolNameJudgedInCharacters(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		unwanted   []string
	}{
		{`caf\u00e9`, `contains 'é' (U+00E9);`, []string{"Ã"}},
		{`a\u009bb`, "contains U+009B;", []string{"Â", "\u009b"}},
		{`a\u202eb`, "contains U+202E;", []string{"\u202e"}},
		{`a\u0301`, "contains U+0301;", nil},
		{strings.Repeat("名", 50), "contains '名' (U+540D);", []string{"150"}},
		{strings.Repeat("名", 129), "it is 129 characters long", nil},
		{"a b", "contains a space;", nil},
		{"a\xffb", "contains the byte 0xFF, which is not UTF-8;", []string{"\xff"}},
	} {
		conv := "$INIT\n" + `> {"jsonrpc":"2.0","id":1,"method":"tools/list"}
< {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"` + tc.name + `","inputSchema":{"type":"object"}}]}}`
		var msgs []string
		_, frames := run(t, conv)
		for _, fr := range frames {
			for _, fd := range fr.frame.Findings {
				if fd.Code == "tool-name-invalid" {
					msgs = append(msgs, fd.Message)
				}
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: tool-name-invalid %q, want one saying %q", tc.name, msgs, tc.want)
			continue
		}
		for _, u := range tc.unwanted {
			if strings.Contains(msgs[0], u) {
				t.Errorf("%s: %q holds %q", tc.name, msgs[0], u)
			}
		}
	}
	// 50 CJK characters are within 1 to 128: only the charset is at fault.
	if why, _ := toolNameOK(strings.Repeat("名", 50)); strings.Contains(why, "long") {
		t.Errorf("50 CJK characters: %q", why)
	}
}
