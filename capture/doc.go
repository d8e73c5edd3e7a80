// Package capture moves a session's event log to and from files.
//
// A capture is JSON Lines (format "linesman-capture", FormatVersion): a
// header record, then one record per event of the eventlog.Log, in log order.
// Frames and stderr lines keep their exact bytes — the JSON value itself when
// a line is exactly one (the usual frame), else a JSON string when the bytes
// are valid UTF-8, base64 otherwise; plus the terminator, the real length and
// whether the line was truncated — so a capture gives back byte for byte what
// was on the wire. docs/capture.md describes the format.
//
// A Recorder follows a live Log and writes each record as soon as its event
// is read, never split across write calls, to a file opened O_APPEND, so a
// crash or kill -9 of linesman loses at most the record being written; Open
// skips (and reports) such a torn last line.
// Open and Follow refill a fresh eventlog.Log exactly as a live session would,
// recomputing every frame's findings from the raw bytes with the current wire
// and eventlog.Tracker code, so that a capture made by an older linesman
// benefits from newer checks. Export writes a log as a replay script, a
// findings report or a transcript.
//
// This package never touches a terminal and never blocks the appender of the
// log it records: the Recorder reads by Seq on its own goroutine and, if it
// falls behind the log's retention window, says how many events it lost.
package capture
