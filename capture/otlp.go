package capture

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"linesman/session/eventlog"
	"linesman/session/hosts"
)

// The OTLP JSON encoding (opentelemetry-proto, "JSON Protobuf Encoding"):
// field names in lowerCamelCase, trace and span ids as hex (not base64),
// 64-bit integers (times in nanoseconds, intValue) as decimal strings,
// enums as their integer values.

type otlpRequest struct {
	ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
}

type otlpResourceSpans struct {
	Resource   otlpResource     `json:"resource"`
	ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
}

type otlpResource struct {
	Attributes []otlpAttr `json:"attributes"`
}

type otlpScopeSpans struct {
	Scope otlpScope  `json:"scope"`
	Spans []otlpSpan `json:"spans"`
}

type otlpScope struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type otlpSpan struct {
	TraceID           string      `json:"traceId"`
	SpanID            string      `json:"spanId"`
	Name              string      `json:"name"`
	Kind              int         `json:"kind"`
	StartTimeUnixNano string      `json:"startTimeUnixNano"`
	EndTimeUnixNano   string      `json:"endTimeUnixNano"`
	Attributes        []otlpAttr  `json:"attributes"`
	Events            []otlpEvent `json:"events,omitempty"`
	Status            *otlpStatus `json:"status,omitempty"`
}

type otlpEvent struct {
	TimeUnixNano string     `json:"timeUnixNano"`
	Name         string     `json:"name"`
	Attributes   []otlpAttr `json:"attributes,omitempty"`
}

type otlpStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message,omitempty"`
}

type otlpAttr struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	StringValue *string `json:"stringValue,omitempty"`
	IntValue    *string `json:"intValue,omitempty"`
}

// OTLP enum values (trace.proto).
const (
	otlpSpanKindClient  = 3 // SPAN_KIND_CLIENT: linesman sees each call from the client's side of the wire
	otlpStatusCodeError = 2 // STATUS_CODE_ERROR
)

func strAttr(k, v string) otlpAttr { return otlpAttr{Key: k, Value: otlpValue{StringValue: &v}} }

func intAttr(k string, v int64) otlpAttr {
	s := strconv.FormatInt(v, 10)
	return otlpAttr{Key: k, Value: otlpValue{IntValue: &s}}
}

// WriteOTLP writes the log's logical calls ([eventlog.Tracker.Calls]) as
// one OTLP JSON ExportTraceServiceRequest: one trace for the session, one
// client span per call (a multi-round request's rounds and a task's polls
// are events of its span), with attributes for the method, the tool, the
// era and the error. A viewer that loads OTLP JSON files (Jaeger, the
// collector's otlpjsonfile receiver) shows the session's timeline.
func WriteOTLP(w io.Writer, tr *eventlog.Tracker, h Header) error {
	trace := otlpTraceID(h)
	var spans []otlpSpan
	for _, c := range tr.Calls() {
		spans = append(spans, callSpan(c, trace, h.Start))
	}
	if spans == nil {
		spans = []otlpSpan{}
	}
	service := serverName(tr.Handshake().ServerInfo)
	if service == "" {
		service = strings.Join(hosts.RedactCommand(h.Command), " ")
	}
	req := otlpRequest{ResourceSpans: []otlpResourceSpans{{
		Resource:   otlpResource{Attributes: []otlpAttr{strAttr("service.name", service)}},
		ScopeSpans: []otlpScopeSpans{{Scope: otlpScope{Name: "linesman", Version: eventlog.Version}, Spans: spans}},
	}}}
	enc := json.NewEncoder(w)
	return enc.Encode(req)
}

// callSpan is the span of one call.
func callSpan(c eventlog.Call, trace []byte, start time.Time) otlpSpan {
	at := func(d time.Duration) string { return strconv.FormatInt(start.Add(d).UnixNano(), 10) }
	end := c.SentAt
	if d, ok := c.Duration(); ok {
		end = c.SentAt + d
	}
	name := c.Method
	if c.Target != "" {
		name += " " + c.Target
	}
	sp := otlpSpan{TraceID: hex.EncodeToString(trace), SpanID: otlpSpanID(trace, c.Seq), Name: name,
		Kind: otlpSpanKindClient, StartTimeUnixNano: at(c.SentAt), EndTimeUnixNano: at(end)}
	sp.Attributes = append(sp.Attributes, strAttr("mcp.method.name", c.Method), strAttr("mcp.era", c.Era.String()),
		strAttr("jsonrpc.request.id", c.ID.String()), intAttr("mcp.rounds", int64(len(c.Rounds))))
	if tool := c.Tool(); tool != "" {
		sp.Attributes = append(sp.Attributes, strAttr("gen_ai.tool.name", tool))
	}
	if len(c.Polls) > 0 {
		sp.Attributes = append(sp.Attributes, intAttr("mcp.task.polls", int64(len(c.Polls))))
	}
	if c.Progress > 0 {
		sp.Attributes = append(sp.Attributes, intAttr("mcp.progress", int64(c.Progress)))
	}
	out := c.Outcome()
	switch {
	case c.Open:
		sp.Status = &otlpStatus{Code: otlpStatusCodeError, Message: "still in flight when the log ended"}
	case out.State == eventlog.ReqError:
		sp.Attributes = append(sp.Attributes, intAttr("rpc.jsonrpc.error_code", out.ErrorCode), strAttr("error.type", strconv.FormatInt(out.ErrorCode, 10)))
		sp.Status = &otlpStatus{Code: otlpStatusCodeError, Message: out.ErrorMessage}
	case out.State != eventlog.ReqAnswered:
		sp.Attributes = append(sp.Attributes, strAttr("error.type", out.State.String()))
		sp.Status = &otlpStatus{Code: otlpStatusCodeError, Message: out.State.String()}
	}
	for i, q := range append(append([]eventlog.Request{}, c.Rounds...), c.Polls...) {
		what := "round " + strconv.Itoa(i+1)
		if q.Poll {
			what = q.Method
		}
		attrs := []otlpAttr{strAttr("jsonrpc.request.id", q.ID.String()), strAttr("mcp.state", q.State.String())}
		if q.ResultType != "" {
			attrs = append(attrs, strAttr("mcp.result_type", q.ResultType))
		}
		sp.Events = append(sp.Events, otlpEvent{TimeUnixNano: at(q.SentAt), Name: what + " sent", Attributes: attrs})
		if q.State != eventlog.ReqInFlight {
			sp.Events = append(sp.Events, otlpEvent{TimeUnixNano: at(q.EndedAt), Name: what + " ended"})
		}
	}
	return sp
}

// otlpTraceID is the session's trace id: 16 bytes of a hash of when and
// what the capture recorded, so that an export is reproducible.
func otlpTraceID(h Header) []byte {
	sum := sha256.Sum256([]byte(h.Start.UTC().Format(time.RFC3339Nano) + "\x00" + strings.Join(h.Command, "\x00")))
	return sum[:16]
}

// otlpSpanID is the span id of the call whose first request is seq: 8
// bytes of a hash of the trace id and seq (never all zero: the hash of a
// non-empty input).
func otlpSpanID(trace []byte, seq uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seq)
	sum := sha256.Sum256(append(append([]byte{}, trace...), b[:]...))
	return hex.EncodeToString(sum[:8])
}

// serverName is the name of the server's serverInfo, or "".
func serverName(info json.RawMessage) string {
	var si struct {
		Name string `json:"name"`
	}
	json.Unmarshal(info, &si)
	return si.Name
}
