package wire

import "bytes"

// The top-level members of a message, collected as the scan passes them.

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
	ix          indexer // the params object's index, when classify was given one
}

// rawValue scans a value and returns its exact text.
func rawValue(s *scanner) ([]byte, bool) {
	start := s.i
	if !s.value() {
		return nil, false
	}
	return s.s[start:s.i], true
}

// object collects the members of the top-level object, one method per
// member JSON-RPC knows.
func (t *top) object(s *scanner) {
	ok := s.members(func(key []byte) bool {
		t.noteKey(s)
		var ok bool
		switch string(key) {
		// A member counts as present only once its value has been scanned
		// whole: the prefix of a truncated frame may end inside it.
		case "jsonrpc":
			t.jsonrpc, ok = rawValue(s)
			t.hasJSONRPC = ok
		case "id":
			t.id, ok = rawValue(s)
			t.hasID = ok
		case "method":
			ok = t.methodMember(s)
		// For a repeated member the last one wins, as in encoding/json and
		// JavaScript: what the members hold is reset each time.
		case "params":
			ok = t.paramsMember(s)
		case "result":
			ok = t.resultMember(s)
		case "error":
			ok = t.errorMember(s)
		default:
			ok = s.value()
		}
		return ok
	})
	t.done = ok
}

// methodMember scans the value of "method".
func (t *top) methodMember(s *scanner) bool {
	c := s.s[s.i]
	t.methodType, t.method = c, ""
	if c != '"' {
		t.hasMethod = s.value()
		return t.hasMethod
	}
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

// paramsMember scans the value of "params".
func (t *top) paramsMember(s *scanner) bool {
	c := s.s[s.i]
	t.hasParams = true
	t.paramsType = c
	t.ix.seen++
	t.metaToken, t.paramToken, t.progress, t.total, t.requestID = nil, nil, nil, nil, nil
	t.progressMsg, t.hasProgMsg = "", false
	if c == '{' {
		return t.params(s)
	}
	return s.value()
}

// resultMember scans the value of "result", noting its resultType.
func (t *top) resultMember(s *scanner) bool {
	t.hasResult = true
	t.hasResultType, t.resultType, t.resultTypeBad = false, "", 0
	if s.s[s.i] != '{' {
		return s.value()
	}
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

// errorMember scans the value of "error", noting its code and message.
func (t *top) errorMember(s *scanner) bool {
	c := s.s[s.i]
	t.hasError = true
	t.errorType = c
	t.hasCode, t.code, t.hasErrMsg, t.errMsg, t.errMsgType = false, nil, false, "", 0
	if c != '{' {
		return s.value()
	}
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

// params scans a params object, noting the members JSON-RPC and MCP give
// meaning to, and indexing its members when asked to (see ParamsIndex).
func (t *top) params(s *scanner) bool {
	t.ix.start(s.i)
	ok := s.members(func(key []byte) bool {
		k, ke, v := s.key.start-1, s.key.end+1, s.i
		ok := t.param(s, key)
		if ok {
			t.ix.member(k, ke, v, s.i)
		}
		return ok
	})
	if ok {
		t.ix.end(s.i)
	}
	return ok
}

// param scans the value of the params member named key.
func (t *top) param(s *scanner, key []byte) bool {
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
