package ui

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckAgainstSchema: a JSON field's value is checked against its
// schema all the way down; what the form does not know is not judged.
func TestCheckAgainstSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","required":["city"],"properties":{
		"city":{"type":"string"},
		"zip":{"type":["integer","null"],"minimum":1000},
		"tags":{"type":"array","items":{"enum":["a","b"]}},
		"kind":{"const":"home"},
		"geo":{"type":"object","properties":{"lat":{"type":"number","maximum":90}}},
		"free":{"pattern":"^x"}}}`)
	for text, want := range map[string]string{
		`{"city":"Oslo"}`:                         "",
		`{"city":"Oslo","zip":null,"free":"y"}`:   "",
		`{"city":"Oslo","zip":1234,"tags":["a"]}`: "",
		`{"city":"Oslo","zip":1234.0}`:            "",
		`[]`:                                      "address: not an object",
		`{}`:                                      `address: "city" is required`,
		`{"city":5}`:                              "address.city: not a string",
		`{"city":"x","zip":12}`:                   "address.zip: too small (at least 1000)",
		`{"city":"x","zip":1.5}`:                  "address.zip: not an integer or null",
		`{"city":"x","tags":["a","c"]}`:           "address.tags[1]: not one of the allowed values",
		`{"city":"x","kind":"work"}`:              `address.kind: must be "home"`,
		`{"city":"x","geo":{"lat":91}}`:           "address.geo.lat: too large (at most 90)",
	} {
		v, err := decodeJSON(text)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := checkAgainst(schema, v, "address"); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: %q, want %q", text, got, want)
		}
	}
}

// TestFormChecksNestedJSON: the error of a nested value is said under its
// field, and nothing is sent.
func TestFormChecksNestedJSON(t *testing.T) {
	f := offering(t)
	srv := newFakeServer(f)
	m := f.model(80, 24, srv)
	press(m, "t")
	typeText(m, "order")
	press(m, "enter")
	typeText(m, "2")
	press(m, "tab")
	typeText(m, "tea")
	for range 5 {
		press(m, "tab")
	}
	typeText(m, `{"city":5}`)
	n := len(srv.sent)
	press(m, "ctrl+s")
	if len(srv.sent) != n || m.form == nil || m.form.fields[6].err != "address.city: not a string" {
		t.Fatalf("sent %d; address error %q", len(srv.sent)-n, m.form.fields[6].err)
	}
	if !strings.Contains(stripped(m), "✖ address.city: not a string") {
		t.Errorf("the error is not on screen:\n%s", stripped(m))
	}
}
