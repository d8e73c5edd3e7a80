package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"linesman/session/eventlog"
)

// Multi is the report of `check --config FILE --all`: every server of a
// config file, each checked on its own, in one document.
type Multi struct {
	Linesman string         `json:"linesman"`
	Mode     string         `json:"mode"`   // "check-all"
	Config   string         `json:"config"` // the config file
	Servers  []ServerResult `json:"servers"`
	Summary  MultiSummary   `json:"summary"`
	// Seconds is how long the whole run took (not in the JSON document).
	Seconds float64 `json:"-"`
}

// ServerResult is one entry of the config file and what its check found.
type ServerResult struct {
	Name string `json:"name"` // the entry's name in the config file
	// Status is "passed", "failed" (findings at the --fail-on severity,
	// or the run failed: see Report.Error), "skipped" (never started:
	// Skipped says why) or "interrupted".
	Status  string  `json:"status"`
	Skipped string  `json:"skipped,omitempty"`
	Report  *Report `json:"report,omitempty"`
	// Line is the line of the entry in the config file (0: not known).
	Line int `json:"line,omitempty"`
	// ExitStatus is the status the server's own check would have exited with.
	ExitStatus int `json:"exitStatus"`
}

// MultiSummary counts the servers by status, and the findings of all.
type MultiSummary struct {
	Servers     int `json:"servers"`
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`
	Skipped     int `json:"skipped"`
	Interrupted int `json:"interrupted"`
	Errors      int `json:"errors"`
	Warnings    int `json:"warnings"`
	Notes       int `json:"notes"`
}

// NewMulti sums up servers checked from the config file.
func NewMulti(config string, servers []ServerResult) Multi {
	m := Multi{Linesman: eventlog.Version, Mode: "check-all", Config: config, Servers: servers}
	for _, s := range servers {
		m.Summary.Servers++
		switch s.Status {
		case "passed":
			m.Summary.Passed++
		case "failed":
			m.Summary.Failed++
		case "skipped":
			m.Summary.Skipped++
		case "interrupted":
			m.Summary.Interrupted++
		}
		if s.Report != nil {
			m.Summary.Errors += s.Report.Summary.Errors
			m.Summary.Warnings += s.Report.Summary.Warnings
			m.Summary.Notes += s.Report.Summary.Notes
		}
	}
	return m
}

// WriteJSON writes the document, indented and inert ([Report.WriteJSON]).
func (m *Multi) WriteJSON(w io.Writer) error { return writeInertJSON(w, m) }

// WriteText writes the full text report of every server that did not
// pass, then one summary table of all (name, status, era, counts, time,
// why it failed or was skipped). Names and messages are inert.
func (m *Multi) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, s := range m.Servers {
		if s.Status == "passed" || s.Report == nil {
			continue
		}
		fmt.Fprintf(&b, "══ %s ══\n", inert(s.Name))
		var one bytes.Buffer
		if err := s.Report.WriteText(&one); err != nil {
			return err
		}
		b.Write(one.Bytes())
		b.WriteString("\n")
	}
	width := len("server")
	for _, s := range m.Servers {
		width = max(width, len([]rune(inert(s.Name))))
	}
	fmt.Fprintf(&b, "linesman %s check --all: %s (%s)\n", m.Linesman, inert(m.Config), plural(m.Summary.Servers, "server"))
	fmt.Fprintf(&b, "  %-*s  %-11s  %-7s  %6s  %8s  %5s  %7s  %s\n", width, "server", "status", "era", "errors", "warnings", "notes", "seconds", "")
	for _, s := range m.Servers {
		era, why := "", s.Skipped
		var e, wn, n int
		secs := ""
		if r := s.Report; r != nil {
			era, e, wn, n, why = r.Era, r.Summary.Errors, r.Summary.Warnings, r.Summary.Notes, r.Error
			secs = fmt.Sprintf("%.2f", r.Seconds)
		}
		fmt.Fprintf(&b, "  %-*s  %-11s  %-7s  %6d  %8d  %5d  %7s  %s\n", width, inert(s.Name), s.Status, era, e, wn, n, secs, inert(firstLine(why)))
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d skipped", m.Summary.Passed, m.Summary.Failed, m.Summary.Skipped)
	if m.Summary.Interrupted > 0 {
		fmt.Fprintf(&b, ", %d interrupted", m.Summary.Interrupted)
	}
	fmt.Fprintf(&b, " — %s, %s, %s in all\n", plural(m.Summary.Errors, "error"), plural(m.Summary.Warnings, "warning"), plural(m.Summary.Notes, "note"))
	_, err := io.WriteString(w, b.String())
	return err
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// WriteJUnit writes one JUnit document: a testsuite per server (named by
// its entry in the config file), test cases per rule family as for one
// server ([Report.WriteJUnit]) under opt.FailOn, so that the suites that
// fail are the servers that failed; a skipped server is a suite with one
// skipped test case saying why.
func (m *Multi) WriteJUnit(w io.Writer, opt CIOptions) error {
	doc := junitSuites{Name: "linesman check --all " + inert(m.Config), Time: fmt.Sprintf("%.3f", m.Seconds)}
	for _, s := range m.Servers {
		var suite junitSuite
		if s.Report != nil {
			suite = s.Report.junitSuite(CIOptions{Seconds: s.Report.Seconds, FailOn: opt.FailOn})
			suite.Properties = append([]junitProperty{{"server", inert(suite.Name)}}, suite.Properties...)
		} else {
			suite = junitSuite{Time: "0.000", Tests: 1, Skipped: 1, Cases: []junitCase{{Name: "run",
				Classname: "linesman." + inert(s.Name), Time: "0.000", Skipped: &junitSkipped{Message: inert(s.Skipped)}}}}
		}
		suite.Name = inert(s.Name)
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Errors += suite.Errors
		doc.Suites = append(doc.Suites, suite)
	}
	return writeJUnitDoc(w, doc)
}

// WriteSARIF writes one SARIF log of one run for all servers: the rules of
// every code found, an invocation per server checked, and every finding a
// result located at its server's entry in the config file (the entry's
// line), its message and property bag naming the server, its fingerprint
// keyed by the server's name, with the entry as its logical location, of
// the kind and level --fail-on gives it (as for one server).
func (m *Multi) WriteSARIF(w io.Writer, opt CIOptions) error {
	var all []Finding
	for _, s := range m.Servers {
		if s.Report != nil {
			all = append(all, s.Report.Findings...)
		}
	}
	rules, index := sarifRules(all)
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "linesman", Version: m.Linesman, InformationURI: InformationURI(), Rules: rules}},
		Invocations: []sarifInvocation{},
		Results:     []sarifResult{},
		Properties:  map[string]any{"mode": m.Mode, "config": m.Config},
	}
	for _, s := range m.Servers {
		if s.Report == nil {
			continue
		}
		r := s.Report
		loc := r.sarifLocation(m.Config, s.Line)
		loc.LogicalLocations = []sarifLogical{{Name: s.Name, FullyQualifiedName: m.Config + "#" + s.Name, Kind: "module"}}
		loc.Message = &sarifText{fmt.Sprintf("the MCP server %q of %s, started as: %s", s.Name, m.Config, ShellJoin(r.Command))}
		inv := r.sarifInvocation(opt.FailOn)
		if inv.Properties == nil {
			inv.Properties = map[string]any{}
		}
		inv.Properties["server"] = s.Name
		run.Invocations = append(run.Invocations, inv)
		run.Results = append(run.Results, r.sarifResults(loc, index, s.Name, opt.FailOn)...)
	}
	return writeSARIF(w, run)
}

// writeInertJSON writes v as one indented JSON document and a newline,
// with the controls encoding/json leaves raw escaped ([wire.InertJSON]).
func writeInertJSON(w io.Writer, v any) error {
	return writeIndented(w, v)
}
