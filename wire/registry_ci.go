package wire

import "fmt"

// Rule families of the CI checks (Info.Family): rules the user sets
// (policy) and changes between two runs (drift). Neither is a clause of the
// MCP specification; their entries say so.
const (
	FamilyPolicy = "policy"
	FamilyDrift  = "drift"
)

// ciFamilies are the CI families, listed after the protocol's in Families.
var ciFamilies = []FamilyInfo{
	{FamilyPolicy, "Policy: the tools, durations and latencies the run was told to require"},
	{FamilyDrift, "Drift: tools, prompts and resources changed since the baseline"},
}

// Clauses of the CI entries: what each rests on, since no specification
// clause does.
const (
	specPolicy = `Not a clause of the MCP specification: a policy set on linesman's command line (%s), which the run was told to enforce.`
	specDrift  = `Not a clause of the MCP specification: a drift check of linesman (check --baseline FILE, linesman diff A B) against definitions recorded earlier. ` +
		`MCP, Server › Tools: "Clients SHOULD consider tool annotations to be untrusted unless they come from trusted servers" — what a model reads (names, descriptions, schemas) is trusted on the strength of a review, which a silent change undoes.`
	whyDescription = `A tool's description is read by the model, not by the user: a changed description can carry new instructions ` +
		`(tool poisoning, a "rug pull" after the server was approved), so a description change is a security-relevant change even when the schema stays the same.`
	fixDrift = `Review the change (linesman diff OLD NEW shows it field by field). If it is intended, accept it by writing a new baseline: ` +
		`delete the baseline file and run check --baseline FILE again, and commit the file. If not, find what changed the server (a dependency update, a build from another branch).`
)

var ciEntries = []Info{
	// --- policy ---
	{
		Code: "expected-tool-missing", Severity: SeverityError, Family: FamilyPolicy, Eras: EraBoth,
		Title: "A tool the policy expects is not listed (--expect-tool)",
		Why: `The run was told that the server must offer this tool (--expect-tool NAME), and tools/list did not list it: a host ` +
			`that relies on it will not find it. This is a policy of the run, not a rule of the specification.`,
		Fix: `Check that the tool is registered under exactly that name (names are case-sensitive) and that the server declares the tools capability; ` +
			`or, if the tool was renamed or removed on purpose, change the --expect-tool flags of the CI job.`,
		Spec: fmt.Sprintf(specPolicy, "--expect-tool NAME"),
	},
	{
		Code: "forbidden-tool-present", Severity: SeverityError, Family: FamilyPolicy, Eras: EraBoth,
		Title: "A tool the policy forbids is listed (--forbid-tool)",
		Why: `The run was told that no tool may match this pattern (--forbid-tool GLOB: a shell command runner, a debug tool, a destructive ` +
			`operation) and tools/list listed one: a model talking to this server can call it. This is a policy of the run, not a rule of the specification.`,
		Fix: `Remove the tool from production builds, or register it only behind a configuration switch that the deployed config leaves off; ` +
			`if it is allowed after all, change the --forbid-tool flags of the CI job.`,
		Spec: fmt.Sprintf(specPolicy, "--forbid-tool GLOB, matched as Go's path.Match"),
	},
	{
		Code: "run-over-max-duration", Severity: SeverityError, Family: FamilyPolicy, Eras: EraBoth,
		Title: "The run took longer than the policy allows (--max-duration)",
		Why: `The whole check — start, handshake, listings, shutdown — took longer than --max-duration. Hosts start servers on every launch, ` +
			`often several at once: a slow start delays every session. This is a policy of the run, not a rule of the specification.`,
		Fix: `Do less at start-up: load models, indexes and connections lazily on the first call; exit promptly when stdin closes ` +
			`(a slow shutdown counts too: see ignored-stdin-eof). If the budget is too tight for the CI machine, raise --max-duration.`,
		Spec: fmt.Sprintf(specPolicy, "--max-duration D"),
	},
	{
		Code: "request-over-max-latency", Severity: SeverityError, Family: FamilyPolicy, Eras: EraBoth,
		Title: "A request took longer than the policy allows (--max-latency)",
		Why: `The time from linesman's request to the server's answer exceeded --max-latency. Hosts wait for these answers ` +
			`before the user can start (initialize, the listings). This is a policy of the run, not a rule of the specification.`,
		Fix: `Answer listing and handshake requests from memory; do slow work (network, disk scans) before serving or lazily, ` +
			`and flush stdout after each message (an answer stuck in a buffer counts as slow). If the budget is too tight, raise --max-latency.`,
		Spec: fmt.Sprintf(specPolicy, "--max-latency D, measured from the request's frame to its answer's"),
	},
	// --- drift ---
	{
		Code: "tool-added", Severity: SeverityNote, Family: FamilyDrift, Eras: EraBoth,
		Title: "A tool not in the baseline",
		Why: `The server offers a tool it did not offer when the baseline was written. A new tool is new capability for the model ` +
			`(and new attack surface), so it deserves the review the others had.`,
		Fix:  fixDrift,
		Spec: specDrift,
	},
	{
		Code: "tool-removed", Severity: SeverityError, Family: FamilyDrift, Eras: EraBoth,
		Title: "A tool of the baseline is gone (a breaking change)",
		Why:   `Hosts, prompts and agents that call this tool by name now fail. Removing a tool breaks every client that used it.`,
		Fix:   fixDrift,
		Spec:  specDrift,
	},
	{
		Code: "tool-input-schema-breaking", Severity: SeverityError, Family: FamilyDrift, Eras: EraBoth,
		Title: "A tool's inputSchema changed incompatibly (a breaking change)",
		Why: `Arguments that were valid against the baseline's schema may now be refused: a property removed or its type changed, ` +
			`a new required property, an enum narrowed, additional properties no longer allowed. Callers written for the old schema break.`,
		Fix:  `Keep old arguments valid: add properties as optional, widen rather than narrow, deprecate before removing. ` + fixDrift,
		Spec: specDrift,
	},
	{
		Code: "tool-description-changed", Severity: SeverityWarning, Family: FamilyDrift, Eras: EraBoth,
		Title: "A tool's description changed (security-relevant)",
		Why:   whyDescription,
		Fix:   `Read the new description as a prompt: look for instructions to the model (read files, send data, call other tools). ` + fixDrift,
		Spec:  specDrift,
	},
	{
		Code: "tool-definition-changed", Severity: SeverityWarning, Family: FamilyDrift, Eras: EraBoth,
		Title: "A tool's definition changed compatibly (schema, title or annotations)",
		Why: `Something other than the name and description changed: the input schema in a compatible way, the output schema, ` +
			`the title or the annotations (readOnlyHint, destructiveHint, ...), which hosts use to decide whether to ask the user.`,
		Fix:  fixDrift,
		Spec: specDrift,
	},
	{
		Code: "prompt-added", Severity: SeverityNote, Family: FamilyDrift, Eras: EraBoth,
		Title: "A prompt not in the baseline",
		Why:   `The server offers a prompt it did not offer when the baseline was written; prompts put text in front of the model.`,
		Fix:   fixDrift,
		Spec:  specDrift,
	},
	{
		Code: "prompt-removed", Severity: SeverityError, Family: FamilyDrift, Eras: EraBoth,
		Title: "A prompt of the baseline is gone (a breaking change)",
		Why:   `Users and hosts that invoke the prompt by name (a slash command) now fail.`,
		Fix:   fixDrift,
		Spec:  specDrift,
	},
	{
		Code: "prompt-definition-changed", Severity: SeverityWarning, Family: FamilyDrift, Eras: EraBoth,
		Title: "A prompt's definition changed (description or arguments)",
		Why: `A prompt's description and arguments changed since the baseline; a new required argument breaks callers, and a ` +
			`changed description is read by the model (security-relevant, as for tools).`,
		Fix:  fixDrift,
		Spec: specDrift,
	},
	{
		Code: "resource-added", Severity: SeverityNote, Family: FamilyDrift, Eras: EraBoth,
		Title: "A resource not in the baseline",
		Why:   `The server lists a resource it did not list when the baseline was written: new data a host may hand to the model.`,
		Fix:   fixDrift,
		Spec:  specDrift,
	},
	{
		Code: "resource-removed", Severity: SeverityError, Family: FamilyDrift, Eras: EraBoth,
		Title: "A resource of the baseline is gone (a breaking change)",
		Why:   `Hosts and prompts that read the resource by its URI now get an error.`,
		Fix:   fixDrift,
		Spec:  specDrift,
	},
	{
		Code: "resource-definition-changed", Severity: SeverityWarning, Family: FamilyDrift, Eras: EraBoth,
		Title: "A resource's definition changed (name, description or MIME type)",
		Why:   `A resource's metadata changed since the baseline; its description is read by the model (security-relevant, as for tools).`,
		Fix:   fixDrift,
		Spec:  specDrift,
	},
}
