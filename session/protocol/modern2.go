package protocol

import (
	"strings"

	"linesman/wire"
)

// discoverMissing notes a -32601 answer to a modern server/discover; it is
// judged once the server shows it speaks 2026-07-28 (flagDiscover404), and
// only then. A conversation that ends after it shows nothing: a legacy
// server probed by a dual-era client answers exactly so, and is right to
// (2026-07-28, Versioning › Backward Compatibility), and a host may end it
// there (the TypeScript SDK v2's client probes a stdio server on a
// disposable process and falls back to initialize on a fresh one).
func (m *modern) discoverMissing(params *obj) {
	if metaVersion(params) >= V20260728 {
		m.discover404 = true
	}
}

// flagDiscover404 raises discover-not-implemented on the first result that
// shows the server is modern after all.
func (j *Judge) flagDiscover404(f *wire.Frame) {
	if !j.modern.discover404 || j.modern.discoverFlags {
		return
	}
	j.modern.discoverFlags = true
	raise(f, "discover-not-implemented", "the server answers 2026-07-28 requests but answered server/discover with -32601 (method not found); 2026-07-28 servers must implement it")
}

// discoverResult checks a server/discover result and records the server's capabilities.
func (j *Judge) discoverResult(f *wire.Frame, result *obj) {
	j.ran(famLifecycle)
	sv := result.get("supportedVersions")
	j.modern.supported = j.modern.supported[:0]
	sv.elems(func(_ int, v val) bool {
		if s, ok := v.str(); ok {
			j.modern.supported = append(j.modern.supported, s)
		}
		return true
	})
	if !sv.isArray() || sv.count() == 0 {
		raise(f, "result-invalid", "the server/discover result's supportedVersions is %s; it must be a non-empty array of version strings", sv.kindName())
	}
	if c := result.get("capabilities"); !c.isObject() {
		raise(f, "result-invalid", "the server/discover result's capabilities is %s; it must be an object", c.kindName())
		return
	}
	j.caps.setServer(result.get("capabilities"))
	j.checkExtensions(f, result.path("capabilities", "extensions"), "capabilities.extensions")
}

// logLevels in order of severity.
var logLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// subscriptionMethods maps a change notification to its filter field.
var subscriptionMethods = map[string]string{
	"notifications/tools/list_changed":     "toolsListChanged",
	"notifications/prompts/list_changed":   "promptsListChanged",
	"notifications/resources/list_changed": "resourcesListChanged",
	"notifications/resources/updated":      "resourceSubscriptions",
}

// modernNotification judges a server notification in the 2026-07-28 era.
func (j *Judge) modernNotification(f *wire.Frame, m *wire.Message, params *obj) {
	j.removedMethod(f, m.Method)
	switch m.Method {
	case "notifications/message":
		j.modernLog(f, params)
	case "notifications/cancelled":
		j.ran(famSubscriptions)
		if _, ok := j.modern.subs[m.RequestID()]; !ok && m.RequestID().Kind != wire.IDAbsent {
			raise(f, "server-cancel-misused", "the server sent notifications/cancelled for %s, which is no subscriptions/listen request; servers cancel only to end a subscription", m.RequestID().String())
		}
	case "notifications/subscriptions/acknowledged":
		j.ran(famSubscriptions)
		if s := j.subscriptionOf(f, m.Method, params); s != nil {
			s.acked = true
		}
	default:
		field, ok := subscriptionMethods[m.Method]
		if !ok {
			return
		}
		j.ran(famSubscriptions)
		s := j.subscriptionOf(f, m.Method, params)
		switch {
		case s == nil:
		case !s.acked:
			raise(f, "subscription-before-ack", "%s was sent on a subscription before notifications/subscriptions/acknowledged", m.Method)
		case !subscribedTo(s.filter, field, params):
			raise(f, "subscription-not-requested", "%s was sent on a subscription that did not ask for it (%s)", m.Method, field)
		}
	}
}

// subscriptionOf returns the subscription a notification is tagged with,
// raising when the tag is missing or names no subscription.
func (j *Judge) subscriptionOf(f *wire.Frame, method string, params *obj) *subscription {
	tag := params.path("_meta", metaSubscriptionID)
	if !tag.present() {
		raise(f, "subscription-notification-untagged", "%s has no %s in params._meta; notifications on a subscriptions/listen stream must name it", method, metaSubscriptionID)
		return nil
	}
	s := j.modern.subs[tag.wireID()]
	if s == nil {
		raise(f, "subscription-unknown", "%s names subscription %s, which no subscriptions/listen request opened", method, tag.text())
	}
	return s
}

// subscribedTo reports whether the filter asked for the notification.
func subscribedTo(filter val, field string, params *obj) bool {
	if field != "resourceSubscriptions" {
		return filter.get(field).truthy()
	}
	uri, _ := params.get("uri").str()
	found := false
	filter.get(field).elems(func(_ int, u val) bool {
		s, _ := u.str()
		found = s == uri || strings.HasPrefix(uri, s)
		return !found
	})
	return found
}

// modernLog judges notifications/message: only for requests that opted in.
func (j *Judge) modernLog(f *wire.Frame, params *obj) {
	j.ran(famLogging)
	if j.caps.serverKnown && !declares(j.caps.server, "logging") {
		raise(f, "logging-undeclared", "the server sent notifications/message but its server/discover result declared no logging capability")
		return
	}
	if len(j.modern.logLevel) == 0 {
		raise(f, "log-without-level", "the server sent notifications/message while no request in flight set %s; logging is opt-in per request in 2026-07-28", metaLogLevel)
		return
	}
	level, _ := params.get("level").str()
	lv, ok := logLevels[level]
	if !ok {
		return // params-invalid says so
	}
	for _, asked := range j.modern.logLevel {
		if a, ok := logLevels[asked]; !ok || lv >= a {
			return
		}
	}
	raise(f, "log-below-level", "the server sent a %q log message, below the level every request in flight asked for", level)
}

// checkMetaKeys checks the key names of a _meta object.
func (j *Judge) checkMetaKeys(f *wire.Frame, meta val, where string) {
	if meta.present() && !meta.isObject() && !meta.isNull() {
		// schema.ts, every revision: _meta?: { [key: string]: unknown }.
		// null is let pass, as nextCursor's is: serializers that write
		// absent members as null are common, and hosts tolerate it.
		j.ran(famShapes)
		code := "params-invalid"
		if strings.HasPrefix(where, "result") {
			code = "result-invalid"
		}
		raise(f, code, "%s is %s; _meta is an object", where, meta.kindName())
		return
	}
	if !meta.isObject() || !j.versionAtLeast(V20250618) {
		return
	}
	j.ran(famMeta)
	meta.members(func(k []byte, _ val) bool {
		if string(k) == `"progressToken"` {
			return true // the one key every revision reserves unprefixed
		}
		key, _ := val(k).str()
		if why := metaKeyProblem(key, false); why != "" {
			raise(f, "meta-key-invalid", "%s key %q: %s", where, key, why)
			return false
		}
		return true
	})
}

// checkExtensions checks extension identifiers (a mandatory prefix).
func (j *Judge) checkExtensions(f *wire.Frame, ext val, where string) {
	if !ext.isObject() {
		return
	}
	j.ran(famMeta)
	ext.members(func(k []byte, _ val) bool {
		key, _ := val(k).str()
		if why := metaKeyProblem(key, true); why != "" {
			raise(f, "extension-id-invalid", "%s key %q: %s", where, key, why)
		}
		return true
	})
}

// metaKeyProblem says what is wrong with a _meta key, or "".
func metaKeyProblem(key string, prefixRequired bool) string {
	prefix, name, hasSlash := cutLast(key, '/')
	if !hasSlash {
		if prefixRequired {
			return "an extension identifier needs a prefix (e.g. com.example/)"
		}
		switch key {
		case "traceparent", "tracestate", "baggage":
			return ""
		}
		name = key
	} else if why := prefixProblem(prefix); why != "" {
		return why
	}
	if name == "" {
		return ""
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return "the name must begin and end with a letter or digit"
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return "the name may contain only letters, digits, -, _ and ."
		}
	}
	return ""
}

func prefixProblem(prefix string) string {
	if prefix == "" {
		return "a prefix is a series of dot-separated labels before the /"
	}
	for _, l := range strings.Split(prefix, ".") {
		if l == "" || !letter(l[0]) || !alnum(l[len(l)-1]) {
			return "each label of the prefix must start with a letter and end with a letter or digit"
		}
		for i := 0; i < len(l); i++ {
			if !alnum(l[i]) && l[i] != '-' {
				return "prefix labels may contain only letters, digits and -"
			}
		}
	}
	return ""
}

func cutLast(s string, c byte) (before, after string, found bool) {
	if i := strings.LastIndexByte(s, c); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return "", s, false
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func alnum(c byte) bool  { return letter(c) || c >= '0' && c <= '9' }

func joinAnd(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
