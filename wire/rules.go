package wire

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The rules of JSON-RPC 2.0 (and MCP) about a message's top-level members,
// applied to what the scan collected ([top]). Each rule is a small method
// that notes what breaks it in a [verdict] and fills its part of the
// Message; [top.message] applies them in the order a reader of the
// specification checks them.

// verdict gathers what breaks the rules. partial is set for the prefix of a
// truncated frame: members may be missing only because they were cut off,
// so no rule about a missing member is applied.
type verdict struct {
	partial bool
	bad     []string
}

func (v *verdict) badf(format string, args ...any) {
	v.bad = append(v.bad, fmt.Sprintf(format, args...))
}

// message applies the rules to the collected members and fills m; a message
// that breaks any is KindInvalid with an invalid-jsonrpc finding.
func (t *top) message(c *classified, m *Message, partial bool) {
	c.rpcObject = t.hasJSONRPC && !partial
	v := verdict{partial: partial}
	t.versionRule(&v)
	t.idRule(c, m, &v)
	if t.hasMethod {
		m.Method = t.method
	}
	t.kindRule(m, &v)
	t.resultTypeRule(m, &v)
	t.fillByMethod(m)

	if len(t.dups) > 0 {
		c.finds = append(c.finds, NewFinding("duplicate-key", fmt.Sprintf("top-level key %s appears more than once; parsers disagree on which one wins", quoteKeys(t.dups))))
	}
	if len(v.bad) > 0 {
		m.Kind = KindInvalid
		m.set().invalid = strings.Join(v.bad, "; ")
		c.finds = append(c.finds, NewFinding("invalid-jsonrpc", m.Invalid()))
	}
	if m.Kind == KindNonJSON && partial {
		m.Kind = KindInvalid
		m.set().invalid = "truncated before the message could be classified"
	}
}

// versionRule: "jsonrpc" is present and "2.0".
func (t *top) versionRule(v *verdict) {
	if !t.hasJSONRPC {
		if !v.partial {
			v.badf(`the "jsonrpc" member is missing (it must be "2.0")`)
		}
	} else if string(t.jsonrpc) != `"2.0"` && !(t.jsonrpc[0] == '"' && unescape(t.jsonrpc[1:len(t.jsonrpc)-1]) == "2.0") {
		v.badf(`"jsonrpc" must be "2.0", got %s`, clip(t.jsonrpc))
	}
}

// idRule: an id is a string or an integer (a number spelled otherwise is
// noted as non-integer-id).
func (t *top) idRule(c *classified, m *Message, v *verdict) {
	if !t.hasID {
		return
	}
	m.IDRaw = string(t.id)
	id, note, ok := parseID(t.id)
	m.ID = id
	if !ok {
		v.badf(`"id" must be a string or an integer, got %s`, typeName(t.id[0]))
	} else if note != "" {
		c.finds = append(c.finds, NewFinding("non-integer-id", note))
	}
}

// kindRule decides the message's kind from which members it has, and
// applies the rules of that kind.
func (t *top) kindRule(m *Message, v *verdict) {
	switch {
	case t.hasMethod:
		t.requestRule(m, v)
	case t.hasResult && t.hasError:
		m.Kind = KindResult
		v.badf(`a response must carry either "result" or "error", not both`)
	case t.hasResult:
		m.Kind = KindResult
		if !t.hasID && !v.partial {
			v.badf(`a response must have an "id"`)
		} else if t.hasID && m.ID.Kind == IDNull {
			v.badf(`a result's "id" must not be null`)
		}
	case t.hasError:
		m.Kind = KindError
		if !t.hasID && !v.partial {
			v.badf(`a response must have an "id" (null only when the request's id could not be read)`)
		}
		t.errorRule(m, v)
	default:
		if !v.partial {
			v.badf(`no "method", "result" or "error": neither a request, a notification nor a response`)
		}
	}
}

// requestRule: a request or a notification (it has "method").
func (t *top) requestRule(m *Message, v *verdict) {
	if t.methodType != '"' {
		v.badf(`"method" must be a string, got %s`, typeName(t.methodType))
	}
	if t.hasResult || t.hasError {
		v.badf(`a message with "method" must not also carry "result" or "error"`)
	}
	if t.hasParams && t.paramsType != '{' && t.paramsType != '[' {
		v.badf(`"params" must be an object or an array, got %s`, typeName(t.paramsType))
	}
	if !t.hasID {
		m.Kind = KindNotification
		return
	}
	m.Kind = KindRequest
	if m.ID.Kind == IDNull {
		v.badf(`a request's "id" must not be null (MCP: "Unlike base JSON-RPC, the ID MUST NOT be null")`)
	}
}

// errorRule: "error" is an object with an integer code and a string
// message.
func (t *top) errorRule(m *Message, v *verdict) {
	if t.errorType != '{' {
		v.badf(`"error" must be an object, got %s`, typeName(t.errorType))
		return
	}
	if !t.hasCode {
		if !v.partial {
			v.badf(`"error" has no "code"`)
		}
	} else if n, ok := integral(t.code); ok {
		m.set().errorCode = n
	} else {
		v.badf(`"error.code" must be an integer, got %s`, clip(t.code))
	}
	if !t.hasErrMsg {
		if !v.partial {
			v.badf(`"error" has no "message"`)
		}
	} else if t.errMsgType != '"' {
		v.badf(`"error.message" must be a string, got %s`, typeName(t.errMsgType))
	} else {
		m.set().errorMessage = t.errMsg
	}
}

// resultTypeRule: "result.resultType", when present, is a string.
func (t *top) resultTypeRule(m *Message, v *verdict) {
	if !t.hasResultType {
		return
	}
	m.HasResultType = true
	m.ResultType = t.resultType
	if t.resultTypeBad != 0 {
		m.ResultType = ""
		v.badf(`"result.resultType" must be a string, got %s`, typeName(t.resultTypeBad))
	}
}

// fillByMethod fills the members some methods carry in their params: a
// progress notification's token and counts, a cancellation's request id,
// any other request's progress token.
func (t *top) fillByMethod(m *Message) {
	switch m.Method {
	case "notifications/progress":
		r := m.set()
		if t.paramToken != nil {
			r.progressToken, _, _ = parseID(t.paramToken)
		}
		if t.progress != nil {
			r.progress, _ = strconv.ParseFloat(string(t.progress), 64)
		}
		if t.total != nil {
			if v, err := strconv.ParseFloat(string(t.total), 64); err == nil {
				r.total, r.hasTotal = v, true
			}
		}
		if t.hasProgMsg {
			r.progressMessage = t.progressMsg
		}
	case "notifications/cancelled":
		if t.requestID != nil {
			m.set().requestID, _, _ = parseID(t.requestID)
		}
	default:
		if t.metaToken != nil {
			m.set().progressToken, _, _ = parseID(t.metaToken)
		}
	}
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
