package wire

import (
	"sort"
	"sync"
)

// Info describes a finding code: what it means, why it matters, how to fix
// it and which rule it rests on. `linesman explain` and the UI's explain
// panel print it, so every entry is written to teach.
type Info struct {
	Code     string
	Severity Severity
	Title    string // one line
	Why      string // why it matters, in a few sentences
	Fix      string // how to fix it, concretely, per language where it helps
	// ClientFix is how to fix it when the client wrote the frame (the user
	// through linesman, or the host under a tap); "" when Fix holds for
	// either side. Read it through [Info.FixFor].
	ClientFix string
	Spec      string // the clause it rests on, quoted, with its source
	Family    string // the rule family (see Families)
	Eras      string // the eras the rule applies to: EraBoth, EraLegacyOnly or EraModernOnly
	// Party is who a finding of the code holds at fault (see [PartyOf]);
	// PartyHost for the host rules.
	Party Party
}

// FixFor is how to fix a finding on a frame that travelled in direction d:
// ClientFix for a frame the client wrote, when the entry has one, else
// Fix. Every view of one finding's fix (the reports, the UI) asks it, so
// that a line the user sent never gets the advice meant for a server.
func (i Info) FixFor(d Dir) string {
	if d == ClientToServer && i.ClientFix != "" {
		return i.ClientFix
	}
	return i.Fix
}

// Lookup returns the registry entry for code.
func Lookup(code string) (Info, bool) {
	i, ok := registry()[code]
	return i, ok
}

// Codes returns every registered code, sorted by code.
func Codes() []Info {
	out := make([]Info, 0, len(registry()))
	for _, i := range registry() {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Code < out[b].Code })
	return out
}

// NewFinding returns a finding with the registry's severity for code. An
// unregistered code gets SeverityError, so that a typo is loud rather than
// quietly downgraded; TestEveryEmittedCodeIsRegistered keeps that from
// happening in wire.
func NewFinding(code, message string) Finding {
	sev := SeverityError
	if i, ok := registry()[code]; ok {
		sev = i.Severity
	}
	return Finding{Code: code, Severity: sev, Message: message}
}

// Clauses quoted by several entries.
const (
	specNewlines = `MCP, Transports › stdio: "Messages are delimited by newlines, and MUST NOT contain embedded newlines."`
	specStdout   = `MCP, Transports › stdio: "The server MUST NOT write anything to its stdout that is not a valid MCP message."`
	specStderr   = `MCP, Transports › stdio: "The server MAY write UTF-8 strings to its standard error (stderr) for logging purposes."`
	specShutdown = `MCP, Lifecycle › Shutdown (stdio): "For the stdio transport, the client SHOULD initiate shutdown by: 1. First, closing the input stream to the child process (the server) 2. Waiting for the server to exit, or sending SIGTERM if the server does not exit within a reasonable time 3. Sending SIGKILL if the server does not exit within a reasonable time after SIGTERM"`
	specIDs      = `MCP, Base protocol › Requests: "Requests MUST include a string or integer ID. Unlike base JSON-RPC, the ID MUST NOT be null. The request ID MUST NOT have been previously used by the requestor within the same session."`
	specResponse = `MCP, Base protocol › Responses: "Responses MUST include the same ID as the request they correspond to. Either a result or an error MUST be set. A response MUST NOT set both."`
	specProgress = `MCP, Progress: "The progress value MUST increase with each notification, even if the total is unknown." "Progress notifications MUST only reference tokens that: were provided in an active request; are associated with an in-progress operation."`

	// clientSide closes the fix of a framing finding on a line the client
	// wrote: who that was, and when there is nothing to fix.
	clientSide = `The line came from the client side: typed in linesman's composer, read by linesman send (which passes on a line it cannot complete as it is, and under --raw everything as given), or written by the host a tap sits under. ` +
		`Sent on purpose, to see how the server copes, it needs no fix: judge the server by its answer. A host that writes it has a bug to report to its makers.`

	fixStdout = `Send logs to stderr, never stdout. Python: print(..., file=sys.stderr) or logging (its default handler writes to stderr). ` +
		`Node: console.error(...) (console.log writes to stdout). Go: log.SetOutput(os.Stderr), or fmt.Fprintln(os.Stderr, ...). ` +
		`Rust: eprintln!. Java: System.err. Also silence libraries and subprocesses that print: run child processes with their stdout redirected (to stderr or /dev/null), not inherited.`
)

// registry maps each code to its entry. It is built on first use, not at
// init: a process that starts a server (or the reaper helper) should not
// spend its start-up on it before the first byte goes out.
var registry = sync.OnceValue(func() map[string]Info {
	m := make(map[string]Info)
	for _, i := range append(append(append(append(append(entries, protocolEntries...), featureEntries...), ciEntries...), missEntries...), hostEntries...) {
		i = withFamily(i)
		if _, dup := m[i.Code]; dup {
			panic("wire: duplicate registry code " + i.Code)
		}
		m[i.Code] = i
	}
	return m
})

var entries = []Info{
	// --- framing (wire) ---
	{
		Code: "non-json-line", Severity: SeverityError,
		Title: "A line on the wire that is not a JSON-RPC message",
		Why: `stdout is the protocol channel: every line is parsed as a message. A stray line (a print(), a banner, a progress bar, ` +
			`a library's warning) makes strict clients drop the connection and lenient ones silently skip it — or lose the real message it was glued to.`,
		Fix:       fixStdout,
		ClientFix: `The client sent this line, not the server: send one JSON-RPC message per line, such as {"jsonrpc":"2.0","id":1,"method":"ping"}. ` + clientSide,
		Spec:      specStdout,
	},
	{
		Code: "multi-line-frame", Severity: SeverityError,
		Title: "One message spread over several lines (pretty-printed JSON)",
		Why: `Clients split stdout on "\n" and parse each line alone, so an indented message arrives as a run of fragments that are not JSON. ` +
			`linesman reassembled it to show it, but a real client will not.`,
		Fix: `Serialise compactly, one message per line, then write "\n". Python: json.dumps(msg) without indent=, or separators=(",", ":"). ` +
			`Node: JSON.stringify(msg) without the third argument. Go: json.Marshal, not MarshalIndent; json.Encoder without SetIndent. ` +
			`Escape newlines inside strings as \n (every JSON encoder does).`,
		Spec: specNewlines,
	},
	{
		Code: "blank-line", Severity: SeverityNote,
		Title:     "An empty line on the wire",
		Why:       `An empty line is not a message. Most clients skip it, but a strict one counts it as a parse error, and it usually means something writes an extra "\n" (print() after a message that already ends in one).`,
		Fix:       `Write exactly one "\n" after each message: Python sys.stdout.write(line + "\n") rather than print(line + "\n"); Node process.stdout.write(json + "\n").`,
		ClientFix: `The client sent this empty line, not the server: write exactly one "\n" after each message and no line of its own. ` + clientSide,
		Spec:      specStdout,
	},
	{
		Code: "crlf-line-ending", Severity: SeverityNote,
		Title: `A line ends with "\r\n" instead of "\n"`,
		Why:   `The delimiter is "\n". JSON parsers accept the trailing "\r" as whitespace, so most clients cope, but byte-exact framers and some tools do not. It usually comes from Windows text mode.`,
		Fix: `Write in binary mode or set the newline explicitly. Python on Windows: sys.stdout.reconfigure(newline="\n") or open the stream with newline="\n". ` +
			`.NET: Console.Out.NewLine = "\n". Node and Go write "\n" unless told otherwise.`,
		ClientFix: `The client sent this "\r\n", not the server: end each message with "\n" alone (a file saved with Windows line ends keeps its "\r" under send --raw). ` + clientSide,
		Spec:      specNewlines,
	},
	{
		Code: "invalid-utf8", Severity: SeverityError,
		Title: "Bytes that are not valid UTF-8",
		Why: `MCP messages are UTF-8 JSON. Invalid bytes make strict parsers reject the whole message and lenient ones replace them with U+FFFD, ` +
			`so data (a file name, a tool result) arrives corrupted. linesman keeps the bytes as they were and shows them.`,
		Fix: `Decode external bytes before putting them in a message and encode the message as UTF-8. Python: open files with encoding="utf-8", ` +
			`or set PYTHONIOENCODING=utf-8 / PYTHONUTF8=1 for stdout; send binary data as base64. Node: Buffer.toString("utf8") or base64. Go: strings.ToValidUTF8, or base64 for binary.`,
		ClientFix: `The client sent these bytes, not the server: encode every message as UTF-8, and binary data as base64. ` + clientSide,
		Spec:      `MCP, Transports: "JSON-RPC messages MUST be UTF-8 encoded." RFC 8259 §8.1: "JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8."`,
	},
	{
		Code: "utf8-bom", Severity: SeverityWarning,
		Title:     "A UTF-8 byte order mark (EF BB BF) before the JSON",
		Why:       `A BOM is not JSON whitespace. Many parsers (Node's JSON.parse, Python's json.loads on str) reject the line. It usually comes from an encoding set to "utf-8-sig" or a Windows default.`,
		Fix:       `Use plain UTF-8 without a signature. Python: encoding="utf-8", not "utf-8-sig". .NET: new UTF8Encoding(false) for Console.Out. PowerShell: [Console]::OutputEncoding = [Text.UTF8Encoding]::new($false).`,
		ClientFix: `The client sent this byte order mark, not the server: save the input as UTF-8 without a signature (an editor set to "UTF-8 with BOM" writes one). ` + clientSide,
		Spec:      `RFC 8259 §8.1: "Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON text."`,
	},
	{
		Code: "control-characters", Severity: SeverityWarning,
		Title: "Raw control bytes (other than tab) inside a frame",
		Why: `Control bytes cannot appear raw inside JSON strings, so they mean the line is not what it claims: terminal escape sequences from a coloured logger, ` +
			`a "\r" progress bar, or binary junk. A lone "\r" also splits the line for tools that treat it as a line end.`,
		Fix: `Turn off colours and progress bars when stdout is not a terminal (NO_COLOR=1, TERM=dumb, the library's isatty check), send logs to stderr, ` +
			`and escape control characters inside strings (\u001b) — a JSON encoder does that for you; hand-built JSON does not.`,
		ClientFix: `The client sent these control bytes, not the server: escape control characters inside strings (\u001b) and send nothing else on the line; a JSON encoder does that, hand-typed JSON may not. ` + clientSide,
		Spec:      `RFC 8259 §7: "All Unicode characters may be placed within the quotation marks, except for the characters that MUST be escaped: quotation mark, reverse solidus, and the control characters (U+0000 through U+001F)." ` + specStdout,
	},
	{
		Code: "unterminated-frame", Severity: SeverityError,
		Title: "Bytes at the end of the stream with no newline",
		Why: `A client only parses a line once its "\n" arrives. A message without one is never delivered: the request it answers waits until it times out. ` +
			`At exit it means the last write was cut short or never flushed.`,
		Fix: `End every message with "\n" and flush after it. Python: sys.stdout.write(json + "\n"); sys.stdout.flush(). Node: process.stdout.write(json + "\n"). ` +
			`Go: write msg + "\n" in one Write, or flush the bufio.Writer.`,
		ClientFix: `The client sent this line without its "\n", not the server: end every message with "\n" (a server reading lines sees a last line without one only at EOF). ` + clientSide,
		Spec:      specNewlines,
	},
	{
		Code: "oversize-frame", Severity: SeverityWarning,
		Title: "A line longer than the maximum frame size",
		Why: `linesman keeps only the first bytes of the line (see --max-frame) and records its real length. Clients have limits too — some stop at 64 KiB or a few MiB — ` +
			`so a huge message may be dropped or kill the connection.`,
		Fix: `Keep messages small: page large results (cursor / nextCursor), return a resource link instead of inlining a big file, ` +
			`or raise the client's limit. To inspect the whole line, raise linesman's --max-frame.`,
		Spec: specNewlines + ` (the protocol sets no size limit; every reader has one)`,
	},
	{
		Code: "batch-array", Severity: SeverityError,
		Title: "A JSON array: a JSON-RPC batch",
		Why:   `Batches were allowed in MCP 2025-03-26 only and removed in 2025-06-18; current clients and servers expect exactly one message object per line. In a session that negotiated 2025-03-26 a batch is no foul, and linesman notes it instead (it does not judge the messages inside).`,
		Fix:   `Send each message on its own line. If a framework batches automatically, turn that off.`,
		Spec:  `MCP changelog 2025-06-18: "Remove support for JSON-RPC batching." ` + `MCP, Transports › stdio: "Each message is a single JSON-RPC request, notification, or response."`,
	},
	{
		Code: "invalid-jsonrpc", Severity: SeverityError,
		Title: "JSON, but not a valid JSON-RPC 2.0 message",
		Why: `The peer cannot tell what the message is — request, notification or response — so it either rejects it or guesses. ` +
			`The finding's message says which rule broke: "jsonrpc" missing or not "2.0", both "result" and "error", a null id on a request, a member of the wrong type.`,
		Fix: `Build messages with an SDK or a fixed shape: {"jsonrpc":"2.0","id":1,"method":"...","params":{...}} for a request, ` +
			`{"jsonrpc":"2.0","id":1,"result":{...}} or {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"..."}} for a response, no "id" on a notification.`,
		Spec: `JSON-RPC 2.0 §4: "jsonrpc: A String specifying the version of the JSON-RPC protocol. MUST be exactly "2.0"." §5: "Either the result member or error member MUST be included, but both members MUST NOT be included." ` + specIDs,
	},
	{
		Code: "duplicate-key", Severity: SeverityWarning,
		Title: "A key appears twice in the message object",
		Why:   `Parsers disagree on which value wins (JavaScript and Python take the last, some take the first, some reject), so two readers of the same line can see two different messages — a different id or method.`,
		Fix:   `Build the message as a map or struct and let the encoder write it; never concatenate JSON strings by hand.`,
		Spec:  `RFC 8259 §4: "The names within an object SHOULD be unique." "When the names within an object are not unique, the behavior of software that receives such an object is unpredictable."`,
	},
	{
		Code: "non-integer-id", Severity: SeverityWarning,
		Title: "A numeric id that is not spelled as a plain integer",
		Why: `1.0, 1e0 and 1 are the same number to some parsers and different ids to others, and 1.5 is not an integer at all. ` +
			`A client that matches responses by the exact id may never match this one.`,
		Fix:  `Use integers (1, 2, 3) or strings ("req-1") as ids, and echo the request's id back exactly as it was received.`,
		Spec: `MCP: "Requests MUST include a string or integer ID." JSON-RPC 2.0 §4: "Numbers SHOULD NOT contain fractional parts."`,
	},

	// --- process and transport (session) ---
	{
		Code: "pipe-held-after-exit", Severity: SeverityWarning,
		Title: "The server exited but something still holds its stdout or stderr open",
		Why: `A child or grandchild process inherited the pipe and is still running. Clients that wait for EOF hang, ` +
			`and whatever that process prints lands in the protocol stream.`,
		Fix: `Do not let subprocesses inherit stdout: Python subprocess.run(..., stdout=subprocess.DEVNULL or sys.stderr); Node spawn(cmd, {stdio: ["ignore", "ignore", "inherit"]}); ` +
			`Go exec.Cmd with Stdout set to os.Stderr or nil. Make sure children exit with the server.`,
		Spec: specStdout,
	},
	{
		Code: "ignored-stdin-eof", Severity: SeverityWarning,
		Title: "The server kept running after its stdin was closed",
		Why:   `Closing stdin is how a stdio client asks the server to stop. A server that ignores it has to be killed with SIGTERM, and loses whatever it would have done on a clean exit. Judged on linesman's own shutdown (--stdin-wait), and on a host's under a tap or in its recording: the server still running when the host signals it 1.5 s or more after closing its stdin (hosts wait 2 s to 5 s; a host that signals sooner gave it no reasonable time).`,
		Fix: `Exit when reading stdin returns end-of-file: Python, leave the loop when sys.stdin.readline() returns ""; Node, process.stdin.on("end", () => process.exit(0)); ` +
			`Go, return when the read returns io.EOF. Background threads must not keep the process alive (daemon threads, unref'd timers).`,
		Spec: specShutdown,
	},
	{
		Code: "needed-sigkill", Severity: SeverityError,
		Title: "The server only stopped on SIGKILL",
		Why:   `It ignored both stdin EOF and SIGTERM. Nothing it holds (files, child processes, temporary state) was cleaned up. Judged on linesman's own shutdown (--sigterm-wait), and on a host's: the server still running when the host sends SIGKILL 1.5 s or more after its SIGTERM.`,
		Fix:   `Handle SIGTERM (Python: signal.signal(signal.SIGTERM, ...); Node: process.on("SIGTERM", ...); Go: signal.NotifyContext) by cleaning up and exiting promptly; never block in a handler or swallow the signal.`,
		Spec:  specShutdown,
	},
	{
		Code: "stdin-not-read", Severity: SeverityWarning,
		Title: "The server stopped reading its stdin",
		Why:   `The pipe to the server is full: the server is busy, blocked, or reads only at startup. Requests wait in linesman's queue and the server sees nothing new.`,
		Fix:   `Read stdin continuously on its own thread or task and hand work off; never block the reading loop on a long tool call.`,
		Spec:  `MCP, Transports › stdio: "The server reads JSON-RPC messages from its standard input (stdin)."`,
	},
	{
		Code: "exit-at-start", Severity: SeverityError,
		Title: "The server exited before answering anything",
		Why:   `Usually a crash at startup: a missing dependency, a bad argument, a missing environment variable, the wrong working directory. The reason is almost always on stderr.`,
		Fix:   `Read the server's stderr (the stderr pane in the inspector, the stderr tail of a report). Run the command by hand in the same directory with the same environment; check the shebang, the virtualenv or node_modules, and required variables (-e KEY=VALUE).`,
		Spec:  `MCP, Lifecycle › Initialization: "The initialization phase MUST be the first interaction between client and server." (In 2026-07-28 the first request is server/discover.) A server that exits first cannot take part in it.`,
	},
	{
		Code: "exited-during-request", Severity: SeverityError,
		Title: "The server exited with requests still in flight",
		Why:   `Those requests will never be answered: the server crashed, or quit on something it should have reported as an error response.`,
		Fix:   `Look at the stderr tail for the traceback. Catch errors per request and answer with a JSON-RPC error ({"code":-32603,"message":...}) instead of exiting.`,
		Spec:  `JSON-RPC 2.0 §5: "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."`,
	},
	{
		Code: "stderr-escape-sequences", Severity: SeverityWarning,
		Title: "Terminal escape sequences on stderr",
		Why:   `Colour and cursor codes are meant for a terminal; a client that shows or logs stderr gets garbage, and a malicious sequence can rewrite a terminal that prints it raw. linesman shows them inert.`,
		Fix:   `Disable colour when stderr is not a terminal: honour NO_COLOR, or configure the logger (Python logging without colorlog; Node chalk.level = 0 / FORCE_COLOR=0; Go: check term.IsTerminal).`,
		Spec:  specStderr,
	},

	// --- protocol (session tracker) ---
	{
		Code: "reused-id-in-flight", Severity: SeverityError,
		Title: "A request reuses an id that is still in flight",
		Why:   `Two requests now share one id, so their responses cannot be told apart: one caller gets the other's answer and the other waits forever. Every era forbids this.`,
		Fix:   `Mint ids from one counter per connection (or UUIDs) and never reuse one; when ids are typed by hand, advance the counter past them.`,
		Spec:  specIDs,
	},
	{
		Code: "reused-id", Severity: SeverityWarning,
		Title: "A request reuses an id from earlier in the session",
		Why: `Before 2026-07-28 an id may never be reused within a session (a warning); in 2026-07-28 only ids still in flight are forbidden, ` +
			`so reuse after the answer is legal (a note). Either way, logs and late responses become ambiguous.`,
		Fix:  `Use a monotonically increasing counter per direction, starting above any id already seen.`,
		Spec: specIDs,
	},
	{
		Code: "unknown-response-id", Severity: SeverityError,
		Title: "A response whose id matches no request",
		Why:   `The peer answered something that was never asked — a wrong or rewritten id, or a response for another connection. The real request stays unanswered.`,
		Fix:   `Copy the request's id into the response unchanged (same type, same value); do not generate response ids.`,
		Spec:  specResponse,
	},
	{
		Code: "duplicate-response", Severity: SeverityError,
		Title: "A second response to the same request",
		Why:   `Each request gets exactly one response. The second one is dropped by clients, or — if the id has been reused meanwhile — delivered to the wrong request.`,
		Fix:   `Send exactly one response per request, also on error paths (a try/finally that answers twice is the usual cause).`,
		Spec:  specResponse,
	},
	{
		Code: "id-type-mismatch", Severity: SeverityWarning,
		Title: `A response id has another type than the request's ("2" answering 2)`,
		Why:   `2 and "2" are different ids in JSON-RPC; clients that match strictly (the official SDKs) never deliver this response.`,
		Fix:   `Keep the id as the raw JSON value and echo it back; do not convert it to a string or a number.`,
		Spec:  specResponse,
	},
	{
		Code: "late-response", Severity: SeverityNote,
		Title: "A response after the request was cancelled",
		Why: `Usually legal: the cancel and the response crossed on the wire, and the client must ignore the answer (a note). ` +
			`A warning when the server had shown it read the cancel first — it answered a request sent after the cancel before this answer — since then it went on and answered what it was asked to drop.`,
		Fix:  `On notifications/cancelled, stop the work and send no response (Python SDK: the request's cancel scope; Node: an AbortSignal).`,
		Spec: `MCP, Cancellation › Behavior Requirements: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request". "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward."`,
	},
	{
		Code: "progress-token-reused", Severity: SeverityError,
		Title: "A progress token offered by two requests in flight at once",
		Why:   `Progress names its request only by the token: with one token on two requests, the receiver's progress for one is read as the other's, and one request's progress resets the other's timeout.`,
		Fix:   `Give each request its own token (the request's id is a good one), or send none.`,
		Spec:  `MCP 2025-11-25, Utilities › Progress: "The progress token MUST be a string or integer value" and "MUST be unique across all active requests."`,
	},
	{
		Code: "cancel-unknown-request", Severity: SeverityWarning,
		Title: "notifications/cancelled for a request its sender never sent",
		Why:   `A cancel names one of the sender's own requests. An id it never used is a mix-up — the other side's id, a string id for a number, an id made up — and the request meant to stop goes on. (A request already answered may be cancelled: the two cross on the wire.)`,
		Fix:   `Cancel with the exact id of your own request still in flight, as you sent it (2 and "2" differ).`,
		Spec:  `MCP 2025-11-25, Utilities › Cancellation › Behavior Requirements: "Cancellation notifications MUST only reference requests that: Were previously issued in the same direction; Are believed to still be in-progress".`,
	},
	{
		Code: "request-timeout", Severity: SeverityWarning,
		Title: "No response within the timeout",
		Why:   `The server is stuck, slow without progress notifications, dropped the request, or its reply is sitting unflushed in a buffer.`,
		Fix: `Answer every request, with an error if need be; send notifications/progress for long work; flush stdout after every message ` +
			`(python -u or PYTHONUNBUFFERED=1). Raise linesman's --timeout if the work is really that slow.`,
		Spec: `MCP, Lifecycle › Timeouts (Cancellation › Timeouts in 2026-07-28): "Implementations SHOULD establish timeouts for all sent requests, to prevent hung connections and resource exhaustion."`,
	},
	{
		Code: "progress-not-increasing", Severity: SeverityWarning,
		Title: "A progress value that did not increase",
		Why:   `Progress must go up with every notification; a value that stalls or goes back makes progress bars jump and can reset timeouts forever.`,
		Fix:   `Send a strictly increasing progress (a count of steps done, bytes processed); send nothing when there is nothing new.`,
		Spec:  specProgress,
	},
	{
		Code: "progress-after-completion", Severity: SeverityWarning,
		Title: "A progress notification after the request was answered",
		Why:   `The token died with the response; clients drop the notification or, worse, attach it to a new request that reused the token.`,
		Fix:   `Send the final progress before the response, and stop the progress reporter when the request ends.`,
		Spec:  `MCP, Progress: "Progress notifications MUST stop after completion."`,
	},
	{
		Code: "progress-after-cancel", Severity: SeverityWarning, Family: FamilyIDs, Eras: EraBoth,
		Title: "Progress keeps coming after the request was cancelled",
		Why:   `One progress notification may cross the cancel on the wire; more mean the work goes on, spending what the client asked to stop spending (and a late answer may follow).`,
		Fix:   `On notifications/cancelled, stop the work: abort the task (Python: the request's cancel scope; Node: an AbortSignal; Go: cancel the request's context) and stop its progress reporter.`,
		Spec:  `MCP 2025-11-25, Utilities › Cancellation › Behavior Requirements: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request"`,
	},
	{
		Code: "progress-unknown-token", Severity: SeverityError,
		Title: "A progress notification for a token no request carried",
		Why:   `Progress is only allowed for a progressToken sent in params._meta of an active request. An unknown token usually means a made-up token or the wrong field. (Where linesman forgot requests to bound its memory, a token it no longer knows may be one of them: that is a note.)`,
		Fix:   `Use the exact progressToken from the request's params._meta; send no progress when the request carried none.`,
		Spec:  specProgress,
	},
	{
		Code: "server-request-in-modern-era", Severity: SeverityError,
		Title: "The server sent a request on stdout in the 2026-07-28 era",
		Why:   `In 2026-07-28 the server does not send requests; it asks for input by returning a result with resultType "input_required", and the client retries with a new id. A modern client will not answer this request.`,
		Fix:   `Answer the original request with {"resultType":"input_required","inputRequests":{...}} instead of sending sampling/createMessage, elicitation/create or roots/list; the client retries with the answers. Or speak the legacy era after an initialize.`,
		Spec:  `MCP 2026-07-28, Message patterns: "Servers MUST NOT initiate JSON-RPC requests, and clients do not send JSON-RPC responses." "When a server needs client input (sampling, elicitation, or roots) to complete a request, it answers with an InputRequiredResult and the client retries the request with the matching inputResponses."`,
	},
	{
		Code: "missing-result-type", Severity: SeverityWarning,
		Title: `A 2026-07-28 result without "resultType"`,
		Why:   `Every modern result states whether it is "complete" or "input_required". Absent is read as "complete", so a server that meant to ask for input silently ends the request.`,
		Fix:   `Set "resultType": "complete" on every result (or "input_required" with inputRequests); current SDKs do this for you.`,
		Spec:  `MCP 2026-07-28, Base protocol: every result carries resultType, "complete" or "input_required".`,
	},
	{
		Code: "unknown-result-type", Severity: SeverityError,
		Title: `A "resultType" other than "complete" or "input_required"`,
		Why:   `The client cannot tell whether the request is finished; it must treat the result as an error.`,
		Fix:   `Use exactly "complete" or "input_required" (lower case, underscore).`,
		Spec:  `MCP 2026-07-28, Base protocol: resultType is "complete" or "input_required".`,
	},
	{
		Code: "message-before-initialized", Severity: SeverityWarning,
		Title: "The server sent a request before notifications/initialized",
		Why:   `Until the client confirms initialization, the server may only answer initialize and send pings or log messages; a request (sampling, elicitation, roots) may arrive before the client is ready to serve it. Notifications are not held to this: a list_changed sent early is no foul.`,
		Fix:   `Wait for notifications/initialized before sending requests other than ping; queue them until then.`,
		Spec:  `MCP, Lifecycle › Initialization: "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification."`,
	},
	{
		Code: "stdout-closed", Severity: SeverityError, Family: FamilyProcess, Eras: EraBoth,
		Title: "The server closed its stdout and kept running",
		Why: `stdout is the server's only way to answer. Once it is closed, every request in flight or sent later goes unanswered, ` +
			`and a client sees only timeouts, while the process still looks alive.`,
		Fix: `Do not close or redirect fd 1 while serving (a daemonizing step, a library that closes stdout, os.Stdout.Close(), ` +
			`exec of a child with stdout closed). If the server is done, exit.`,
		Spec: specStdout + ` MCP, Transports › stdio: "The server reads JSON-RPC messages from its standard input (stdin) and sends messages to its standard output (stdout)."`,
	},
	{
		Code: "era-not-spoken", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraModernOnly,
		Title: "The server does not speak the era asked for (--era modern)",
		Why: `linesman was told to speak 2026-07-28, whose conversation opens with server/discover; the server refused it with an error that ` +
			`only a server of the older, initialize-based era gives (-32601 method not found, or -32022 listing only older versions). ` +
			`Nothing more can be judged in that era: a check that carried on would list nothing and pass a conversation that never happened.`,
		Fix: `If the server should speak 2026-07-28, implement server/discover (current SDKs do). Otherwise check it in the era it speaks: ` +
			`--era legacy, or --era auto (the default), which probes and falls back to initialize.`,
		Spec: `MCP 2026-07-28, Lifecycle › Version discovery: a client probes with server/discover; a server that does not support it ` +
			`answers with an error (method not found from an older server, or -32022 UnsupportedProtocolVersion listing the versions it supports).`,
	},
	{
		Code: "unflushed-output", Severity: SeverityWarning,
		Title: "Replies arrived only when stdin closed or at exit (block-buffered stdout)",
		Why: `When stdout is a pipe, many runtimes buffer it in 4–64 KiB blocks: replies sit in the buffer until it fills or the process exits, ` +
			`so the client times out on requests the server has already answered.`,
		Fix: `Flush after every message. Python: python -u, PYTHONUNBUFFERED=1, or print(..., flush=True) / sys.stdout.flush(). ` +
			`Node: process.stdout.write is fine, but avoid buffering wrappers. Go: flush the bufio.Writer after each message. C: setvbuf(stdout, NULL, _IOLBF, 0) or fflush(stdout). Ruby: $stdout.sync = true.`,
		Spec: specNewlines + ` Each message is delivered only when its newline reaches the client.`,
	},
}
