package protocol

import (
	"strings"

	"linesman/wire"
)

// request judges a request in either direction.
func (j *Judge) request(in Input, msg val) {
	f, m := in.Frame, &in.Frame.Msg
	params := j.indexParams(in, msg)
	if strings.HasPrefix(m.Method, "notifications/") {
		j.ran(famShapes)
		raise(f, "notification-with-id", "%s is a notification but carries id %s: the peer will treat it as a request and the sender will wait for an answer that never comes", m.Method, m.ID.String())
	}
	unsafeID(f, "request id", []byte(m.IDRaw))
	meta := params.get("_meta")
	unsafeID(f, "progress token", meta.get("progressToken"))
	j.checkMetaKeys(f, meta, "params._meta")
	j.traceContext(f, meta)
	if pt := meta.get("progressToken"); pt.present() && !pt.isString() && !pt.isNumber() {
		j.ran(famShapes)
		raise(f, "params-invalid", "%s's params._meta.progressToken is %s; a progress token is a string or a number", m.Method, pt.kindName())
	}
	if j.wrongDirection(f, in.Dir, m.Method, true) {
		return
	}
	if j.tasksOn() {
		j.taskRequest(in, m.Method, params)
		j.taskAugmentedSent(in, m.Method, params)
	}
	if in.Dir == wire.ServerToClient {
		j.serverRequest(f, m.Method)
		j.serverRequestShape(f, m.Method, params)
		return
	}
	var mv string
	if meta != nil {
		mv, _ = meta.get(metaProtocolVersion).str()
	}
	j.observeEra(m.Method, params, mv)
	era := j.requestEra(m.Method, meta, mv)
	if era != j.era {
		// Remembered only when it differs from the session's, which is what
		// the answer is judged by otherwise.
		if len(j.eras) >= maxPending {
			clear(j.eras) // requests never answered
		}
		j.eras[f] = era
	}
	j.lifecycleRequest(f, m.Method, params, era)
	if era == EraModern {
		j.modernRequest(f, m, params)
	}
	j.capabilityRequest(f, m.Method, params, era)
	before := len(f.Findings)
	j.paramsShape(f, m.Method, params)
	if len(f.Findings) > before {
		j.noteMalformed(f, f.Findings[before].Message)
	}
	switch m.Method {
	case "tools/call":
		j.toolCallRequest(f, params)
	}
	j.cursorRequest(f, m.Method, params)
}

// notification judges a notification in either direction.
func (j *Judge) notification(in Input, msg val) {
	f, m := in.Frame, &in.Frame.Msg
	params := j.indexParams(in, msg)
	meta := params.get("_meta")
	j.checkMetaKeys(f, meta, "params._meta")
	j.traceContext(f, meta)
	if j.wrongDirection(f, in.Dir, m.Method, false) {
		return
	}
	if in.Dir == wire.ServerToClient {
		j.listChanged(m.Method)
	}
	j.notificationShape(f, m, params)
	if m.Method == "notifications/tasks/status" && j.tasksOn() {
		j.taskNotification(in, params, msg.open("params"))
	}
	if m.Method == "notifications/cancelled" {
		j.ran(famIDs)
		switch {
		case m.RequestID().Kind == wire.IDAbsent:
			raise(f, "cancel-without-request-id", "notifications/cancelled has no params.requestId: the receiver cannot tell which request to stop")
		case in.Dir == wire.ClientToServer && j.lc.initSent && !j.lc.initAnswered && m.RequestID() == j.lc.initID:
			raise(f, "cancel-initialize", "the client cancelled its initialize request (id %s)", m.RequestID().String())
		case j.tasksOn() && len(j.tasks.augmented) > 0:
			j.cancelByNotification(f, in.Dir, m.RequestID())
		}
	}
	if in.Dir == wire.ClientToServer {
		if m.Method == "notifications/initialized" {
			if j.lc.initSent && !j.lc.initAnswered && j.era != EraModern {
				j.ran(famLifecycle)
				raise(f, "request-before-initialize-result", "the client sent notifications/initialized before the server answered initialize: it says initialization succeeded before it did")
			}
			j.lc.initializedSent = true
		}
		if m.Method == "notifications/roots/list_changed" && j.caps.clientKnown && j.era != EraModern {
			j.ran(famCapabilities)
			if !declares(j.caps.client, "roots.listChanged") {
				raise(f, "list-changed-undeclared", "the client sent notifications/roots/list_changed without declaring roots.listChanged")
			}
		}
		if j.era == EraModern {
			j.removedMethod(f, m.Method)
		}
		return
	}
	j.serverNotification(f, m, params)
}

// response judges an answer; in.Request is the request it answers.
func (j *Judge) response(in Input, msg val) {
	f := in.Frame
	if j.tasksOn() && len(j.tasks.augmented) > 0 {
		j.taskAugmentedAnswered(in, f.Msg.Kind == wire.KindResult && createdTask(msg.open("result")) != nil)
	}
	if in.Dir == wire.ClientToServer {
		j.clientAnswer(in, msg)
		return
	}
	var method string
	var reqID wire.ID
	params := &j.scratch.params
	params.lazy(nil)
	era := j.era
	if in.Request != nil {
		method = in.Request.Msg.Method
		params.lazy(body(in.Request).open("params"))
		if e, ok := j.eras[in.Request]; ok {
			era = e
			delete(j.eras, in.Request)
		}
		reqID = in.Request.Msg.ID
		if len(j.modern.logLevel) > 0 {
			delete(j.modern.logLevel, reqID)
		}
	}
	if f.Msg.Kind == wire.KindError {
		j.errorResponse(in, method, params, era, msg.open("error"))
		if j.tasksOn() {
			j.taskError(in, method, params)
		}
		return
	}
	if method == "" {
		return // an answer to nothing known: no rule has a method to go by
	}
	r := msg.open("result")
	if !r.isObject() {
		j.ran(famShapes)
		raise(f, "result-invalid", "the %s result is %s; every result is an object (an empty one, {}, where there is nothing to say)", method, r.kindName())
		return
	}
	if j.tasksOn() {
		method = j.taskResult(in, method, params, r)
	}
	result := j.indexResult(f, method, r)
	j.checkMetaKeys(f, result.get("_meta"), "result._meta")
	if era == EraModern {
		if !j.modernResult(f, method, reqID, params, result) {
			return // input_required: the shapes below are those of a complete result
		}
	}
	j.malformedAnswered(f, in.Request, method)
	j.listedResult(f, method, era, params, result)
	j.unlistedTarget(f, method, params, result)
	if era == EraModern && method == "subscriptions/listen" {
		j.subscriptionClose(f, r)
	}
	switch method {
	case "initialize":
		j.initializeResult(f, params, result)
		return
	case "server/discover":
		j.discoverResult(f, result)
	case "logging/setLevel":
		if era != EraModern {
			j.logLevel, _ = params.get("level").str()
		}
	}
	j.capabilityResult(f, method, era)
	if t := result.get("task"); t.isObject() && taskAugmentable(method) {
		j.taskCreated(in, method, t)
		j.createTaskResult(f, method, t)
		return
	}
	j.resultShape(f, method, params, result)
}

// clientAnswer judges the host's answer to a server request.
func (j *Judge) clientAnswer(in Input, msg val) {
	f := in.Frame
	switch {
	case in.Request == nil:
	case f.Msg.Kind == wire.KindResult:
		j.clientResult(f, in.Request.Msg.Method, msg.open("result"))
		if in.Request.Msg.Method == "elicitation/create" {
			j.elicitationAnswer(f, in.Request, msg.open("result"))
		}
		if in.Request.Msg.Method == "sampling/createMessage" && j.version == V20251125 && j.era != EraModern {
			j.samplingToolUseAnswer(f, in.Request, msg.open("result"))
		}
	case in.Request.Msg.Method == "ping":
		j.pingRefused(f, "client")
	}
}

// indexResult indexes a result into the judge's scratch space; for
// tools/call it judges the content blocks in the same scan (see
// obj.scanWith), noting in j.content what it saw.
func (j *Judge) indexResult(f *wire.Frame, method string, v val) *obj {
	j.content = contentSeen{}
	o := &j.scratch.result
	if method != "tools/call" {
		o.scan(v)
		return o
	}
	o.scanWith(v, "content", func(open val) int {
		j.content.walked = true
		return open.objects(&j.block, func(i int, b *obj, el val) {
			if j.contentBlock(f, place{base: "content", i: i}, b, el) == "text" {
				j.content.hasText = true
			}
		})
	})
	return o
}

// indexParams indexes the params of a request or notification into the
// judge's scratch index: from the classifier's index when the frame came
// with one (in.Params: the members were found by the pass that classified
// the frame, and are not scanned for again), else by a scan of its own.
func (j *Judge) indexParams(in Input, msg val) *obj {
	params := &j.scratch.params
	f := in.Frame
	if x := in.Params; x != nil && len(f.Lines) == 1 && msg.kind() == kObject && int(x.End) <= len(f.Lines[0].Content) {
		params.fromIndex(f.Lines[0].Content, x)
	} else {
		params.scan(msg.open("params"))
	}
	return params
}
