package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return out
}

func TestClassify(t *testing.T) {
	tests := []struct {
		in      string
		kind    Kind
		id      ID
		idRaw   string
		method  string
		codes   string // sorted, comma-separated
		invalid string // substring of Message.Invalid
	}{
		// The four kinds.
		{in: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, kind: KindRequest, id: IntID(1), idRaw: "1", method: "tools/list"},
		{in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, kind: KindNotification, method: "notifications/initialized"},
		{in: `{"jsonrpc":"2.0","id":"a-1","result":{}}`, kind: KindResult, id: StringID("a-1"), idRaw: `"a-1"`},
		{in: `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}`, kind: KindError, id: IntID(7), idRaw: "7"},
		// Member order does not matter; whitespace is allowed.
		{in: ` { "method" : "ping" , "id" : 2 , "jsonrpc" : "2.0" } `, kind: KindRequest, id: IntID(2), idRaw: "2", method: "ping"},
		// Ids: 2 and "2" differ; spellings are kept; non-integers flagged.
		{in: `{"jsonrpc":"2.0","id":"2","result":{}}`, kind: KindResult, id: StringID("2"), idRaw: `"2"`},
		{in: `{"jsonrpc":"2.0","id":1.0,"result":{}}`, kind: KindResult, id: IntID(1), idRaw: "1.0", codes: "non-integer-id"},
		{in: `{"jsonrpc":"2.0","id":1e0,"result":{}}`, kind: KindResult, id: IntID(1), idRaw: "1e0", codes: "non-integer-id"},
		{in: `{"jsonrpc":"2.0","id":1.5,"result":{}}`, kind: KindResult, id: ID{Kind: IDOther, Str: "1.5"}, idRaw: "1.5", codes: "non-integer-id"},
		{in: `{"jsonrpc":"2.0","id":99999999999999999999,"result":{}}`, kind: KindResult, id: ID{Kind: IDOther, Str: "99999999999999999999"}, idRaw: "99999999999999999999", codes: "non-integer-id"},
		{in: `{"jsonrpc":"2.0","id":-3,"method":"x"}`, kind: KindRequest, id: IntID(-3), idRaw: "-3", method: "x"},
		{in: `{"jsonrpc":"2.0","id":"\u0032","result":{}}`, kind: KindResult, id: StringID("2"), idRaw: `"\u0032"`},
		{in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, kind: KindError, id: ID{Kind: IDNull}, idRaw: "null"},
		// Escaped keys and values are the same keys and values.
		{in: `{"jsonrpc":"2\u002e0","id":5,"method":"x"}`, kind: KindRequest, id: IntID(5), idRaw: "5", method: "x"},
		{in: `{"jsonrpc":"2.0","\u0069d":5,"method":"x"}`, kind: KindRequest, id: IntID(5), idRaw: "5", method: "x"},
		// invalid-jsonrpc: each rule says what broke.
		{in: `{"id":1,"method":"x"}`, kind: KindInvalid, id: IntID(1), idRaw: "1", method: "x", codes: "invalid-jsonrpc", invalid: `"jsonrpc" member is missing`},
		{in: `{"jsonrpc":"1.0","id":1,"method":"x"}`, kind: KindInvalid, id: IntID(1), idRaw: "1", method: "x", codes: "invalid-jsonrpc", invalid: `"jsonrpc" must be "2.0", got "1.0"`},
		{in: `{"jsonrpc":2.0,"id":1,"method":"x"}`, kind: KindInvalid, id: IntID(1), idRaw: "1", method: "x", codes: "invalid-jsonrpc", invalid: `got 2.0`},
		{in: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `not both`},
		{in: `{"jsonrpc":"2.0","id":null,"method":"x"}`, kind: KindInvalid, id: ID{Kind: IDNull}, idRaw: "null", method: "x", codes: "invalid-jsonrpc", invalid: `must not be null`},
		{in: `{"jsonrpc":"2.0","id":{},"method":"x"}`, kind: KindInvalid, id: ID{Kind: IDOther, Str: "{}"}, idRaw: "{}", method: "x", codes: "invalid-jsonrpc", invalid: `"id" must be a string or an integer, got an object`},
		{in: `{"jsonrpc":"2.0","id":1,"method":3}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `"method" must be a string, got a number`},
		{in: `{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}`, kind: KindInvalid, id: IntID(1), idRaw: "1", method: "x", codes: "invalid-jsonrpc", invalid: `"params" must be an object or an array, got a string`},
		{in: `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, kind: KindInvalid, id: IntID(1), idRaw: "1", method: "x", codes: "invalid-jsonrpc", invalid: `must not also carry "result"`},
		{in: `{"jsonrpc":"2.0","result":{}}`, kind: KindInvalid, codes: "invalid-jsonrpc", invalid: `a response must have an "id"`},
		{in: `{"jsonrpc":"2.0","id":null,"result":{}}`, kind: KindInvalid, id: ID{Kind: IDNull}, idRaw: "null", codes: "invalid-jsonrpc", invalid: `a result's "id" must not be null`},
		{in: `{"jsonrpc":"2.0","id":1,"error":"bad"}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `"error" must be an object, got a string`},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `"error" has no "code"`},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `"error.code" must be an integer`},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `"error" has no "message"`},
		{in: `{"jsonrpc":"2.0","id":1}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `neither a request, a notification nor a response`},
		{in: `{"jsonrpc":"2.0","id":1,"result":{"resultType":3}}`, kind: KindInvalid, id: IntID(1), idRaw: "1", codes: "invalid-jsonrpc", invalid: `"result.resultType" must be a string`},
		{in: `"hello"`, kind: KindInvalid, codes: "invalid-jsonrpc", invalid: "must be an object, got a string"},
		{in: `42`, kind: KindInvalid, codes: "invalid-jsonrpc", invalid: "must be an object, got a number"},
		// Batches, duplicates.
		{in: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, kind: KindInvalid, codes: "batch-array", invalid: "batch"},
		{in: `{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`, kind: KindRequest, id: IntID(2), idRaw: "2", method: "x", codes: "duplicate-key"},
		{in: `{"jsonrpc":"2.0","id":1,"i\u0064":2,"method":"x"}`, kind: KindRequest, id: IntID(2), idRaw: "2", method: "x", codes: "duplicate-key"},
		// Text-level findings.
		{in: "\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"method\":\"x\"}", kind: KindNotification, method: "x", codes: "utf8-bom"},
		{in: "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\xff\"}}", kind: KindNotification, method: "x", codes: "invalid-utf8"},
		{in: "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":\"\x7f\"}}", kind: KindNotification, method: "x", codes: "control-characters"},
		{in: "hello", kind: KindNonJSON, codes: "non-json-line"},
		{in: "\x1b[31mERROR\x1b[0m", kind: KindNonJSON, codes: "control-characters,non-json-line"},
		{in: "caf\xe9", kind: KindNonJSON, codes: "invalid-utf8,non-json-line"},
		{in: `{"jsonrpc":"2.0"} {"jsonrpc":"2.0"}`, kind: KindNonJSON, codes: "non-json-line"},
		{in: `{"jsonrpc":"2.0",`, kind: KindNonJSON, codes: "non-json-line"},
		{in: "{\"a\":\"line\nbreak\"}", kind: KindNonJSON, codes: "non-json-line"},
		{in: "  \t", kind: KindNonJSON, codes: "blank-line"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, fs := Classify([]byte(tt.in))
			if m.Kind != tt.kind || m.ID != tt.id || m.IDRaw != tt.idRaw || m.Method != tt.method {
				t.Errorf("got kind=%v id=%#v raw=%q method=%q, want kind=%v id=%#v raw=%q method=%q (invalid: %s)",
					m.Kind, m.ID, m.IDRaw, m.Method, tt.kind, tt.id, tt.idRaw, tt.method, m.Invalid())
			}
			if got := strings.Join(codes(fs), ","); got != tt.codes {
				t.Errorf("findings %q, want %q: %v", got, tt.codes, fs)
			}
			if !strings.Contains(m.Invalid(), tt.invalid) || (tt.invalid == "") != (m.Invalid() == "") {
				t.Errorf("Invalid = %q, want it to contain %q", m.Invalid(), tt.invalid)
			}
			for _, f := range fs {
				if f.Message == "" || f.Severity == 0 {
					t.Errorf("finding without message or severity: %+v", f)
				}
			}
		})
	}
}

func TestClassifyMembers(t *testing.T) {
	m, _ := Classify([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{"progressToken":"no"},"_meta":{"progressToken":"tok-9"}}}`))
	if m.ProgressToken() != StringID("tok-9") {
		t.Errorf("request progress token = %#v", m.ProgressToken())
	}
	m, _ = Classify([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":4,"progress":2.5,"total":10,"message":"half \"way\""}}`))
	if m.ProgressToken() != IntID(4) || m.Progress() != 2.5 || !m.HasTotal() || m.Total() != 10 || m.ProgressMessage() != `half "way"` {
		t.Errorf("progress = %+v", m)
	}
	m, _ = Classify([]byte(`{"params":{"requestId":"7","reason":"user"},"method":"notifications/cancelled","jsonrpc":"2.0"}`))
	if m.RequestID() != StringID("7") {
		t.Errorf("cancelled requestId = %#v", m.RequestID())
	}
	m, _ = Classify([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"input_required"}}`))
	if !m.HasResultType || m.ResultType != "input_required" {
		t.Errorf("resultType = %q %v", m.ResultType, m.HasResultType)
	}
	m, _ = Classify([]byte(`{"jsonrpc":"2.0","id":1,"result":{"nested":{"resultType":"x"}}}`))
	if m.HasResultType {
		t.Errorf("a nested resultType was taken for result.resultType")
	}
	m, _ = Classify([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"]}}}`))
	if m.ErrorCode() != -32022 || m.ErrorMessage() != "Unsupported protocol version" {
		t.Errorf("error = %d %q", m.ErrorCode(), m.ErrorMessage())
	}
	m, _ = Classify([]byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"\ud83d\ude00 \u00e9\n"}}`))
	if m.Kind != KindResult {
		t.Errorf("escapes: %v", m.Kind)
	}
}

// TestClassifyAgreesWithEncodingJSON checks that the hand-written scanner
// accepts exactly what encoding/json accepts.
func TestClassifyAgreesWithEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`, `[]`, `{"a":[1,2,{"b":null}]}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`,
		`{"a":1e}`, `{"a":1e+}`, `{"a":1E-7}`, `{"a":-0}`, `{"a":tru}`, `{"a":truex}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`,
		`{"a":"\t"}`, "{\"a\":\"\t\"}", `{"a":"é"}`, `{'a':1}`, `{a:1}`, `{"a":NaN}`, `{"a":Infinity}`, `nul`, `null`, `true`, `"x"`,
		`{"a":[}`, `{"a":]}`, `[[[]]]`, `[[[]]`, `{"a":{"b":{}}}}`, " \r\n\t{}\r\n", `{"a":"\/"}`, `0`, `-0.0e-0`, `01`, `1 2`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	}
	for _, in := range inputs {
		c := classify([]byte(in), false, new(Message), nil)
		isJSON := c.st == statusJSON
		if isJSON != json.Valid([]byte(in)) && c.st != statusEmpty {
			t.Errorf("%.40q: classify says JSON=%v, encoding/json says %v", in, isJSON, !isJSON)
		}
	}
}

func ExampleClassify() {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"p1"}}}`,
		`{"jsonrpc":"2.0","id":"2","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"1.0","method":"ping"}`,
		`Server listening on stdio`,
	} {
		m, findings := Classify([]byte(line))
		fmt.Printf("%-12s id=%-4s method=%q token=%s\n", m.Kind, m.IDRaw, m.Method, m.ProgressToken())
		for _, f := range findings {
			fmt.Printf("  %s %s: %s\n", f.Severity, f.Code, f.Message)
		}
	}
	// Output:
	// request      id=2    method="tools/call" token="p1"
	// result       id="2"  method="" token=
	// result       id=1.0  method="" token=
	//   warning non-integer-id: id 1.0 is an integer spelled as a decimal or exponent; read as 1
	// invalid      id=     method="ping" token=
	//   error invalid-jsonrpc: "jsonrpc" must be "2.0", got "1.0"
	// non-json     id=     method="" token=
	//   error non-json-line: not JSON: unexpected 'S' at byte 0
}

func TestStop8MatchesTable(t *testing.T) {
	// Every byte value at every position, with and without a second
	// stopping byte after it: the mask's lowest bit must find the first.
	for pos := range 8 {
		for c := range 256 {
			for _, later := range []int{-1, 0x00, '"', 0xff} {
				b := []byte("abcdefgh")
				b[pos] = byte(c)
				if later >= 0 && pos < 7 {
					b[7] = byte(later)
				}
				want := 8
				for i, x := range b {
					if !plain[x] {
						want = i
						break
					}
				}
				got := 8
				if m := stop8(binary.LittleEndian.Uint64(b)); m != 0 {
					got = bits.TrailingZeros64(m) >> 3
				}
				if got != want {
					t.Fatalf("%q: first special byte at %d, want %d", b, got, want)
				}
			}
		}
	}
}

func TestClassifyManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}`)
	for i := range 40 {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString(`,"k3":0,"\u006b7":1}`)
	m, fs := Classify([]byte(b.String()))
	if m.Kind != KindResult || len(fs) != 1 || fs[0].Code != "duplicate-key" || !strings.Contains(fs[0].Message, `"k3", "k7"`) {
		t.Fatalf("got %v %v", m.Kind, fs)
	}
}

func TestFirstInvalidMatchesUTF8(t *testing.T) {
	var cases [][]byte
	for c := range 256 {
		for _, tail := range []string{"", "\x80", "\xbf", "\x80\x80", "\xa0\x80", "\x9f\xbf", "\x90\x80\x80", "\x8f\xbf\xbf", "\xc0\x80\x80", "a"} {
			cases = append(cases, []byte(string([]byte{byte(c)})+tail))
			cases = append(cases, []byte("0123456789"+string([]byte{byte(c)})+tail+"xyz"))
		}
	}
	cases = append(cases, []byte("plain ascii, long enough for words"), []byte("über café ✓ naïve 😀 end"), []byte("ok\xed\xa0\x80surrogate"))
	for _, b := range cases {
		want := -1
		if !utf8.Valid(b) {
			for at := 0; at < len(b); {
				r, n := utf8.DecodeRune(b[at:])
				if r == utf8.RuneError && n == 1 {
					want = at
					break
				}
				at += n
			}
		}
		if got := firstInvalid(b); got != want {
			t.Fatalf("%q: firstInvalid = %d, want %d", b, got, want)
		}
		// The string scanner finds the same byte inside a JSON string.
		if bytes.ContainsAny(b, "\"\\") || bytes.ContainsFunc(b, func(r rune) bool { return r < 0x20 }) {
			continue
		}
		prefix := `{"jsonrpc":"2.0","method":"x","params":{"s":"`
		text := append(append([]byte(prefix), b...), `"}}`...)
		s := scanner{s: text}
		if !s.value() {
			t.Fatalf("%q: not JSON", text)
		}
		if got := s.badUTF8 - 1 - len(prefix); (want < 0 && s.badUTF8 != 0) || (want >= 0 && got != want) {
			t.Fatalf("%q: scanner found invalid UTF-8 at %d, want %d", b, got, want)
		}
	}
}
