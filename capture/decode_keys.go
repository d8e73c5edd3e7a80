package capture

// The members of the records the writer writes, by number: a record's
// member keys are looked up once (recordKey) and dispatched by number.

// The members of an event record, line members first (the same numbers
// serve a frame's line objects).
const (
	keyJSON = iota
	keyText
	keyB64
	keyTerm
	keyLen
	keyTruncated
	keyType
	keySeq
	keyAt
	keyDir
	keyLines
	keyState
	keyStep
	keyPid
	keyExitCode
	keySignal
	keyShutdownTookNs
	keyDetail
	keyAfterEOF
	keyCode
	keySeverity
	keyMessage
	keyFrameSeq
	keyNote
	keyEra
	keyVersion
	keyProbeAbandoned
	keyN
	keyCommand
	keyByHost
	keyExited
	keyFromSeq
	keyCount
	keyKind
	keySpec
	keyMethod
	keyID
	keyAction
	keyHold
	keyFilter
	keyAnswer
	keyLast
)

// lineKeys is how many of the members are a line's.
const lineKeys = keyTruncated + 1

// recordKey is the number of the member key names, -1 for none (a key
// spelled otherwise, with escapes or in other case, is encoding/json's).
func recordKey(key []byte) int {
	if len(key) <= 4 {
		return shortKey(key)
	}
	return longKey(key)
}

func shortKey(key []byte) int {
	switch string(key) {
	case "json":
		return keyJSON
	case "text":
		return keyText
	case "b64":
		return keyB64
	case "term":
		return keyTerm
	case "len":
		return keyLen
	case "type":
		return keyType
	case "seq":
		return keySeq
	case "at":
		return keyAt
	case "dir":
		return keyDir
	case "step":
		return keyStep
	case "pid":
		return keyPid
	case "code":
		return keyCode
	case "note":
		return keyNote
	case "era":
		return keyEra
	case "n":
		return keyN
	case "kind":
		return keyKind
	case "spec":
		return keySpec
	case "id":
		return keyID
	case "hold":
		return keyHold
	case "last":
		return keyLast
	}
	return -1
}

func longKey(key []byte) int {
	switch string(key) {
	case "truncated":
		return keyTruncated
	case "lines":
		return keyLines
	case "state":
		return keyState
	case "exitCode":
		return keyExitCode
	case "signal":
		return keySignal
	case "shutdownTookNs":
		return keyShutdownTookNs
	case "detail":
		return keyDetail
	case "afterEOF":
		return keyAfterEOF
	case "severity":
		return keySeverity
	case "message":
		return keyMessage
	case "frameSeq":
		return keyFrameSeq
	case "version":
		return keyVersion
	case "probeAbandoned":
		return keyProbeAbandoned
	case "command":
		return keyCommand
	case "byHost":
		return keyByHost
	case "exited":
		return keyExited
	case "fromSeq":
		return keyFromSeq
	case "count":
		return keyCount
	case "method":
		return keyMethod
	case "action":
		return keyAction
	case "filter":
		return keyFilter
	case "answer":
		return keyAnswer
	}
	return -1
}
