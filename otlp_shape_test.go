package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// The OTLP JSON shape, from opentelemetry-proto's trace.proto,
// common.proto and resource.proto and its JSON mapping ("JSON Protobuf
// Encoding" in the OTLP specification): field names are the proto's in
// lowerCamelCase; traceId and spanId are hex strings (16 and 8 bytes, not
// all zero), not base64; fixed64 and int64 (times, intValue, counts) are
// decimal strings; enums are integers; an AnyValue holds exactly one of
// its kinds. Only the fields the proto defines may appear.
var (
	otlpFields = map[string]map[string]bool{
		"request":       set("resourceSpans"),
		"resourceSpans": set("resource", "scopeSpans", "schemaUrl"),
		"resource":      set("attributes", "droppedAttributesCount", "entityRefs"),
		"scopeSpans":    set("scope", "spans", "schemaUrl"),
		"scope":         set("name", "version", "attributes", "droppedAttributesCount"),
		"span": set("traceId", "spanId", "traceState", "parentSpanId", "flags", "name", "kind", "startTimeUnixNano",
			"endTimeUnixNano", "attributes", "droppedAttributesCount", "events", "droppedEventsCount", "links",
			"droppedLinksCount", "status"),
		"event":    set("timeUnixNano", "name", "attributes", "droppedAttributesCount"),
		"status":   set("message", "code"),
		"keyValue": set("key", "value"),
		"anyValue": set("stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"),
	}
	hex32     = regexp.MustCompile(`^[0-9a-f]{32}$`)
	hex16     = regexp.MustCompile(`^[0-9a-f]{16}$`)
	decimalRe = regexp.MustCompile(`^-?[0-9]+$`)
)

func set(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// otlpChecker walks an OTLP JSON document and reports where it breaks
// the shape.
type otlpChecker struct {
	problems []string
	spans    map[string]bool
}

func (c *otlpChecker) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// checkOTLPShape fails t wherever doc is not an OTLP JSON
// ExportTraceServiceRequest.
func checkOTLPShape(t *testing.T, doc []byte) {
	t.Helper()
	for _, p := range otlpProblems(doc) {
		t.Error(p)
	}
}

// otlpProblems says where doc breaks the shape.
func otlpProblems(doc []byte) []string {
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		return []string{fmt.Sprintf("not one JSON object: %v", err)}
	}
	c := &otlpChecker{spans: map[string]bool{}}
	c.object("request", "", v)
	rss := c.array("resourceSpans", v["resourceSpans"])
	if len(rss) == 0 {
		c.errorf("resourceSpans: empty")
	}
	for i, rs := range rss {
		at := fmt.Sprintf("resourceSpans[%d]", i)
		r := c.object("resourceSpans", at, rs)
		c.attributes(at+".resource", c.object("resource", at+".resource", r["resource"])["attributes"])
		for j, ss := range c.array(at+".scopeSpans", r["scopeSpans"]) {
			sat := fmt.Sprintf("%s.scopeSpans[%d]", at, j)
			s := c.object("scopeSpans", sat, ss)
			c.object("scope", sat+".scope", s["scope"])
			for k, sp := range c.array(sat+".spans", s["spans"]) {
				c.span(fmt.Sprintf("%s.spans[%d]", sat, k), sp)
			}
		}
	}
	return c.problems
}

func (c *otlpChecker) span(at string, v any) {
	s := c.object("span", at, v)
	if id, _ := s["traceId"].(string); !hex32.MatchString(id) || id == "00000000000000000000000000000000" {
		c.errorf("%s.traceId %v: want 32 lowercase hex digits, not all zero", at, s["traceId"])
	}
	id, _ := s["spanId"].(string)
	if !hex16.MatchString(id) || id == "0000000000000000" || c.spans[id] {
		c.errorf("%s.spanId %v: want 16 lowercase hex digits, not all zero, unique", at, s["spanId"])
	}
	c.spans[id] = true
	if name, _ := s["name"].(string); name == "" {
		c.errorf("%s.name: want a name", at)
	}
	if k, ok := s["kind"].(float64); !ok || k != float64(int(k)) || k < 0 || k > 5 {
		c.errorf("%s.kind %v: want the SpanKind enum as an integer, 0 to 5", at, s["kind"])
	}
	start, end := c.nanos(at+".startTimeUnixNano", s["startTimeUnixNano"]), c.nanos(at+".endTimeUnixNano", s["endTimeUnixNano"])
	if start > end {
		c.errorf("%s ends before it starts", at)
	}
	c.attributes(at, s["attributes"])
	if ev, ok := s["events"]; ok {
		for i, e := range c.array(at+".events", ev) {
			eat := fmt.Sprintf("%s.events[%d]", at, i)
			m := c.object("event", eat, e)
			c.nanos(eat+".timeUnixNano", m["timeUnixNano"])
			c.attributes(eat, m["attributes"])
		}
	}
	if st, ok := s["status"]; ok {
		m := c.object("status", at+".status", st)
		if code, ok := m["code"].(float64); !ok || code < 0 || code > 2 || code != float64(int(code)) {
			c.errorf("%s.status.code %v: want the StatusCode enum as an integer, 0 to 2", at, m["code"])
		}
	}
}

// nanos checks a fixed64 time: a decimal string.
func (c *otlpChecker) nanos(at string, v any) uint64 {
	s, ok := v.(string)
	n, err := strconv.ParseUint(s, 10, 64)
	if !ok || err != nil || n == 0 {
		c.errorf("%s %v: want nanoseconds since the epoch as a decimal string", at, v)
	}
	return n
}

// attributes checks a list of KeyValue (absent is an empty list).
func (c *otlpChecker) attributes(at string, v any) {
	if v == nil {
		return
	}
	for i, kv := range c.array(at+".attributes", v) {
		kat := fmt.Sprintf("%s.attributes[%d]", at, i)
		m := c.object("keyValue", kat, kv)
		if k, _ := m["key"].(string); k == "" {
			c.errorf("%s.key: want a key", kat)
		}
		val := c.object("anyValue", kat+".value", m["value"])
		if len(val) != 1 {
			c.errorf("%s.value %v: want exactly one of an AnyValue's kinds", kat, val)
		}
		for kind, x := range val {
			switch _, isString := x.(string); {
			case kind == "stringValue" && !isString, kind == "bytesValue" && !isString:
				c.errorf("%s.value.%s %v: want a string", kat, kind, x)
			case kind == "intValue" && !(isString && decimalRe.MatchString(x.(string))):
				c.errorf("%s.value.intValue %v: want an int64 as a decimal string", kat, x)
			}
		}
	}
}

func (c *otlpChecker) object(kind, at string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		c.errorf("%s: %T, want a %s object", at, v, kind)
		return nil
	}
	for k := range m {
		if !otlpFields[kind][k] {
			c.errorf("%s: %q is no field of %s", at, k, kind)
		}
	}
	return m
}

func (c *otlpChecker) array(at string, v any) []any {
	a, ok := v.([]any)
	if !ok {
		c.errorf("%s: %T, want an array", at, v)
	}
	return a
}

// TestOTLPShapeCheckRejects: the shape check fails a document with base64
// ids, numeric times, a named enum, or a bare attribute value, so that it
// can fail the export.
func TestOTLPShapeCheckRejects(t *testing.T) {
	good := `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeSpans":[{"scope":{"name":"linesman"},"spans":[` +
		`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"ping","kind":3,"startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000","attributes":[{"key":"n","value":{"intValue":"2"}}]}]}]}]}`
	for _, c := range []struct{ name, from, to string }{
		{"good", "", ""},
		{"base64 trace id", `"5b8efff798038103d269b633813fc60c"`, `"W47/95gDgQPSabYzgT/GDA=="`},
		{"numeric time", `"1544712660000000000"`, `1544712660000000000`},
		{"named kind", `"kind":3`, `"kind":"SPAN_KIND_CLIENT"`},
		{"bare value", `"value":{"stringValue":"s"}`, `"value":"s"`},
		{"snake case", `"startTimeUnixNano"`, `"start_time_unix_nano"`},
		{"int as number", `{"intValue":"2"}`, `{"intValue":2}`},
	} {
		doc := good
		if c.from != "" {
			doc = regexp.MustCompile(regexp.QuoteMeta(c.from)).ReplaceAllString(good, c.to)
		}
		if problems := otlpProblems([]byte(doc)); (len(problems) == 0) != (c.name == "good") {
			t.Errorf("%s: problems %q", c.name, problems)
		}
	}
}
