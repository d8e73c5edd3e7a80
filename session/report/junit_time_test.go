package report

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"testing"
)

// TestJUnitCaseTimes: each test case's time is its own: as long as the
// requests its family owns (lifecycle: initialize and ping; tools:
// tools/list), the process family as long as the shutdown, the families
// judged on frames others brought nothing; the run's own case the rest of
// the run. The cases add up to the run's time, never more.
func TestJUnitCaseTimes(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	r := Report{
		Command: []string{"server"}, ServerInfo: []byte("null"),
		Requests: []Request{
			{Dir: "c2s", Method: "initialize", Ms: ms(250)},
			{Dir: "c2s", Method: "ping", Ms: ms(50)},
			{Dir: "c2s", Method: "tools/list", Ms: ms(1500)},
			{Dir: "s2c", Method: "ping", Ms: ms(9000)}, // the server's: not the client's wait
			{Dir: "c2s", Method: "prompts/list"},       // in flight: no time yet
		},
		Process: Process{ShutdownMs: 125},
		Rules: []Rule{{Family: "lifecycle", Status: "held"}, {Family: "tools", Status: "held"},
			{Family: "process", Status: "held"}, {Family: "framing", Status: "held"}, {Family: "prompts", Status: "held"}},
		Error: "failed",
	}
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf, CIOptions{Seconds: 4}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
				Time string `xml:"time,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"0.300", "1.500", "0.125", "0.000", "0.000", "2.075"}
	cases := doc.Suites[0].Cases
	if len(cases) != len(want) {
		t.Fatalf("%d cases:\n%s", len(cases), buf.Bytes())
	}
	sum := 0.0
	for i, c := range cases {
		if c.Time != want[i] {
			t.Errorf("case %q: time %s, want %s", c.Name, c.Time, want[i])
		}
		v, _ := strconv.ParseFloat(c.Time, 64)
		sum += v
	}
	if sum > 4.0005 {
		t.Errorf("the cases add up to %.3f s in a 4 s run", sum)
	}
}
