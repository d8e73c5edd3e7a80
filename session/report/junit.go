package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"linesman/wire"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the report as JUnit XML: one testsuite for the server,
// one testcase per rule family (held passes, broken fails listing its
// warnings and errors, not observed is skipped), and a "run" testcase in
// error when linesman's own run failed. Every string is made inert
// ([wire.VisibleString]) and XML-escaped; characters XML 1.0 cannot carry
// never reach the file.
func (r *Report) WriteJUnit(w io.Writer, opt CIOptions) error {
	s := r.junitSuite(opt)
	doc := junitSuites{Name: "linesman", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors,
		Skipped: s.Skipped, Time: s.Time, Suites: []junitSuite{s}}
	return writeJUnitDoc(w, doc)
}

// writeJUnitDoc writes a JUnit document: the XML header, the indented
// document and a final newline.
func writeJUnitDoc(w io.Writer, doc junitSuites) error {
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// junitSuite is the report's server as a testsuite.
func (r *Report) junitSuite(opt CIOptions) junitSuite {
	name := r.ServerName()
	s := junitSuite{Name: inert(name), Time: fmt.Sprintf("%.3f", opt.Seconds), Properties: []junitProperty{
		{"command", inert(ShellJoin(r.Command))}, {"era", r.Era}, {"protocolVersion", inert(r.ProtocolVersion)},
		{"linesman", r.Linesman}}}
	class := "linesman." + inert(name)
	byFamily := map[string][]Finding{}
	for _, f := range r.Findings {
		if f.Severity != "error" && f.Severity != "warning" {
			continue
		}
		if info, ok := wire.Lookup(f.Code); ok {
			byFamily[info.Family] = append(byFamily[info.Family], f)
		}
	}
	for _, ru := range r.Rules {
		c := junitCase{Name: ru.Family + ": " + ru.Title, Classname: class, Time: fmt.Sprintf("%.3f", r.familySeconds(ru.Family, opt.Seconds))}
		switch ru.Status {
		case "broken":
			c.Failure = &junitProblem{Message: fmt.Sprintf("%s broken: %s", ru.Family, plural(max(ru.Findings, len(byFamily[ru.Family])), "finding")),
				Type: "broken", Text: junitFindings(byFamily[ru.Family])}
			s.Failures++
		case "not-observed":
			c.Skipped = &junitSkipped{Message: "not observed: nothing gave these rules anything to judge"}
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	if r.Error != "" || r.Interrupted {
		msg := r.Error
		if msg == "" {
			msg = "interrupted"
		}
		s.Cases = append(s.Cases, junitCase{Name: "run", Classname: class, Time: fmt.Sprintf("%.3f", opt.Seconds),
			Error: &junitProblem{Message: inert(msg), Type: "linesman-run"}})
		s.Errors++
	}
	s.Tests = len(s.Cases)
	return s
}

// familyMethods are the requests whose answers a family's rules judge:
// its test case takes as long as they did.
var familyMethods = map[string][]string{
	wire.FamilyLifecycle:     {"initialize", "server/discover", "ping"},
	wire.FamilyTools:         {"tools/list", "tools/call"},
	wire.FamilySchemas:       {"tools/list", "tools/call"},
	wire.FamilyContent:       {"tools/call", "prompts/get", "resources/read"},
	wire.FamilyPrompts:       {"prompts/list", "prompts/get"},
	wire.FamilyResources:     {"resources/list", "resources/read", "resources/templates/list"},
	wire.FamilyPagination:    {"tools/list", "prompts/list", "resources/list", "resources/templates/list"},
	wire.FamilySubscriptions: {"subscriptions/listen"},
}

// familySeconds is how long a family's test case took: the client's
// requests the family judges (familyMethods), the shutdown for the
// process family, and the whole run (runSeconds) for the families judged
// on every frame (framing, ids, shapes, ...) or after it (policy, drift).
func (r *Report) familySeconds(family string, runSeconds float64) float64 {
	if family == wire.FamilyProcess {
		return r.Process.ShutdownMs / 1000
	}
	methods, ok := familyMethods[family]
	if !ok {
		return runSeconds
	}
	ms := 0.0
	for _, q := range r.Requests {
		if q.Dir == "c2s" && q.Ms != nil && slices.Contains(methods, q.Method) {
			ms += *q.Ms
		}
	}
	return ms / 1000
}

// junitFindings lists findings one a line: severity, code, frame, message.
func junitFindings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		where := ""
		if f.Seq != nil {
			where = fmt.Sprintf(" (frame #%d)", *f.Seq)
		}
		fmt.Fprintf(&b, "%s %s%s: %s\n", f.Severity, f.Code, where, inert(f.Message))
		if f.Fix != "" {
			fmt.Fprintf(&b, "  fix: %s\n", inert(f.Fix))
		}
	}
	return b.String()
}

// ServerName names the server for reports: serverInfo's name (and version)
// when the handshake learned it, else the command.
func (r *Report) ServerName() string {
	var si struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if json.Unmarshal(r.ServerInfo, &si) == nil && si.Name != "" {
		if si.Version != "" {
			return si.Name + " " + si.Version
		}
		return si.Name
	}
	if len(r.Command) > 0 {
		return ShellJoin(r.Command)
	}
	return "server"
}
