package capture

import (
	"time"

	"linesman/wire"
)

// parseClaude interprets a line of Claude Desktop's MCP log: a message
// either way, or a line of the host's own (with the server it names, and
// what it says when it could not parse the server's stdout), or of the
// server's stderr.
func parseClaude(line []byte) foreignLine {
	m := claudeLine().FindSubmatch(line)
	if m == nil {
		// The host's own lines carry a time too; the server's stderr lines do not.
		fl := foreignLine{text: line}
		if t := claudeTime().FindSubmatch(line); t != nil {
			fl.ts, _ = time.Parse(time.RFC3339Nano, string(t[1]))
		}
		if b := claudeBrackets().FindSubmatch(line); b != nil {
			fl.server = claudeServer(b[1], b[2])
		}
		if e := claudeParseError().FindSubmatch(line); e != nil {
			fl.hostError = string(e[1])
		}
		if c := claudeEarlyClose().FindSubmatch(line); c != nil {
			fl.closed = string(c[1])
		}
		return fl
	}
	ts, _ := time.Parse(time.RFC3339Nano, string(m[1]))
	dir := wire.ClientToServer
	if string(m[4]) == "server" {
		dir = wire.ServerToClient
	}
	server := claudeServer(m[2], m[3])
	msg := firstJSONValue(m[5])
	if msg == nil {
		return foreignLine{ts: ts, text: line, server: server}
	}
	return foreignLine{ts: ts, dir: dir, message: msg, server: server}
}

// parseVSCode interprets a line of VS Code's MCP output channel: a message
// either way, or a line of the host's own (or of the server's stderr,
// "[server stderr]"), kept as a stderr line. A line without the host's
// time continues the one before (a multi-line log entry): stderr too.
func parseVSCode(line []byte) foreignLine {
	fl := foreignLine{text: line}
	t := vscodeLine().FindSubmatch(line)
	if t == nil {
		return fl
	}
	fl.ts, _ = time.ParseInLocation("2006-01-02 15:04:05.000", string(t[1]), time.Local)
	m := vscodeMessage().FindSubmatch(line)
	if m == nil {
		return fl
	}
	msg := firstJSONValue(m[2])
	if msg == nil {
		return fl
	}
	fl.text, fl.message, fl.dir = nil, msg, wire.ClientToServer
	if d := string(m[1]); d == "server -> editor" || d == "Server Says" {
		fl.dir = wire.ServerToClient
	}
	return fl
}
