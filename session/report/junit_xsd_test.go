package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// junitElement is what Jenkins' junit-10 XSD (the xunit plugin's
// junit-10.xsd, which CI servers validate JUnit files against) allows an
// element: its attributes, those it requires, its child elements, and
// whether it may hold text (mixed content or xs:string).
type junitElement struct {
	attrs, required, children []string
	text                      bool
}

// junit10 restates junit-10.xsd element by element.
var junit10 = map[string]junitElement{
	"testsuites": {attrs: []string{"name", "time", "tests", "failures", "errors"}, children: []string{"testsuite"}},
	"testsuite": {attrs: []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		required: []string{"name", "tests", "failures", "errors"},
		children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"}},
	"properties": {children: []string{"property"}},
	"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
	"testcase": {attrs: []string{"name", "time", "classname", "group"}, required: []string{"name"},
		children: []string{"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError", "system-out", "system-err"}},
	"failure":    {attrs: []string{"type", "message"}, text: true},
	"error":      {attrs: []string{"type", "message"}, text: true},
	"skipped":    {attrs: []string{"type", "message"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// surefireTime is the XSD's SUREFIRE_TIME pattern, the type of the time
// attribute of testsuites and testsuite (XSD patterns are anchored).
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// validateJUnit10 checks a JUnit document against junit10: the root is a
// testsuites or testsuite, every element is declared and sits where its
// parent allows it, with only its attributes, its required ones present,
// text only where the schema allows it, and times of the right pattern.
func validateJUnit10(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	dec.Strict = true
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			el, ok := junit10[name]
			switch {
			case !ok:
				return fmt.Errorf("<%s> is not declared", name)
			case len(stack) == 0 && name != "testsuites" && name != "testsuite":
				return fmt.Errorf("root <%s>: want testsuites or testsuite", name)
			case len(stack) > 0 && !slices.Contains(junit10[stack[len(stack)-1]].children, name):
				return fmt.Errorf("<%s> inside <%s>", name, stack[len(stack)-1])
			}
			if err := checkJUnitAttrs(name, el, tok.Attr); err != nil {
				return err
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && !junit10[stack[len(stack)-1]].text && strings.TrimSpace(string(tok)) != "" {
				return fmt.Errorf("text %q inside <%s>, which holds elements only", tok, stack[len(stack)-1])
			}
		}
	}
	return nil
}

// checkJUnitAttrs checks an element's attributes against the schema.
func checkJUnitAttrs(name string, el junitElement, attrs []xml.Attr) error {
	var have []string
	for _, a := range attrs {
		if !slices.Contains(el.attrs, a.Name.Local) || a.Name.Space != "" {
			return fmt.Errorf("<%s> has attribute %s, which the schema does not declare", name, a.Name.Local)
		}
		if a.Name.Local == "time" && (name == "testsuites" || name == "testsuite") && !surefireTime.MatchString(a.Value) {
			return fmt.Errorf("<%s time=%q>: not a SUREFIRE_TIME", name, a.Value)
		}
		have = append(have, a.Name.Local)
	}
	for _, r := range el.required {
		if !slices.Contains(have, r) {
			return fmt.Errorf("<%s> lacks required attribute %s", name, r)
		}
	}
	return nil
}

// TestJUnitValidatorRefuses: the restated schema refuses what junit-10
// refuses (a test of the test).
func TestJUnitValidatorRefuses(t *testing.T) {
	for _, doc := range []string{
		`<testsuites skipped="1"></testsuites>`,
		`<testsuites><testsuite name="s" tests="1" failures="0"></testsuite></testsuites>`,
		`<testsuite name="s" tests="1" failures="0" errors="0" time="-1"></testsuite>`,
		`<testsuite name="s" tests="1" failures="0" errors="0"><testcase/></testsuite>`,
		`<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c">text</testcase></testsuite>`,
		`<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="c"><properties/></testcase></testsuite>`,
		`<testcase name="c"/>`,
	} {
		if validateJUnit10([]byte(doc)) == nil {
			t.Errorf("accepted %s", doc)
		}
	}
	if err := validateJUnit10([]byte(`<testsuites time="1,234.5"><testsuite name="s" tests="1" failures="0" errors="0" skipped="0"><testcase name="c"><system-err>x</system-err></testcase></testsuite></testsuites>`)); err != nil {
		t.Errorf("refused a valid document: %v", err)
	}
}

// TestJUnitValidAgainstJUnit10: every JUnit file linesman writes (one
// server with failures, skips and a failed run; --all with a skipped
// server) is valid against junit-10.
func TestJUnitValidAgainstJUnit10(t *testing.T) {
	r := hostileReport(t)
	r.Error = "handshake failed"
	var one bytes.Buffer
	if err := r.WriteJUnit(&one, CIOptions{Seconds: 1234.5, FailOn: "note"}); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit10(one.Bytes()); err != nil {
		t.Errorf("one server: %v\n%s", err, one.Bytes())
	}
	m := NewMulti("servers.txt", []ServerResult{{Name: "a", Status: "failed", Report: &r}, {Name: "b", Status: "skipped", Skipped: "disabled"}})
	var all bytes.Buffer
	if err := m.WriteJUnit(&all, CIOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit10(all.Bytes()); err != nil {
		t.Errorf("--all: %v\n%s", err, all.Bytes())
	}
}

// TestJUnitSystemErr: a failed case carries the line its findings point
// at and the server's stderr tail, inert; a passing case carries neither.
func TestJUnitSystemErr(t *testing.T) {
	l, _ := sampleLog(t)
	r := FromLog(l, handshaken(t, l, "2025-06-18", `{"name":"s"}`), Meta{Mode: "check", Command: []string{"srv"}})
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf, CIOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	framing := false
	for _, c := range doc.Suites[0].Cases {
		switch {
		case strings.HasPrefix(c.Name, "framing:"):
			framing = true
			if !strings.Contains(c.SystemErr, "hello ␛[2J world") || !strings.Contains(c.SystemErr, "boom ␛[31mred") {
				t.Errorf("framing's system-err lacks the offending line or the stderr tail: %q", c.SystemErr)
			}
		case c.Failure == nil && c.Error == nil && c.SystemErr != "":
			t.Errorf("passing case %q has system-err %q", c.Name, c.SystemErr)
		}
	}
	if !framing || strings.ContainsAny(buf.String(), "\x1b") {
		t.Errorf("no framing case, or raw escapes:\n%s", buf.Bytes())
	}
}
