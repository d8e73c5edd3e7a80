package protocol

import (
	"strings"

	"linesman/wire"
)

// capabilities are what each side declared (initialize, or server/discover
// and the request's _meta in 2026-07-28). known says whether the side's
// declaration was seen at all: with none, nothing is judged.
type capabilities struct {
	// external: the session's projection supplies the declared
	// capabilities (SetFacts); the judge then never sets them itself.
	external    bool
	serverKnown bool
	server      val             // a private copy of the server's capabilities object
	serverHas   map[string]bool // capability -> declared, as asked so far
	clientKnown bool
	client      val
}

func (c *capabilities) setServer(v val) {
	if c.external {
		return
	}
	c.putServer(v)
}

func (c *capabilities) putServer(v val) {
	c.serverKnown = v.isObject()
	c.server = val(append([]byte(nil), v...))
	c.serverHas = map[string]bool{}
}

// serverDeclares is declares(server, capability), remembered.
func (c *capabilities) serverDeclares(capability string) bool {
	d, ok := c.serverHas[capability]
	if !ok {
		d = declares(c.server, capability)
		c.serverHas[capability] = d
	}
	return d
}

func (c *capabilities) setClient(v val) {
	if c.external {
		return
	}
	c.putClient(v)
}

func (c *capabilities) putClient(v val) {
	c.clientKnown = v.isObject()
	c.client = val(append([]byte(nil), v...))
}

// serverCapability is the server capability a client method needs ("tools",
// or "resources.subscribe") in the session's revision, or "".
func (j *Judge) serverCapability(method string) string {
	if method == "completion/complete" && !j.versionAtLeast(V20250326) {
		// 2024-11-05 had completion/complete but no completions
		// capability: its ServerCapabilities are experimental, logging,
		// prompts, resources and tools.
		return ""
	}
	return serverCapability(method)
}

// serverCapability is the server capability a client method needs ("tools",
// or "resources.subscribe") from 2025-03-26 on, or "".
func serverCapability(method string) string {
	switch method {
	case "tools/list", "tools/call":
		return "tools"
	case "prompts/list", "prompts/get":
		return "prompts"
	case "resources/list", "resources/read", "resources/templates/list":
		return "resources"
	case "resources/subscribe", "resources/unsubscribe":
		return "resources.subscribe"
	case "completion/complete":
		return "completions"
	case "logging/setLevel":
		return "logging"
	}
	return ""
}

// Declares is the one rule for whether a capabilities object (a server's or
// a client's, as JSON) declares a capability, for every reader — the
// judge, check's listings, the inspector's picker. capability is a member
// ("tools") or a dotted sub-capability ("resources.subscribe").
//
// A member is declared when it is present and neither null nor false:
// "tools": {} declares tools (the specification's own examples declare
// with empty objects), "tools": null and an absent member do not
// (serializers that write absent members as null mean "not declared"). A
// sub-capability is declared only by the flag true. A capabilities value
// that is not an object declares nothing.
func Declares(caps []byte, capability string) bool { return declares(val(caps), capability) }

func declares(caps val, capability string) bool {
	top, sub, _ := strings.Cut(capability, ".")
	c := caps.get(top)
	if sub == "" {
		b, isBool := c.boolean()
		return c.present() && !c.isNull() && !(isBool && !b)
	}
	return c.get(sub).truthy()
}

// capabilityRequest flags a client request for a feature the server did not declare.
func (j *Judge) capabilityRequest(f *wire.Frame, method string, params *obj, era Era) {
	need := j.serverCapability(method)
	if need == "" || !j.caps.serverKnown {
		return
	}
	j.ran(famCapabilities)
	if !j.caps.serverDeclares(need) {
		raise(f, "undeclared-capability-request", "the client sent %s but the server did not declare the %s capability", withArticle(method), need)
	}
}

// capabilityResult flags a server that serves a feature it did not declare.
func (j *Judge) capabilityResult(f *wire.Frame, method string, era Era) {
	need := j.serverCapability(method)
	if need == "" || !j.caps.serverKnown {
		return
	}
	j.ran(famCapabilities)
	if !j.caps.serverDeclares(need) {
		raise(f, "undeclared-capability", "the server answered %s with a result but never declared the %s capability: a conforming host does not use what was not declared", method, need)
	}
}

// clientCapabilityOf is the client capability a server request (or an
// input request) needs.
func clientCapabilityOf(method string) string {
	switch method {
	case "sampling/createMessage":
		return "sampling"
	case "elicitation/create":
		return "elicitation"
	case "roots/list":
		return "roots"
	}
	return ""
}

// serverRequest judges a request the server sent (legacy era).
func (j *Judge) serverRequest(f *wire.Frame, method string) {
	need := clientCapabilityOf(method)
	if need == "" || !j.caps.clientKnown || j.era == EraModern {
		// In 2026-07-28 the request itself is the fault (server-request-in-modern-era).
		return
	}
	j.ran(famCapabilities)
	if !declares(j.caps.client, need) {
		raise(f, "undeclared-client-capability", "the server sent %s but the client did not declare the %s capability", withArticle(method), need)
	}
}

// listChangedCapability is the capability a list_changed notification needs.
func listChangedCapability(method string) string {
	switch method {
	case "notifications/tools/list_changed":
		return "tools.listChanged"
	case "notifications/prompts/list_changed":
		return "prompts.listChanged"
	case "notifications/resources/list_changed":
		return "resources.listChanged"
	case "notifications/resources/updated":
		return "resources.subscribe"
	}
	return ""
}

// serverNotification judges a notification from the server.
func (j *Judge) serverNotification(f *wire.Frame, m *wire.Message, params *obj) {
	if j.era == EraModern {
		j.modernNotification(f, m, params)
		return
	}
	if !j.caps.serverKnown {
		return
	}
	if need := listChangedCapability(m.Method); need != "" {
		j.ran(famCapabilities)
		if !declares(j.caps.server, need) {
			raise(f, "list-changed-undeclared", "the server sent %s without declaring %s", m.Method, need)
		}
	}
	if m.Method == "notifications/message" {
		j.ran(famLogging)
		if !declares(j.caps.server, "logging") {
			raise(f, "logging-undeclared", "the server sent notifications/message but never declared the logging capability")
		}
		j.legacyLogLevel(f, params)
	}
}

// declaredMethodRefused flags a server that declared a capability and
// answers one of its methods "Method not found" (-32601): a host that
// believed the declaration finds nothing behind it. resources/templates/list
// is left out (a server may have resources and no templates), and so is
// logging/setLevel in 2026-07-28, which removed it.
func (j *Judge) declaredMethodRefused(f *wire.Frame, method string, params *obj, code int64, era Era) {
	need := j.serverCapability(method)
	if code != -32601 || need == "" || method == "resources/templates/list" || !j.caps.serverKnown ||
		era == EraModern && method == "logging/setLevel" || method == "tools/call" && j.taskRefusal(params) {
		return
	}
	j.ran(famCapabilities)
	if j.caps.serverDeclares(need) {
		raise(f, "declared-method-not-found", "the server declared the %s capability but answered %s with Method not found (-32601)", need, method)
	}
}
