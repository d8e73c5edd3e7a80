package run

// The process-wide memory settings of a mode: the soft memory limit and
// the collector's pace, chosen by what the mode keeps (the tap sets its
// own limit, tapMemoryLimit).

import (
	"os"
	"runtime/debug"

	"linesman/session/eventlog"
)

// LimitMemory sets a soft memory limit a little above the event log's
// retention budget, so that the garbage collector does not let the heap grow
// to twice the budget under a flood (measured: 1.2 GB of frames through a
// check, peak RSS 542 MB without the limit, 413 MB with it, same speed).
// GOMEMLIMIT, when set, wins. It is soft: a larger heap only makes the
// collector run more often.
func LimitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(eventlog.MemoryLimit)
	}
}

// readingGCPercent is the collector's pace (GOGC) while a mode fills one
// event log it keeps to the end: a recording read whole under a soft memory
// limit other than linesman's own (PaceForReading), or a headless run's
// server read into the log its report is made of (PaceForHeadless). The heap
// is then mostly that log, which the default pace marks again at every
// doubling (a third of check --from's user CPU, a tenth of a live check's
// under a flood).
const readingGCPercent = 400

// PaceForReading paces the collector while a mode reads a recording whole,
// unless GOGC is set. The heap is then the log being filled: below the
// soft memory limit there is little to collect, so under linesman's own
// limit (LimitMemory: the log's budget and headroom) the collector is left
// to the limit alone, and marks nothing while a recording smaller than the
// budget is read (check --from of a 73 MB capture: 9% less CPU, the same
// peak RSS). Under a larger limit, or none (GOMEMLIMIT, or a test), a pace
// of readingGCPercent still bounds the heap.
func PaceForReading() {
	if os.Getenv("GOGC") != "" {
		return
	}
	if debug.SetMemoryLimit(-1) <= eventlog.MemoryLimit {
		debug.SetGCPercent(-1)
		return
	}
	debug.SetGCPercent(readingGCPercent)
}

// PaceForHeadless sets readingGCPercent for check and send, unless GOGC is
// set: their heap is mostly the log too, but a live run may go on for long
// and make garbage as it goes (a send session), so the collector keeps a
// pace rather than wait for the soft memory limit (LimitMemory), which
// still bounds the heap.
func PaceForHeadless() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(readingGCPercent)
	}
}
