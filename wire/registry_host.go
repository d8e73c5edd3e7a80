package wire

// specShutdownEras is the shutdown clause with its strength per revision:
// a SHOULD in every revision that has the clause, and 2026-07-28's stdio
// binding keeps the same process lifecycle without a stronger word.
const specShutdownEras = specShutdown + ` (the same words, SHOULD, in 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25; MCP 2026-07-28's stdio binding keeps "shutdown by closing the stream" as the process lifecycle, with no MUST)`

// specFallback is 2026-07-28's rule for a host that speaks both eras.
const specFallback = `MCP 2026-07-28, Versioning › Backward Compatibility with Initialization-Based Versions: "stdio: probe with server/discover and fall back on any error that is not a recognized modern error." "In both cases, a recognized modern JSON-RPC error (such as UnsupportedProtocolVersionError) identifies a modern server: the client retries with a supported version rather than falling back. Anything else identifies a legacy server." Compatibility Matrix, Dual-era client, Legacy server: "stdio: the probe returns a non-modern error or times out, and the client falls back to initialize." Server › server/discover: "A client that supports both modern (per-request _meta) and legacy (initialize handshake) servers SHOULD send server/discover first".`

// hostEntries are the host rules: what the client side of a conversation
// (a host under a tap, the host that wrote a recorded log) did wrong. Each
// holds the host at fault (Party), whatever it points at.
var hostEntries = []Info{
	{
		Code: "host-fallback-missing", Severity: SeverityWarning, Family: FamilyLifecycle, Eras: EraBoth, Party: PartyHost,
		Title: "The host's server/discover probe showed a legacy server, and it went on in 2026-07-28",
		Why:   `An error to server/discover that is not a modern one (-32601, -32602, anything but -32022) means the server speaks only the initialize handshake. A host that then sends 2026-07-28 requests gets errors, silence, or answers under legacy semantics that ignore the version it declared.`,
		Fix:   `After a non-modern error (or no answer in reasonable time) to server/discover, fall back: send initialize with a legacy version, then notifications/initialized, and speak that version for the life of the process. Never key the fallback to -32601 alone.`,
		Spec:  specFallback,
	},
	{
		Code: "host-fallback-needless", Severity: SeverityWarning, Family: FamilyLifecycle, Eras: EraBoth, Party: PartyHost,
		Title: "The host fell back to initialize after its probe showed a 2026-07-28 server",
		Why:   `A DiscoverResult offering a modern version, or -32022 (UnsupportedProtocolVersionError), identifies a modern server: it may reject initialize outright (a modern-only server), and a dual-era one is driven in the older era for nothing.`,
		Fix:   `On a DiscoverResult, speak a version of its supportedVersions; on -32022, retry with one of data.supported. Fall back to initialize only on another error, or on no answer.`,
		Spec:  specFallback,
	},
	{
		Code: "host-cancel-initialize", Severity: SeverityError, Family: FamilyIDs, Eras: EraLegacyOnly, Party: PartyHost,
		Title: "The host cancelled its initialize request",
		Why:   `initialize opens the session: cancelled, the server is left half initialized, and whether it answers, drops or keeps the session is undefined. A host that gives up on initialize should close the connection instead.`,
		Fix:   `Never send notifications/cancelled for initialize; if the server is too slow to answer it, shut the process down (close stdin, then SIGTERM) and start a new one.`,
		Spec:  `MCP 2024-11-05 … 2025-11-25, schema.ts CancelledNotification: "A client MUST NOT attempt to cancel its initialize request." MCP 2025-06-18 and 2025-11-25, Utilities › Cancellation › Behavior Requirements: "The initialize request MUST NOT be cancelled by clients".`,
	},
	{
		Code: "host-signal-before-close", Severity: SeverityWarning, Family: FamilyProcess, Eras: EraBoth, Party: PartyHost,
		Title: "The host signalled the server without closing its stdin first",
		Why:   `Closing stdin is the shutdown a stdio server is written for: it finishes what it was doing, flushes and exits. A signal first cuts that short (a server without a handler dies mid-write), and a server that would have exited cleanly is counted as killed.`,
		Fix:   `Shut down in the spec's order: close the server's stdin, wait for it to exit, send SIGTERM only if it does not exit in reasonable time, and SIGKILL only after that (the Python SDK's stdio client gives each step 2 s).`,
		Spec:  specShutdownEras,
	},
	{
		Code: "host-kill-first", Severity: SeverityWarning, Family: FamilyProcess, Eras: EraBoth, Party: PartyHost,
		Title: "The host killed the server with SIGKILL without SIGTERM first",
		Why:   `SIGKILL cannot be caught: the server leaves its files, child processes and temporary state behind. SIGTERM is the step that lets it clean up, and the spec keeps SIGKILL for a server that did not exit after it.`,
		Fix:   `Send SIGTERM first and SIGKILL only if the server has not exited within a reasonable time after it (kill the process group, so the server's children go too).`,
		Spec:  specShutdownEras,
	},
	{
		Code: "host-restart-not-reinitialized", Severity: SeverityError, Family: FamilyLifecycle, Eras: EraLegacyOnly, Party: PartyHost,
		Title: "After the server restarted, the host went on without initialize",
		Why:   `A new process is a new connection: it knows nothing of the old one's handshake, version or capabilities. A legacy server refuses (or misreads) requests before its own initialize, so the host's session fails after every crash and restart.`,
		Fix:   `After starting the server again, probe or initialize again before anything else (initialize, its result, notifications/initialized), exactly as for the first process; a dual-era host probes with server/discover again or reuses the era it cached for that server.`,
		Spec:  specInitialize + ` A restarted process is a new connection. MCP 2026-07-28, Lifecycle: "Clients SHOULD attempt to restart the stdio process if the server terminates unexpectedly"; Versioning: the era is cached "for the lifetime of the server process (stdio)", "re-probing if the cached assumption later fails".`,
	},
}
