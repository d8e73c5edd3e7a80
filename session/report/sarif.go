package report

import (
	"cmp"
	"fmt"
	"io"
	"sort"

	"linesman/wire"
)

// SARIFSchema is the $schema a SARIF log names: the OASIS SARIF 2.1.0 schema.
const SARIFSchema = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"

// CIOptions is what the CI reports (SARIF, JUnit) need beside the report.
type CIOptions struct {
	// ConfigFile is the host configuration file the server was started
	// from, when there was one: SARIF results point at it.
	ConfigFile string
	// Seconds is how long the run took, for JUnit's time attributes.
	Seconds float64
	// Recording is the capture the run was recorded to, when there was
	// one and no ConfigFile: each SARIF result points at it, at the line
	// FrameLines gives its frame (a frame's seq to its line), else line 1.
	Recording  string
	FrameLines map[uint64]int
	// FailOn is the --fail-on level in effect ("" is "error"): a JUnit
	// test case fails exactly when its findings fail the run.
	FailOn string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []sarifResult     `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration sarifLevel     `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifLevel struct {
	Level string `json:"level"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	CommandLine                string              `json:"commandLine,omitempty"`
	ExitCode                   *int                `json:"exitCode,omitempty"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	Properties                 map[string]any      `json:"properties,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex int    `json:"ruleIndex"`
	// Kind and Level are the run's verdict on the finding ([sarifVerdict]).
	Kind      string          `json:"kind"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
	// PartialFingerprints identify the result across runs (code scanning
	// tracks an alert by them): see [Report.fingerprint].
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

// sarifRegion is the line a result points at (code scanning shows and
// tracks a result only with a startLine).
type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifLevelOf maps a severity to a SARIF level ("error", "warning",
// "note"; anything else is "none").
func sarifLevelOf(severity string) string {
	switch severity {
	case "error", "warning", "note":
		return severity
	}
	return "none"
}

// sarifVerdict is a result's kind and level under --fail-on failOn, the
// policy that sets the exit status ([Report.ExitStatusAt]): a finding
// that fails the run is a "fail" at level "error" (the level code
// scanning fails a pull request's check on), whatever its severity; one
// below the policy keeps its severity as level ("warning" or "note").
// So a log has a result at level error exactly when the run exits 1 on
// its findings.
func sarifVerdict(severity, failOn string) (kind, level string) {
	if fails(severity, cmp.Or(failOn, "error")) {
		return "fail", "error"
	}
	if lv := sarifLevelOf(severity); lv != "none" && lv != "error" {
		return "fail", lv
	}
	return "informational", "none"
}

// WriteSARIF writes the report as a SARIF 2.1.0 log of one run: a rule per
// finding code (its registry title, the explain text as help, the clause in
// its properties) and a result per finding, of the kind and level the
// --fail-on policy gives it ([sarifVerdict]),
// located at line 1 of the config file the server came from (else of its
// script or program) with the command as logical location, fingerprinted
// to be tracked across runs, with the frame seq in its properties. The
// invocation carries the rule families' verdicts. Everything a server
// wrote is made inert ([wire.InertJSON]).
func (r *Report) WriteSARIF(w io.Writer, opt CIOptions) error {
	rules, index := sarifRules(r.Findings)
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "linesman", Version: r.Linesman, InformationURI: InformationURI(), Rules: rules}},
		Invocations: []sarifInvocation{r.sarifInvocation(opt.FailOn)},
		Results:     r.sarifResults(r.sarifLocation(opt.ConfigFile, 1), index, "", opt.FailOn),
		Properties:  map[string]any{"era": r.Era, "protocolVersion": r.ProtocolVersion, "serverInfo": r.ServerInfo, "mode": r.Mode},
	}
	if opt.ConfigFile == "" && opt.Recording != "" {
		r.pointAtRecording(run.Results, opt)
	}
	return writeSARIF(w, run)
}

// pointAtRecording points each result at the recording: the line of the
// frame its finding points at, else line 1 (findings of no frame).
func (r *Report) pointAtRecording(results []sarifResult, opt CIOptions) {
	for i := range results {
		line := 1
		if seq, ok := results[i].Properties["seq"].(uint64); ok && opt.FrameLines[seq] > 0 {
			line = opt.FrameLines[seq]
		}
		loc := results[i].Locations[0]
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(opt.Recording)}, Region: &sarifRegion{StartLine: line}}
		results[i].Locations = []sarifLocation{loc}
	}
}

// writeSARIF writes a SARIF log of one run, indented and inert.
func writeSARIF(w io.Writer, run sarifRun) error {
	return writeIndented(w, sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// sarifInvocation is the run of linesman that made the report: whether it
// succeeded, the server's command line, its failure when it had one, and
// the rule families' verdicts (what held, was not observed or does not
// apply, which results alone cannot say), and the exit status under
// --fail-on failOn with a notification when findings the log does not
// list (dropped by the retention limit) fail the run.
func (r *Report) sarifInvocation(failOn string) sarifInvocation {
	failOn = cmp.Or(failOn, "error")
	status, _ := r.ExitStatusAt(failOn)
	inv := sarifInvocation{ExecutionSuccessful: r.Error == "" && !r.Interrupted, CommandLine: ShellJoin(r.Command), ExitCode: &status}
	if r.Error != "" {
		inv.ToolExecutionNotifications = []sarifNotification{{Level: "error", Message: sarifText{r.Error}}}
	}
	if status == 1 && r.Error == "" && !r.anyFails(failOn) {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "error",
			Message: sarifText{"findings at or above --fail-on " + failOn + " that the log does not list (dropped by the retention limit) fail the run"}})
	}
	if len(r.Rules) > 0 {
		inv.Properties = map[string]any{"ruleFamilies": r.Rules}
	}
	return inv
}

// sarifResults is a result per finding, each at loc, with the rule index
// of its code. server is the entry's name under --all ("" for one
// server): each message and property bag names it, and it keys the
// fingerprints. failOn decides each result's kind and level.
func (r *Report) sarifResults(loc sarifLocation, index map[string]int, server, failOn string) []sarifResult {
	results := make([]sarifResult, 0, len(r.Findings))
	fp := r.fingerprinter(server)
	for _, f := range r.Findings {
		bag := map[string]any{"command": r.Command}
		if server != "" {
			bag["server"] = server
		}
		if f.Seq != nil {
			bag["seq"] = *f.Seq
		}
		if f.Dir != nil {
			bag["dir"] = *f.Dir
		}
		msg := cmp.Or(f.Message, f.Code)
		if server != "" {
			msg = fmt.Sprintf("server %q: %s", server, msg)
		}
		kind, level := sarifVerdict(f.Severity, failOn)
		bag["severity"] = f.Severity
		results = append(results, sarifResult{
			RuleID: f.Code, RuleIndex: index[f.Code], Kind: kind, Level: level,
			Message: sarifText{msg}, Locations: []sarifLocation{loc},
			PartialFingerprints: map[string]string{fingerprintKey: fp(f)}, Properties: bag,
		})
	}
	return results
}

// anyFails reports whether a listed finding fails the run under failOn.
func (r *Report) anyFails(failOn string) bool {
	for _, f := range r.Findings {
		if fails(f.Severity, failOn) {
			return true
		}
	}
	return false
}

// sarifRules is one rule per finding code among findings, sorted by code,
// and each code's index among them.
func sarifRules(findings []Finding) ([]sarifRule, map[string]int) {
	var codes []string
	seen := map[string]bool{}
	sev := map[string]string{}
	for _, f := range findings {
		if !seen[f.Code] {
			seen[f.Code] = true
			codes = append(codes, f.Code)
			sev[f.Code] = f.Severity
		}
	}
	sort.Strings(codes)
	rules := make([]sarifRule, 0, len(codes))
	index := map[string]int{}
	for i, code := range codes {
		index[code] = i
		rule := sarifRule{ID: code, Name: code, ShortDescription: sarifText{code}, FullDescription: sarifText{code},
			Help: sarifText{"linesman explain " + code}, DefaultConfiguration: sarifLevel{sarifLevelOf(sev[code])},
			Properties: map[string]any{}}
		if info, ok := wire.Lookup(code); ok {
			rule.ShortDescription = sarifText{info.Title}
			rule.FullDescription = sarifText{info.Title + " " + info.Why}
			rule.Help = sarifText{"Why it matters: " + info.Why + "\n\nHow to fix it: " + info.Fix + clientFix(info) + "\n\nRule: " + info.Spec}
			rule.HelpURI = RuleHelpURI(code)
			rule.DefaultConfiguration = sarifLevel{sarifLevelOf(info.Severity.String())}
			rule.Properties = map[string]any{"clause": info.Spec, "family": info.Family, "eras": info.Eras}
		}
		rules = append(rules, rule)
	}
	return rules, index
}

// clientFix is the rule help's paragraph for a line the client wrote,
// when the fix differs by who wrote it ([wire.Info.FixFor]).
func clientFix(info wire.Info) string {
	if info.ClientFix == "" {
		return ""
	}
	return "\n\nWhen the client sent the line: " + info.ClientFix
}
