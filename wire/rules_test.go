package wire

import (
	"strings"
	"testing"
)

// Each rule alone, on members set by hand: what it says is wrong (or
// nothing), whole or on the prefix of a truncated frame.

func TestVersionRule(t *testing.T) {
	for _, tc := range []struct {
		top     top
		partial bool
		bad     string
	}{
		{top{hasJSONRPC: true, jsonrpc: []byte(`"2.0"`)}, false, ""},
		{top{hasJSONRPC: true, jsonrpc: []byte(`"2\u002e0"`)}, false, ""},
		{top{hasJSONRPC: true, jsonrpc: []byte(`2.0`)}, false, `"jsonrpc" must be "2.0", got 2.0`},
		{top{}, false, `the "jsonrpc" member is missing`},
		{top{}, true, ""},
	} {
		v := verdict{partial: tc.partial}
		tc.top.versionRule(&v)
		checkVerdict(t, "versionRule", tc.top.jsonrpc, v, tc.bad)
	}
}

func TestIDRule(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		id   ID
		bad  string
		note string // the non-integer-id finding's text
	}{
		{`7`, IntID(7), "", ""},
		{`"x"`, StringID("x"), "", ""},
		{`1.0`, IntID(1), "", "integer spelled as a decimal"},
		{`1.5`, ID{Kind: IDOther, Str: "1.5"}, "", "is not an integer"},
		{`true`, ID{Kind: IDOther, Str: "true"}, `"id" must be a string or an integer, got a boolean`, ""},
	} {
		tp := top{hasID: true, id: []byte(tc.raw)}
		var c classified
		var m Message
		var v verdict
		tp.idRule(&c, &m, &v)
		checkVerdict(t, "idRule", tc.raw, v, tc.bad)
		if m.ID != tc.id || m.IDRaw != tc.raw {
			t.Errorf("idRule(%s): id %v raw %q, want %v", tc.raw, m.ID, m.IDRaw, tc.id)
		}
		if got := len(c.finds) == 1 && strings.Contains(c.finds[0].Message, tc.note); got != (tc.note != "") {
			t.Errorf("idRule(%s): findings %v, want one saying %q", tc.raw, c.finds, tc.note)
		}
	}
}

func TestKindRule(t *testing.T) {
	nullID := Message{ID: ID{Kind: IDNull}}
	for _, tc := range []struct {
		name    string
		top     top
		m       Message // the id as idRule left it
		partial bool
		kind    Kind
		bad     string
	}{
		{"request", top{hasMethod: true, methodType: '"', hasID: true}, Message{}, false, KindRequest, ""},
		{"notification", top{hasMethod: true, methodType: '"'}, Message{}, false, KindNotification, ""},
		{"request with null id", top{hasMethod: true, methodType: '"', hasID: true}, nullID, false, KindRequest, `a request's "id" must not be null`},
		{"method not a string", top{hasMethod: true, methodType: '1', hasID: true}, Message{}, false, KindRequest, `"method" must be a string, got a number`},
		{"method and result", top{hasMethod: true, methodType: '"', hasResult: true}, Message{}, false, KindNotification, `must not also carry "result" or "error"`},
		{"params a string", top{hasMethod: true, methodType: '"', hasParams: true, paramsType: '"'}, Message{}, false, KindNotification, `"params" must be an object or an array, got a string`},
		{"result", top{hasResult: true, hasID: true}, Message{}, false, KindResult, ""},
		{"result without id", top{hasResult: true}, Message{}, false, KindResult, `a response must have an "id"`},
		{"result without id, cut off", top{hasResult: true}, Message{}, true, KindResult, ""},
		{"result with null id", top{hasResult: true, hasID: true}, nullID, false, KindResult, `a result's "id" must not be null`},
		{"result and error", top{hasResult: true, hasError: true, hasID: true}, Message{}, false, KindResult, `either "result" or "error", not both`},
		{"error", top{hasError: true, errorType: '{', hasID: true, hasCode: true, code: []byte("-1"), hasErrMsg: true, errMsgType: '"'}, nullID, false, KindError, ""},
		{"error without id", top{hasError: true, errorType: '{', hasCode: true, code: []byte("-1"), hasErrMsg: true, errMsgType: '"'}, Message{}, false, KindError, `a response must have an "id" (null only`},
		{"none", top{hasID: true}, Message{}, false, KindNonJSON, `no "method", "result" or "error"`},
		{"none, cut off", top{hasID: true}, Message{}, true, KindNonJSON, ""},
	} {
		v := verdict{partial: tc.partial}
		m := tc.m
		tc.top.kindRule(&m, &v)
		checkVerdict(t, "kindRule", tc.name, v, tc.bad)
		if m.Kind != tc.kind {
			t.Errorf("kindRule(%s): kind %v, want %v", tc.name, m.Kind, tc.kind)
		}
	}
}

func TestErrorRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		top     top
		partial bool
		code    int64
		msg     string
		bad     string
	}{
		{"whole", top{errorType: '{', hasCode: true, code: []byte("-32601"), hasErrMsg: true, errMsgType: '"', errMsg: "no"}, false, -32601, "no", ""},
		{"code as decimal", top{errorType: '{', hasCode: true, code: []byte("-32601.0"), hasErrMsg: true, errMsgType: '"'}, false, -32601, "", ""},
		{"not an object", top{errorType: '"'}, false, 0, "", `"error" must be an object, got a string`},
		{"no code", top{errorType: '{', hasErrMsg: true, errMsgType: '"'}, false, 0, "", `"error" has no "code"`},
		{"no code, cut off", top{errorType: '{', hasErrMsg: true, errMsgType: '"'}, true, 0, "", ""},
		{"code not an integer", top{errorType: '{', hasCode: true, code: []byte(`"x"`), hasErrMsg: true, errMsgType: '"'}, false, 0, "", `"error.code" must be an integer, got "x"`},
		{"no message", top{errorType: '{', hasCode: true, code: []byte("1")}, false, 1, "", `"error" has no "message"`},
		{"message not a string", top{errorType: '{', hasCode: true, code: []byte("1"), hasErrMsg: true, errMsgType: 'n'}, false, 1, "", `"error.message" must be a string, got null`},
	} {
		v := verdict{partial: tc.partial}
		var m Message
		tc.top.errorRule(&m, &v)
		checkVerdict(t, "errorRule", tc.name, v, tc.bad)
		if m.ErrorCode() != tc.code || m.ErrorMessage() != tc.msg {
			t.Errorf("errorRule(%s): code %d message %q, want %d %q", tc.name, m.ErrorCode(), m.ErrorMessage(), tc.code, tc.msg)
		}
	}
}

func TestResultTypeRule(t *testing.T) {
	for _, tc := range []struct {
		top  top
		has  bool
		want string
		bad  string
	}{
		{top{}, false, "", ""},
		{top{hasResultType: true, resultType: "complete"}, true, "complete", ""},
		{top{hasResultType: true, resultTypeBad: '{'}, true, "", `"result.resultType" must be a string, got an object`},
	} {
		var v verdict
		var m Message
		tc.top.resultTypeRule(&m, &v)
		checkVerdict(t, "resultTypeRule", tc.want, v, tc.bad)
		if m.HasResultType != tc.has || m.ResultType != tc.want {
			t.Errorf("resultTypeRule: %v %q, want %v %q", m.HasResultType, m.ResultType, tc.has, tc.want)
		}
	}
}

// checkVerdict: v holds exactly one complaint containing bad, or none when
// bad is empty.
func checkVerdict(t *testing.T, rule string, of any, v verdict, bad string) {
	t.Helper()
	if bad == "" && len(v.bad) != 0 || bad != "" && (len(v.bad) != 1 || !strings.Contains(v.bad[0], bad)) {
		t.Errorf("%s(%s): %q, want %q", rule, of, v.bad, bad)
	}
}
