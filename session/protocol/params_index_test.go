package protocol

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"linesman/wire"
)

// paramsTexts are messages whose params a judge indexes: every shape the
// classifier's index must give back as the judge's own scan does.
var paramsTexts = []string{
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"l","data":"` + strings.Repeat("x", 900) + `"}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"nope","data":{"a":[1,2,{"b":"}"}]}}}`,
	`  {"jsonrpc":"2.0","method":"notifications/message","params":{ "level" : "info" , "data" : null }}`,
	"\xEF\xBB\xBF" + `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":"x","message":2}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1e3,"_meta":{"progressToken":2}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"r"}}`,
	`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":5}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{ }}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":[1,2]}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":"s"}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1},"params":{"level":"bad"}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","level":"bad","data":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","para\u006ds":{"lev\u0065l":"info","data":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"level":"info","data":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"level":"x","data":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","bad key":1},"level":"info","data":1}}`,
	`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"traceparent":"00-x"}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1},"_meta":{"progressToken":"p"}}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":"no name","task":{}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///x","extra":[{"\"":"\\"}]}}`,
	`{"jsonrpc":"2.0","id":6,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":"1"}}`,
}

// framed returns the frames of text (one line each) as a Framer reads
// them, with the index of each frame's params the Framer made, if any.
func framed(text string) (frames []*wire.Frame, params []*wire.ParamsIndex) {
	fr := wire.NewFramer(strings.NewReader(text), wire.Options{})
	for {
		f, err := fr.Next()
		if err != nil {
			return frames, params
		}
		var x *wire.ParamsIndex
		if p := fr.Params(f); p != nil {
			c := *p
			x = &c
		}
		frames, params = append(frames, f), append(params, x)
	}
}

// The judge's index of a frame's params built from the classifier's is
// the one its own scan builds: the same members, in order, the same bytes.
func TestParamsIndexIsTheJudgesOwn(t *testing.T) {
	indexed := 0
	frames, params := framed(strings.Join(paramsTexts, "\n") + "\n")
	for i, f := range frames {
		if params[i] != nil {
			indexed++
			if err := sameIndex(f, params[i]); err != nil {
				t.Error(err)
			}
		}
	}
	if indexed < len(paramsTexts)-6 {
		t.Fatalf("only %d of %d frames came with an index", indexed, len(paramsTexts))
	}
}

// FuzzParamsIndex holds the classifier's index of any line's params to the
// judge's own scan of them.
func FuzzParamsIndex(f *testing.F) {
	for _, p := range paramsTexts {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, text string) {
		frames, params := framed(text)
		for i, fr := range frames {
			if params[i] != nil {
				if err := sameIndex(fr, params[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// sameIndex compares the judge's index of f's params made from x with the
// one its own scan makes.
func sameIndex(f *wire.Frame, x *wire.ParamsIndex) error {
	msg := body(f)
	var own obj
	own.scan(msg.open("params"))
	given := *New().indexParams(Input{Frame: f, Params: x}, msg)
	if own.n != given.n || own.full != given.full || !bytes.Equal(own.raw, given.raw) || fmt.Sprint(own.ms[:own.n]) != fmt.Sprint(given.ms[:given.n]) {
		return fmt.Errorf("%q:\nown   %+v %q\ngiven %+v %q", f.Lines[0].Content, own.ms[:own.n], own.raw, given.ms[:given.n], given.raw)
	}
	return nil
}

// A conversation judged with the classifier's indexes and judged without
// them raises the same findings on every frame.
func TestParamsIndexSameFindings(t *testing.T) {
	var text strings.Builder
	for round := range 2 {
		for _, p := range paramsTexts {
			text.WriteString(p + "\n")
		}
		if round == 0 {
			text.WriteString(`{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
		}
	}
	with, params := framed(text.String())
	without, _ := framed(text.String())
	jw, jo := New(), New()
	for i := range with {
		dir := wire.ServerToClient
		if with[i].Msg.Kind == wire.KindRequest {
			dir = wire.ClientToServer
		}
		jw.Frame(Input{Seq: uint64(i + 1), Dir: dir, Frame: with[i], Params: params[i]})
		jo.Frame(Input{Seq: uint64(i + 1), Dir: dir, Frame: without[i]})
		if a, b := fmt.Sprint(with[i].Findings), fmt.Sprint(without[i].Findings); a != b {
			t.Errorf("frame %d %s:\nwith the index    %s\nwithout the index %s", i+1, with[i].Lines[0].Content, a, b)
		}
	}
}
