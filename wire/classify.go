package wire

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// status is what a text turned out to be, before JSON-RPC rules.
type status uint8

const (
	statusJSON   status = iota // exactly one JSON value
	statusPrefix               // ends inside a value that could still be completed
	statusBad                  // not JSON, and no continuation can make it JSON
	statusEmpty                // only whitespace
)

// classified is the full result of classify; Classify exposes part of it.
type classified struct {
	finds []Finding
	st    status
	// rpcObject: a complete top-level object with a "jsonrpc" member. Such a
	// line is a message in its own right even while reassembly is pending.
	rpcObject bool
	// noCR: the text is JSON with no raw '\r' (strings cannot hold one, and
	// the scan saw none between tokens), so the Framer need not look again.
	noCR bool
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Classify classifies one JSON text (a line, or the joined lines of a
// multi-line frame) in one pass over its bytes: whether it is JSON, which
// JSON-RPC 2.0 message it is, the members an inspector needs, and the
// findings about the text itself (non-json-line, invalid-jsonrpc,
// batch-array, duplicate-key, non-integer-id, invalid-utf8,
// control-characters, utf8-bom; blank-line for whitespace only). Findings
// about line ends and sizes are the Framer's.
func Classify(text []byte) (Message, []Finding) {
	var m Message
	c := classify(text, false, &m)
	return m, c.finds
}

// classify classifies text into *m (which it overwrites): the Framer has it
// written straight into the frame it will return, not copied there.
// Long by design: the one pass over a line that every frame goes through,
// kept whole so that the hot path makes no extra calls.
func classify(text []byte, truncated bool, m *Message) (c classified) {
	*m = Message{}
	body := text
	off := 0
	if bytes.HasPrefix(body, bom) {
		c.finds = append(c.finds, NewFinding("utf8-bom", "the frame starts with a UTF-8 byte order mark (EF BB BF)"))
		body = body[3:]
		off = 3
	}
	s := scanner{s: body}
	s.ws()
	if s.i == len(body) {
		c.st = statusEmpty
		c.finds = append(c.finds, NewFinding("blank-line", "an empty line on the wire"))
		return c
	}
	var t top
	var ok bool
	if body[s.i] == '{' {
		t.object(&s)
		ok = t.done
	} else {
		ok = s.value()
	}
	trailing := false
	if ok {
		s.ws()
		if s.i < len(body) {
			trailing = true
			s.fail(errSyntax)
		}
	}
	switch {
	case s.err == errNone:
		c.st = statusJSON
		c.noCR = !s.cr
	case s.err == errEOF:
		c.st = statusPrefix
	default:
		c.st = statusBad
	}

	if c.st == statusJSON || (truncated && c.st == statusPrefix) {
		if s.badUTF8 != 0 {
			c.finds = append(c.finds, NewFinding("invalid-utf8", fmt.Sprintf("invalid UTF-8 in a string at byte %d", off+s.badUTF8-1)))
		}
		// DEL is legal inside a JSON string, and outside one it is a syntax
		// error, so one search of the whole text finds those in strings.
		if j := bytes.IndexByte(body, 0x7f); j >= 0 {
			c.finds = append(c.finds, NewFinding("control-characters", fmt.Sprintf("a raw DEL byte (0x7f) in a string at byte %d", off+j)))
		}
		first := body[skipWS(body)]
		switch {
		case first == '{':
			t.judge(&c, m, c.st == statusPrefix)
		case first == '[':
			m.Kind = KindInvalid
			m.Invalid = "a batch: a JSON array of messages instead of one message"
			c.finds = append(c.finds, NewFinding("batch-array", "the frame is a JSON array (a JSON-RPC batch); batches were removed in MCP 2025-06-18"))
		default:
			m.Kind = KindInvalid
			m.Invalid = "a JSON-RPC message must be an object, got " + typeName(first)
			c.finds = append(c.finds, NewFinding("invalid-jsonrpc", m.Invalid))
		}
		return c
	}

	// Not JSON (or a prefix that was not completed).
	var why string
	switch s.err {
	case errEOF:
		why = "not JSON: the text ends in the middle of a value"
	case errDepth:
		why = fmt.Sprintf("not JSON: nested deeper than %d levels", maxDepth)
		if t.hasID {
			m.DeepID, _, _ = parseID(t.id)
		}
	default:
		if trailing {
			why = fmt.Sprintf("not JSON: a complete value followed by more text at byte %d", off+s.at)
			if body[s.at] == '{' || body[s.at] == '[' {
				why += " (two messages on one line: a newline is missing between them)"
			}
		} else {
			why = fmt.Sprintf("not JSON: unexpected %s at byte %d", quoteByte(body, s.at), off+s.at)
		}
	}
	c.finds = append(c.finds, NewFinding("non-json-line", why))
	c.finds = append(c.finds, textFindings(body, off)...)
	return c
}

// textFindings reports invalid UTF-8 and control bytes (other than tab, CR
// and LF, which the Framer judges by position) anywhere in a text that is
// not JSON.
func textFindings(b []byte, off int) []Finding {
	var out []Finding
	for i, c := range b {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
			msg := fmt.Sprintf("raw control byte 0x%02x at byte %d", c, off+i)
			if c == 0x1b {
				msg += " (ESC: a terminal escape sequence, such as a coloured log line)"
			}
			out = append(out, NewFinding("control-characters", msg))
			break
		}
	}
	if at := firstInvalid(b); at >= 0 {
		out = append(out, NewFinding("invalid-utf8", fmt.Sprintf("invalid UTF-8 at byte %d", off+at)))
	}
	return out
}

func skipWS(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return len(b)
}

func quoteByte(b []byte, at int) string {
	if at >= len(b) {
		return "end of text"
	}
	c := b[at]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func typeName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// top collects the top-level members of a message as the scan passes them.
type top struct {
	done bool // the top-level object was closed

	hasJSONRPC bool
	jsonrpc    []byte // raw value

	hasID bool
	id    []byte // raw value

	hasMethod  bool
	method     string
	methodType byte

	hasParams  bool
	paramsType byte

	hasResult     bool
	resultType    string
	hasResultType bool
	resultTypeBad byte

	hasError    bool
	errorType   byte
	hasCode     bool
	code        []byte
	hasErrMsg   bool
	errMsg      string
	errMsgType  byte
	metaToken   []byte
	paramToken  []byte
	progress    []byte
	total       []byte
	progressMsg string
	hasProgMsg  bool
	requestID   []byte
	keyBuf      [16]keyRef
	nkeys       int
	keySet      map[string]struct{}
	dups        []string
}

// rawValue scans a value and returns its exact text.
func rawValue(s *scanner) ([]byte, bool) {
	start := s.i
	if !s.value() {
		return nil, false
	}
	return s.s[start:s.i], true
}

// object collects the members of the top-level object, one case per
// member JSON-RPC knows. Long by design: the switch is the list of members.
func (t *top) object(s *scanner) {
	ok := s.members(func(key []byte) bool {
		t.noteKey(s)
		c := s.s[s.i]
		switch string(key) {
		// A member counts as present only once its value has been scanned
		// whole: the prefix of a truncated frame may end inside it.
		case "jsonrpc":
			v, ok := rawValue(s)
			t.hasJSONRPC, t.jsonrpc = ok, v
			return ok
		case "id":
			v, ok := rawValue(s)
			t.hasID, t.id = ok, v
			return ok
		case "method":
			t.methodType, t.method = c, ""
			if c == '"' {
				start := s.i
				end, esc, ok := s.str()
				if ok {
					t.hasMethod = true
					if t.method = knownMethod(s.s[start+1 : end-1]); t.method == "" || esc {
						t.method = s.s2str(start, end, esc)
					}
				}
				return ok
			}
			t.hasMethod = s.value()
			return t.hasMethod
		// For a repeated member the last one wins, as in encoding/json and
		// JavaScript: what the members hold is reset each time.
		case "params":
			t.hasParams = true
			t.paramsType = c
			t.metaToken, t.paramToken, t.progress, t.total, t.requestID = nil, nil, nil, nil, nil
			t.progressMsg, t.hasProgMsg = "", false
			if c == '{' {
				return t.params(s)
			}
			return s.value()
		case "result":
			t.hasResult = true
			t.hasResultType, t.resultType, t.resultTypeBad = false, "", 0
			if c == '{' {
				return s.members(func(key []byte) bool {
					if string(key) == "resultType" {
						if s.s[s.i] == '"' {
							v, ok := s.strValue()
							t.hasResultType, t.resultType = ok, v
							return ok
						}
						t.hasResultType = true
						t.resultTypeBad = s.s[s.i]
					}
					return s.value()
				})
			}
			return s.value()
		case "error":
			t.hasError = true
			t.errorType = c
			t.hasCode, t.code, t.hasErrMsg, t.errMsg, t.errMsgType = false, nil, false, "", 0
			if c == '{' {
				return s.members(func(key []byte) bool {
					switch string(key) {
					case "code":
						v, ok := rawValue(s)
						t.hasCode, t.code = ok, v
						return ok
					case "message":
						t.errMsgType = s.s[s.i]
						if s.s[s.i] == '"' {
							v, ok := s.strValue()
							t.hasErrMsg, t.errMsg = ok, v
							return ok
						}
						t.hasErrMsg = true
					}
					return s.value()
				})
			}
			return s.value()
		}
		return s.value()
	})
	t.done = ok
}

func (t *top) params(s *scanner) bool {
	return s.members(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "_meta":
			t.metaToken = nil
			if s.s[s.i] == '{' {
				return s.members(func(key []byte) bool {
					if string(key) == "progressToken" {
						t.metaToken, ok = rawValue(s)
						return ok
					}
					return s.value()
				})
			}
		case "progressToken":
			t.paramToken, ok = rawValue(s)
			return ok
		case "progress":
			t.progress, ok = rawValue(s)
			return ok
		case "total":
			t.total, ok = rawValue(s)
			return ok
		case "message":
			if s.s[s.i] == '"' {
				t.hasProgMsg = true
				t.progressMsg, ok = s.strValue()
				return ok
			}
		case "requestId":
			t.requestID, ok = rawValue(s)
			return ok
		}
		return s.value()
	})
}

// keyRef locates a key's body (between the quotes) in the text. Offsets
// rather than slices keep top free of pointers into itself, so that it
// stays on the stack.
type keyRef struct {
	start, end int
	esc        bool
}

func (k keyRef) text(s []byte) []byte {
	if k.esc {
		return []byte(unescape(s[k.start:k.end]))
	}
	return s[k.start:k.end]
}

// noteKey records the top-level key just scanned and remembers duplicates.
// A handful of keys is the norm, so a linear search is fastest; a map takes
// over for objects with many keys so that a hostile line cannot make this
// quadratic.
func (t *top) noteKey(s *scanner) {
	k := s.key
	if t.keySet != nil {
		key := k.text(s.s)
		if _, ok := t.keySet[string(key)]; ok {
			t.dup(key)
			return
		}
		t.keySet[string(key)] = struct{}{}
		return
	}
	raw := s.s[k.start:k.end]
	for _, o := range t.keyBuf[:t.nkeys] {
		var same bool
		if !k.esc && !o.esc {
			same = bytes.Equal(s.s[o.start:o.end], raw)
		} else {
			same = bytes.Equal(o.text(s.s), k.text(s.s))
		}
		if same {
			t.dup(k.text(s.s))
			return
		}
	}
	if t.nkeys < len(t.keyBuf) {
		t.keyBuf[t.nkeys] = k
		t.nkeys++
		return
	}
	t.keySet = make(map[string]struct{}, 64)
	for _, o := range t.keyBuf {
		t.keySet[string(o.text(s.s))] = struct{}{}
	}
	t.keySet[string(k.text(s.s))] = struct{}{}
}

func (t *top) dup(key []byte) {
	for _, d := range t.dups {
		if d == string(key) {
			return
		}
	}
	if len(t.dups) < 16 {
		t.dups = append(t.dups, string(key))
	}
}

// judge applies the JSON-RPC 2.0 (and MCP) rules to the collected members
// and fills the message. partial is set for the prefix of a truncated frame:
// members may be missing only because they were cut off, so no rule about a
// missing member is applied.
//
// Long by design: the rules, one after the other in the order a reader of
// the specification checks them; each is a few lines.
func (t *top) judge(c *classified, m *Message, partial bool) {
	c.rpcObject = t.hasJSONRPC && !partial
	var bad []string
	badf := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }

	if !t.hasJSONRPC {
		if !partial {
			badf(`the "jsonrpc" member is missing (it must be "2.0")`)
		}
	} else if string(t.jsonrpc) != `"2.0"` && !(t.jsonrpc[0] == '"' && unescape(t.jsonrpc[1:len(t.jsonrpc)-1]) == "2.0") {
		badf(`"jsonrpc" must be "2.0", got %s`, clip(t.jsonrpc))
	}

	if t.hasID {
		m.IDRaw = string(t.id)
		id, note, ok := parseID(t.id)
		m.ID = id
		if !ok {
			badf(`"id" must be a string or an integer, got %s`, typeName(t.id[0]))
		} else if note != "" {
			c.finds = append(c.finds, NewFinding("non-integer-id", note))
		}
	}
	if t.hasMethod {
		m.Method = t.method
	}

	switch {
	case t.hasMethod:
		if t.methodType != '"' {
			badf(`"method" must be a string, got %s`, typeName(t.methodType))
		}
		if t.hasResult || t.hasError {
			badf(`a message with "method" must not also carry "result" or "error"`)
		}
		if t.hasParams && t.paramsType != '{' && t.paramsType != '[' {
			badf(`"params" must be an object or an array, got %s`, typeName(t.paramsType))
		}
		if t.hasID {
			m.Kind = KindRequest
			if m.ID.Kind == IDNull {
				badf(`a request's "id" must not be null (MCP: "Unlike base JSON-RPC, the ID MUST NOT be null")`)
			}
		} else {
			m.Kind = KindNotification
		}
	case t.hasResult && t.hasError:
		m.Kind = KindResult
		badf(`a response must carry either "result" or "error", not both`)
	case t.hasResult:
		m.Kind = KindResult
		if !t.hasID && !partial {
			badf(`a response must have an "id"`)
		} else if t.hasID && m.ID.Kind == IDNull {
			badf(`a result's "id" must not be null`)
		}
	case t.hasError:
		m.Kind = KindError
		if !t.hasID && !partial {
			badf(`a response must have an "id" (null only when the request's id could not be read)`)
		}
		if t.errorType != '{' {
			badf(`"error" must be an object, got %s`, typeName(t.errorType))
		} else {
			if !t.hasCode {
				if !partial {
					badf(`"error" has no "code"`)
				}
			} else if n, ok := integral(t.code); ok {
				m.ErrorCode = n
			} else {
				badf(`"error.code" must be an integer, got %s`, clip(t.code))
			}
			if !t.hasErrMsg {
				if !partial {
					badf(`"error" has no "message"`)
				}
			} else if t.errMsgType != '"' {
				badf(`"error.message" must be a string, got %s`, typeName(t.errMsgType))
			} else {
				m.ErrorMessage = t.errMsg
			}
		}
	default:
		if !partial {
			badf(`no "method", "result" or "error": neither a request, a notification nor a response`)
		}
	}

	if t.hasResultType {
		m.HasResultType = true
		m.ResultType = t.resultType
		if t.resultTypeBad != 0 {
			m.ResultType = ""
			badf(`"result.resultType" must be a string, got %s`, typeName(t.resultTypeBad))
		}
	}

	switch m.Method {
	case "notifications/progress":
		if t.paramToken != nil {
			m.ProgressToken, _, _ = parseID(t.paramToken)
		}
		if t.progress != nil {
			m.Progress, _ = strconv.ParseFloat(string(t.progress), 64)
		}
		if t.total != nil {
			if v, err := strconv.ParseFloat(string(t.total), 64); err == nil {
				m.Total, m.HasTotal = v, true
			}
		}
		if t.hasProgMsg {
			m.ProgressMessage = t.progressMsg
		}
	case "notifications/cancelled":
		if t.requestID != nil {
			m.RequestID, _, _ = parseID(t.requestID)
		}
	default:
		if t.metaToken != nil {
			m.ProgressToken, _, _ = parseID(t.metaToken)
		}
	}

	if len(t.dups) > 0 {
		c.finds = append(c.finds, NewFinding("duplicate-key", fmt.Sprintf("top-level key %s appears more than once; parsers disagree on which one wins", quoteKeys(t.dups))))
	}
	if len(bad) > 0 {
		m.Kind = KindInvalid
		m.Invalid = strings.Join(bad, "; ")
		c.finds = append(c.finds, NewFinding("invalid-jsonrpc", m.Invalid))
	}
	if m.Kind == KindNonJSON && partial {
		m.Kind = KindInvalid
		m.Invalid = "truncated before the message could be classified"
	}
}

// knownMethod returns the MCP method name spelled by raw as a constant
// string, or "": one allocation less for nearly every message.
func knownMethod(raw []byte) string {
	switch string(raw) {
	case "initialize":
		return "initialize"
	case "notifications/initialized":
		return "notifications/initialized"
	case "ping":
		return "ping"
	case "server/discover":
		return "server/discover"
	case "tools/list":
		return "tools/list"
	case "tools/call":
		return "tools/call"
	case "resources/list":
		return "resources/list"
	case "resources/read":
		return "resources/read"
	case "resources/templates/list":
		return "resources/templates/list"
	case "resources/subscribe":
		return "resources/subscribe"
	case "prompts/list":
		return "prompts/list"
	case "prompts/get":
		return "prompts/get"
	case "completion/complete":
		return "completion/complete"
	case "logging/setLevel":
		return "logging/setLevel"
	case "roots/list":
		return "roots/list"
	case "sampling/createMessage":
		return "sampling/createMessage"
	case "elicitation/create":
		return "elicitation/create"
	case "notifications/progress":
		return "notifications/progress"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "notifications/message":
		return "notifications/message"
	case "notifications/tools/list_changed":
		return "notifications/tools/list_changed"
	case "notifications/resources/list_changed":
		return "notifications/resources/list_changed"
	case "notifications/resources/updated":
		return "notifications/resources/updated"
	case "notifications/prompts/list_changed":
		return "notifications/prompts/list_changed"
	case "notifications/roots/list_changed":
		return "notifications/roots/list_changed"
	}
	return ""
}

func quoteKeys(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// clip shortens a raw value for a message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}

// integral parses a JSON number that holds an integer value.
func integral(raw []byte) (int64, bool) {
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, true
	}
	if len(raw) == 0 || (raw[0] != '-' && !isDigit(raw[0])) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// parseID turns a raw JSON value into an ID. note is set when the id is a
// number not spelled as a plain integer; ok is false when the value has a
// type an id cannot have.
func parseID(raw []byte) (id ID, note string, ok bool) {
	if len(raw) == 0 {
		return ID{}, "", false
	}
	switch c := raw[0]; {
	case c == '"':
		s := scanner{s: raw}
		v, _ := s.strValue()
		return StringID(v), "", true
	case c == 'n':
		return ID{Kind: IDNull}, "", true
	case c == '-' || isDigit(c):
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return IntID(n), "", true
		}
		if bytes.IndexAny(raw, ".eE") < 0 {
			return ID{Kind: IDOther, Str: string(raw)}, fmt.Sprintf("id %s does not fit a 64-bit integer", clip(raw)), true
		}
		if n, isInt := integral(raw); isInt {
			return IntID(n), fmt.Sprintf("id %s is an integer spelled as a decimal or exponent; read as %d", clip(raw), n), true
		}
		return ID{Kind: IDOther, Str: string(raw)}, fmt.Sprintf("id %s is not an integer (JSON-RPC: numbers SHOULD NOT contain fractional parts)", clip(raw)), true
	default:
		return ID{Kind: IDOther, Str: string(raw)}, "", false
	}
}
