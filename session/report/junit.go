package report

import (
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"linesman/session/protocol"
	"linesman/wire"
)

// junitSuites is the document's root. Jenkins' junit-10 XSD, which CI
// servers validate against, allows it name, time, tests, failures and
// errors only (skipped is counted on each testsuite).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
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
	// SystemErr is, for a case that fails, the server's stderr tail and
	// the lines its failing findings point at ([Report.junitSystemErr]).
	SystemErr string `xml:"system-err,omitempty"`
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
		Time: s.Time, Suites: []junitSuite{s}}
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
	s := junitSuite{Name: inert(name), Time: seconds(opt.Seconds), Properties: []junitProperty{
		{"command", inert(ShellJoin(r.Command))}, {"era", r.Era}, {"protocolVersion", inert(r.ProtocolVersion)},
		{"linesman", r.Linesman}}}
	class := "linesman." + inert(name)
	failOn := cmp.Or(opt.FailOn, "error")
	failing, below := r.findingsByFamily(failOn)
	for _, ru := range r.Rules {
		c := junitCase{Name: ru.Family + ": " + ru.Title, Classname: class, Time: seconds(r.familySeconds(ru.Family))}
		fs := failing[ru.Family]
		delete(failing, ru.Family)
		switch {
		case len(fs) > 0:
			c.Failure = &junitProblem{Message: fmt.Sprintf("%s: %s at or above --fail-on %s", ru.Family, plural(len(fs), "finding"), failOn),
				Type: "broken", Text: junitFindings(fs)}
			c.SystemErr = r.junitSystemErr(fs)
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
// linesman's own run failed or was interrupted, taking the run's time no
// family's case took (start-up, waits), and "findings" failing when the
// exit status fails on findings no family's case holds (a family not
// listed, findings the retention limit dropped), so that the file never
// passes a run that exits 1.
func (r *Report) junitRunCases(s *junitSuite, class, failOn string, unlisted map[string][]Finding, runSeconds float64) {
	if r.Error != "" || r.Interrupted {
		msg := r.Error
		if msg == "" {
			msg = "interrupted"
		}
		own := runSeconds
		for _, ru := range r.Rules {
			own -= r.familySeconds(ru.Family)
		}
		s.Cases = append(s.Cases, junitCase{Name: "run", Classname: class, Time: seconds(max(own, 0)),
			Error: &junitProblem{Message: inert(msg), Type: "linesman-run"}, SystemErr: r.junitSystemErr(nil)})
		s.Errors++
	}
	if status, _ := r.ExitStatusAt(failOn); status != 1 || s.Failures+s.Errors > 0 {
		return
	}
	var fs []Finding
	for _, f := range unlisted {
		fs = append(fs, f...)
	}
	s.Cases = append(s.Cases, junitCase{Name: "findings", Classname: class, Time: seconds(0),
		Failure: &junitProblem{Message: fmt.Sprintf("findings at or above --fail-on %s outside the families listed (or dropped by the retention limit)", failOn),
			Type: "broken", Text: junitFindings(fs)}, SystemErr: r.junitSystemErr(fs)})
	s.Failures++
}

// seconds is a JUnit time: seconds with three decimals (Jenkins'
// SUREFIRE_TIME: digits, a point, digits).
func seconds(v float64) string { return fmt.Sprintf("%.3f", v) }

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

// familyMethods are the requests whose answers a family's rules judge
// first: its test case takes as long as they did. Each method has one
// family, so that no request's time is counted twice and the cases' times
// add up to no more than the run's.
var familyMethods = map[string][]string{
	wire.FamilyLifecycle:     {"initialize", "server/discover", "ping"},
	wire.FamilyTools:         {"tools/list", "tools/call"},
	wire.FamilyPrompts:       {"prompts/list", "prompts/get"},
	wire.FamilyResources:     {"resources/list", "resources/read", "resources/templates/list"},
	wire.FamilySubscriptions: {"subscriptions/listen"},
}

// familySeconds is a family's test case's own time: the client's requests
// the family owns (familyMethods), the shutdown for the process family,
// and 0 for the families judged on frames other families' requests
// brought (framing, ids, shapes, schemas, content, pagination, ...) or
// after the run (policy, drift): judging takes no time of its own worth
// a report.
func (r *Report) familySeconds(family string) float64 {
	if family == wire.FamilyProcess {
		return r.Process.ShutdownMs / 1000
	}
	methods, ok := familyMethods[family]
	if !ok {
		return 0
	}
	ms := 0.0
	for _, q := range r.Requests {
		if q.Dir == "c2s" && q.Ms != nil && slices.Contains(methods, q.Method) {
			ms += *q.Ms
		}
	}
	return ms / 1000
}

// stderrTailJUnit is how many of the server's last stderr lines a failed
// case's system-err carries.
const stderrTailJUnit = 20

// junitSystemErr is a failed case's system-err: the line each finding
// points at (its frame as the wire carried it, cut at stderrLineShown
// bytes) and the server's stderr tail, inert.
func (r *Report) junitSystemErr(fs []Finding) string {
	var b strings.Builder
	seen := map[uint64]bool{}
	for _, f := range fs {
		if f.Seq == nil || seen[*f.Seq] {
			continue
		}
		seen[*f.Seq] = true
		if line, ok := r.frameLine(*f.Seq); ok {
			fmt.Fprintf(&b, "frame #%d %s: %s\n", *f.Seq, r.frameDir(*f.Seq), line)
		}
	}
	tail := r.Stderr
	if len(tail) > stderrTailJUnit {
		tail = tail[len(tail)-stderrTailJUnit:]
	}
	if len(tail) > 0 {
		fmt.Fprintf(&b, "stderr (last %d of %d lines):\n", len(tail), r.StderrLines)
		for _, l := range tail {
			fmt.Fprintf(&b, "  | %s\n", cutLine(l))
		}
	}
	return b.String()
}

// frameLine is the first line of frame seq as the wire carried it, inert
// and cut at stderrLineShown bytes; ok is false when the report has not
// the frame's bytes (a report read back from JSON).
func (r *Report) frameLine(seq uint64) (string, bool) {
	i, ok := r.frameAt(seq)
	if !ok || r.Frames[i].frame == nil || len(r.Frames[i].frame.Lines) == 0 {
		return "", false
	}
	return cutLine(string(r.Frames[i].frame.Lines[0].Content)), true
}

// cutLine is a line made inert, cut at stderrLineShown bytes (on a rune
// boundary) with its length said.
func cutLine(l string) string {
	if len(l) <= stderrLineShown {
		return inert(l)
	}
	cut := stderrLineShown
	for cut > 0 && !utf8.RuneStart(l[cut]) {
		cut--
	}
	return fmt.Sprintf("%s …(%d bytes in all)", inert(l[:cut]), len(l))
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

// frameDir is the direction of the frame with Seq seq ("" when unknown).
func (r *Report) frameDir(seq uint64) string {
	if i, ok := r.frameAt(seq); ok {
		return r.Frames[i].Dir
	}
	return ""
}
