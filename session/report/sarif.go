package report

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"linesman/wire"
)

// SARIFSchema is the $schema a SARIF log names: the OASIS SARIF 2.1.0 schema.
const SARIFSchema = "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"

// ProjectURL is the web address of linesman's repository, set when it is
// built (go install -ldflags "-X linesman/session/report.ProjectURL=URL";
// the README's CI recipe sets it from the URL it clones): the module path
// is plain "linesman", so no address can be derived from it, and an
// invented one would send every reader of a SARIF log to a dead link.
var ProjectURL = ""

// InformationURI is tool.driver.informationUri in SARIF logs: the project's
// README, which documents every mode, flag and report ("" when ProjectURL
// was not set at build time: the property is then left out).
func InformationURI() string {
	if ProjectURL == "" {
		return ""
	}
	return strings.TrimSuffix(ProjectURL, ".git") + "#readme"
}

// RuleHelpURI is a rule's helpUri in SARIF logs: the README's section on
// the judge and its rule families ("" without ProjectURL). linesman
// explain CODE prints the entry itself, which the rule's help holds.
func RuleHelpURI(code string) string {
	if ProjectURL == "" {
		return ""
	}
	return strings.TrimSuffix(ProjectURL, ".git") + "#the-protocol-judge"
}

// CIOptions is what the CI reports (SARIF, JUnit) need beside the report.
type CIOptions struct {
	// ConfigFile is the host configuration file the server was started
	// from, when there was one: SARIF results point at it.
	ConfigFile string
	// Seconds is how long the run took, for JUnit's time attributes.
	Seconds float64
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
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties map[string]any  `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
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

// WriteSARIF writes the report as a SARIF 2.1.0 log of one run: a rule per
// finding code (its registry title, the explain text as help, the clause in
// its properties) and a result per finding, at the level of its severity,
// located at the command (and the config file when there was one), with
// the frame seq in its properties. Everything a server wrote is made inert
// ([wire.InertJSON]).
func (r *Report) WriteSARIF(w io.Writer, opt CIOptions) error {
	rules, index := sarifRules(r.Findings)
	run := sarifRun{
		Tool:        sarifTool{Driver: sarifDriver{Name: "linesman", Version: r.Linesman, InformationURI: InformationURI(), Rules: rules}},
		Invocations: []sarifInvocation{r.sarifInvocation()},
		Results:     r.sarifResults(r.sarifLocation(opt.ConfigFile), index, nil),
		Properties:  map[string]any{"era": r.Era, "protocolVersion": r.ProtocolVersion, "serverInfo": r.ServerInfo, "mode": r.Mode},
	}
	return writeSARIF(w, run)
}

// writeSARIF writes a SARIF log of one run, indented and inert.
func writeSARIF(w io.Writer, run sarifRun) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return err
	}
	_, err := w.Write(wire.InertJSON(buf.Bytes()))
	return err
}

// sarifInvocation is the run of linesman that made the report: whether it
// succeeded, the server's command line, and its failure when it had one.
func (r *Report) sarifInvocation() sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: r.Error == "" && !r.Interrupted, CommandLine: ShellJoin(r.Command)}
	if r.Error != "" {
		inv.ToolExecutionNotifications = []sarifNotification{{Level: "error", Message: sarifText{r.Error}}}
	}
	return inv
}

// sarifResults is a result per finding, each at loc, with the rule index
// of its code and props (may be nil) in its property bag.
func (r *Report) sarifResults(loc sarifLocation, index map[string]int, props map[string]any) []sarifResult {
	results := make([]sarifResult, 0, len(r.Findings))
	for _, f := range r.Findings {
		bag := map[string]any{"command": r.Command}
		for k, v := range props {
			bag[k] = v
		}
		if f.Seq != nil {
			bag["seq"] = *f.Seq
		}
		if f.Dir != nil {
			bag["dir"] = *f.Dir
		}
		msg := f.Message
		if msg == "" {
			msg = f.Code
		}
		results = append(results, sarifResult{
			RuleID: f.Code, RuleIndex: index[f.Code], Level: sarifLevelOf(f.Severity),
			Message: sarifText{msg}, Locations: []sarifLocation{loc}, Properties: bag,
		})
	}
	return results
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

// sarifLocation is where a reviewer can follow every finding: the server
// command as a logical location, and as a physical one the config file the
// server was started from, else the command's script (its first argument
// that names a file), else its program.
func (r *Report) sarifLocation(configFile string) sarifLocation {
	cmd := ShellJoin(r.Command)
	loc := sarifLocation{Message: &sarifText{"the MCP server started as: " + cmd}}
	name := cmd
	if len(r.Command) > 0 {
		name = filepath.Base(r.Command[0])
	}
	loc.LogicalLocations = []sarifLogical{{Name: name, FullyQualifiedName: cmd, Kind: "module"}}
	artifact := configFile
	if artifact == "" {
		artifact = commandArtifact(r.Command)
	}
	if artifact != "" {
		loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(artifact)}}
	}
	return loc
}

// commandArtifact is the file a command runs: its first argument that
// names a regular file (python3 server.py: server.py), else its program.
func commandArtifact(argv []string) string {
	for _, a := range argv[min(1, len(argv)):] {
		if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() {
			return a
		}
	}
	if len(argv) > 0 {
		return argv[0]
	}
	return ""
}

// fileURI is a path as a URI reference: relative paths stay relative (to
// the checkout, where code scanning resolves them), absolute ones become
// file URIs.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if filepath.IsAbs(p) {
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	return (&url.URL{Path: p}).String()
}

// clientFix is the rule help's paragraph for a line the client wrote,
// when the fix differs by who wrote it ([wire.Info.FixFor]).
func clientFix(info wire.Info) string {
	if info.ClientFix == "" {
		return ""
	}
	return "\n\nWhen the client sent the line: " + info.ClientFix
}
