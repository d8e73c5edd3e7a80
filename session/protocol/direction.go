package protocol

import (
	"linesman/wire"
)

// Who may send what. schema.ts lists, in every revision, the requests and
// notifications of each side (ClientRequest, ClientNotification,
// ServerRequest, ServerNotification). ping, notifications/cancelled,
// notifications/progress and the tasks methods (2025-11-25) go both ways
// and are not listed here; a method no revision defines is not judged
// (extensions may define their own).
var (
	// clientOnly: sent by the client only.
	clientOnly = map[string]bool{
		"initialize":                       true,
		"resources/list":                   true,
		"resources/templates/list":         true,
		"resources/read":                   true,
		"resources/subscribe":              true,
		"resources/unsubscribe":            true,
		"prompts/list":                     true,
		"prompts/get":                      true,
		"tools/list":                       true,
		"tools/call":                       true,
		"logging/setLevel":                 true,
		"completion/complete":              true,
		"server/discover":                  true,
		"subscriptions/listen":             true,
		"notifications/initialized":        true,
		"notifications/roots/list_changed": true,
	}
	// serverOnly: sent by the server only.
	serverOnly = map[string]bool{
		"sampling/createMessage":               true,
		"roots/list":                           true,
		"elicitation/create":                   true,
		"notifications/message":                true,
		"notifications/resources/updated":      true,
		"notifications/resources/list_changed": true,
		"notifications/tools/list_changed":     true,
		"notifications/prompts/list_changed":   true,
		"notifications/elicitation/complete":   true,
	}
)

// wrongDirection flags a method sent by the side that never sends it, and
// reports whether it did: the message is then judged no further (its rules
// are those of the other side's message).
func (j *Judge) wrongDirection(f *wire.Frame, dir wire.Dir, method string, request bool) bool {
	j.ran(famShapes)
	switch {
	case dir == wire.ServerToClient && clientOnly[method]:
		if request && j.era == EraModern {
			return true // server-request-in-modern-era says so
		}
		raise(f, "wrong-direction", "the server sent %s, which only a client sends: the host has no handler for it and answers Method not found at best", withArticle(method))
		return true
	case dir == wire.ClientToServer && serverOnly[method]:
		raise(f, "wrong-direction", "the client sent %s, which only a server sends: the server has no handler for it", withArticle(method))
		return true
	}
	return false
}
