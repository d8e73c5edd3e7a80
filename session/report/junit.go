package report

import (
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"linesman/session/protocol"
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
	SystemOut string        `xml:"system-out,omitempty"`
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
// one testcase per rule family, and a "run" testcase in error when
// linesman's own run failed. A family's case fails exactly when its
// findings would fail the run under opt.FailOn (a warning fails it under
// --fail-on warning, not under the default error); not observed and not
// applicable are skipped; the rest pass, saying how much they judged and
// the findings below the policy. So the file's failures and errors agree
// with the exit status ([Report.ExitStatusAt]). Every string is made inert
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
	failOn := cmp.Or(opt.FailOn, "error")
	failing, below := r.findingsByFamily(failOn)
	for _, ru := range r.Rules {
		c := junitCase{Name: ru.Family + ": " + ru.Title, Classname: class, Time: fmt.Sprintf("%.3f", r.familySeconds(ru.Family, opt.Seconds))}
		fs := failing[ru.Family]
		delete(failing, ru.Family)
		switch {
		case len(fs) > 0:
			c.Failure = &junitProblem{Message: fmt.Sprintf("%s: %s at or above --fail-on %s", ru.Family, plural(len(fs), "finding"), failOn),
				Type: "broken", Text: junitFindings(fs)}
			s.Failures++
		case ru.Status == string(protocol.NotObserved):
			c.Skipped = &junitSkipped{Message: "not observed: the server gave these rules nothing to judge"}
			s.Skipped++
		case ru.Status == string(protocol.NotApplicable):
			c.Skipped = &junitSkipped{Message: "not applicable: rules of another era than " + inert(cmp.Or(r.ProtocolVersion, r.Era))}
			s.Skipped++
		default:
			c.SystemOut = fmt.Sprintf("%s (%d judged)\n", ru.Status, ru.Judged) + junitFindings(below[ru.Family])
		}
		s.Cases = append(s.Cases, c)
	}
	r.junitRunCases(&s, class, failOn, failing, opt.Seconds)
	s.Tests = len(s.Cases)
	return s
}

// junitRunCases adds the cases of the run itself: "run" in error when
// linesman's own run failed or was interrupted, and "findings" failing
// when the exit status fails on findings no family's case holds (a family
// not listed, findings the retention limit dropped), so that the file
// never passes a run that exits 1.
func (r *Report) junitRunCases(s *junitSuite, class, failOn string, unlisted map[string][]Finding, seconds float64) {
	if r.Error != "" || r.Interrupted {
		msg := r.Error
		if msg == "" {
			msg = "interrupted"
		}
		s.Cases = append(s.Cases, junitCase{Name: "run", Classname: class, Time: fmt.Sprintf("%.3f", seconds),
			Error: &junitProblem{Message: inert(msg), Type: "linesman-run"}})
		s.Errors++
	}
	if status, _ := r.ExitStatusAt(failOn); status != 1 || s.Failures+s.Errors > 0 {
		return
	}
	var fs []Finding
	for _, f := range unlisted {
		fs = append(fs, f...)
	}
	s.Cases = append(s.Cases, junitCase{Name: "findings", Classname: class, Time: fmt.Sprintf("%.3f", seconds),
		Failure: &junitProblem{Message: fmt.Sprintf("findings at or above --fail-on %s outside the families listed (or dropped by the retention limit)", failOn),
			Type: "broken", Text: junitFindings(fs)}})
	s.Failures++
}

// findingsByFamily sorts the findings by family: those at or above failOn
// (which fail the run) and the other warnings and errors.
func (r *Report) findingsByFamily(failOn string) (failing, below map[string][]Finding) {
	failing, below = map[string][]Finding{}, map[string][]Finding{}
	for _, f := range r.Findings {
		fam := ""
		if info, ok := wire.Lookup(f.Code); ok {
			fam = info.Family
		}
		switch {
		case fails(f.Severity, failOn):
			failing[fam] = append(failing[fam], f)
		case f.Severity == "error" || f.Severity == "warning":
			below[fam] = append(below[fam], f)
		}
	}
	return failing, below
}

// fails reports whether a finding of severity fails a run under --fail-on failOn.
func fails(severity, failOn string) bool {
	return slices.Index(FailOnLevels, severity) >= 0 && slices.Index(FailOnLevels, severity) <= slices.Index(FailOnLevels, failOn)
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
