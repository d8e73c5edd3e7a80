package protocol

import (
	"strings"

	"linesman/wire"
)

// Tasks (2025-11-25, "experimental"; 2026-07-28 moved them to an
// extension): a receiver answers a task-augmented request with a
// CreateTaskResult, and the requestor polls tasks/get, fetches the outcome
// with tasks/result, lists with tasks/list and cancels with tasks/cancel.
// The judge follows the server's tasks by id, as the requestor sees them:
//
//   - every Task (tasks/get, tasks/cancel, tasks/list, the status
//     notification) has the shape schema.ts gives it;
//   - tasks/list and tasks/cancel are asked of a receiver that declared
//     tasks.list and tasks.cancel, and a receiver that did not declare a
//     kind of task-augmented request (tasks.requests.tools.call, the
//     host's …sampling.createMessage, …elicitation.create) processes it
//     normally;
//   - no task id is given to two tasks;
//   - a tool whose execution.taskSupport is "required" is called as a task,
//     and a server refuses the call that is not one (-32601);
//   - "completed, failed, or cancelled … MUST NOT transition to any other
//     status": a task seen in one is never reported in another by an
//     answer to a request sent after it was seen;
//   - tasks/cancel moves the task to cancelled before it answers, and a
//     task already final is refused with -32602;
//   - the tasks/result answer carries io.modelcontextprotocol/related-task,
//     and is judged as an answer to the request that created the task.
//
// Order is the wire's: a status is compared only with what was on the
// wire before the request that asked for it, so two answers computed
// concurrently and written out of order never make a finding.

// taskbook is what the judge knows of the server's tasks.
type taskbook struct {
	byID map[string]*taskState
	// asked holds the Seq at which each client request about a task
	// (tasks/get, tasks/cancel, tasks/list) was sent, until its answer.
	asked map[*wire.Frame]uint64
	// augmented holds the task-augmented requests each side sent, by
	// sender and id, while they may still name a task: a cancel of one by
	// notifications/cancelled is a foul (cancelByNotification).
	augmented map[augKey]*wire.Frame
}

// augKey names a request by the side that sent it and its id.
type augKey struct {
	dir wire.Dir
	id  wire.ID
}

// maxAugmented bounds the task-augmented requests remembered.
const maxAugmented = 4096

// taskAugmentedSent remembers f, a task-augmented request its receiver
// declared it takes as a task (the other rules judge one it did not).
func (j *Judge) taskAugmentedSent(in Input, method string, params *obj) {
	if !taskAugmentable(method) || !params.get("task").isObject() {
		return
	}
	var declared bool
	switch method {
	case "tools/call":
		declared = j.caps.serverKnown && j.caps.server.path("tasks", "requests", "tools", "call").isObject()
	case "sampling/createMessage":
		declared = j.caps.clientKnown && j.caps.client.path("tasks", "requests", "sampling", "createMessage").isObject()
	case "elicitation/create":
		declared = j.caps.clientKnown && j.caps.client.path("tasks", "requests", "elicitation", "create").isObject()
	}
	if !declared {
		return
	}
	if len(j.tasks.augmented) >= maxAugmented {
		clear(j.tasks.augmented)
	}
	j.tasks.augmented[augKey{in.Dir, in.Frame.Msg.ID}] = in.Frame
}

// taskAugmentedAnswered forgets a task-augmented request answered without
// a task (an error, or a plain result): no task ever stood for it.
func (j *Judge) taskAugmentedAnswered(in Input, created bool) {
	if in.Request == nil || created || len(j.tasks.augmented) == 0 {
		return
	}
	other := wire.ClientToServer
	if in.Dir == wire.ClientToServer {
		other = wire.ServerToClient
	}
	k := augKey{other, in.Request.Msg.ID}
	if j.tasks.augmented[k] == in.Request {
		delete(j.tasks.augmented, k)
	}
}

// cancelByNotification judges a notifications/cancelled (f, sent in
// direction dir) naming id: a task-augmented request is cancelled with
// tasks/cancel, never so (2025-11-25).
func (j *Judge) cancelByNotification(f *wire.Frame, dir wire.Dir, id wire.ID) {
	req := j.tasks.augmented[augKey{dir, id}]
	if req == nil || hasFinding(req, "undeclared-capability-request") || hasFinding(req, "undeclared-client-capability") {
		return
	}
	j.ran(famTasks)
	raise(f, "task-cancelled-by-notification", "notifications/cancelled names request %s, a task-augmented %s: a task is cancelled with tasks/cancel and its taskId, never with notifications/cancelled", id.String(), req.Msg.Method)
}

// taskState is one task of the server's.
type taskState struct {
	origin     *wire.Frame // the task-augmented request that created it, if seen
	terminal   string      // the first final status seen ("" while none)
	terminalAt uint64      // the Seq of the frame that showed it
}

func newTaskbook() taskbook {
	return taskbook{byID: map[string]*taskState{}, asked: map[*wire.Frame]uint64{}, augmented: map[augKey]*wire.Frame{}}
}

// relatedTaskKey is the _meta key that ties a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// tasksOn reports whether the session speaks the one revision whose tasks
// these rules judge.
func (j *Judge) tasksOn() bool {
	return j.era != EraModern && j.version == V20251125
}

// finalTaskStatus reports whether status is a terminal one.
func finalTaskStatus(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// task judges a Task (schema.ts 2025-11-25) at where under code, and
// reports whether its members had their kinds.
func (j *Judge) task(f *wire.Frame, code, where string, t val) bool {
	j.ran(famTasks)
	if !t.isObject() {
		raise(f, code, "%s is %s; it must be a Task object (taskId, status, createdAt, lastUpdatedAt, ttl)", where, t.kindName())
		return false
	}
	ok := j.members(f, code, where, t, taskMembers)
	switch string(t.get("status")) {
	case `"working"`, `"input_required"`, `"completed"`, `"failed"`, `"cancelled"`:
	default:
		if t.get("status").isString() {
			raise(f, code, "%s.status is %s; it must be working, input_required, completed, failed or cancelled", where, t.get("status").text())
			ok = false
		}
	}
	if ttl := t.get("ttl"); !ttl.isNumber() && !ttl.isNull() {
		raise(f, code, "%s.ttl is %s; it must be a number of milliseconds, or null for unlimited", where, ttl.kindName())
		ok = false
	}
	return ok
}

// taskRequest judges a request about tasks, either way, and a tools/call
// against its tool's execution.taskSupport.
func (j *Judge) taskRequest(in Input, method string, params *obj) {
	f := in.Frame
	switch method {
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
	case "tools/call":
		j.requiredTaskCall(f, params)
		return
	default:
		return
	}
	j.ran(famTasks)
	if method != "tasks/list" {
		if id := params.get("taskId"); !id.isString() {
			raise(f, "params-invalid", "%s's params.taskId is %s; it must be the string id the receiver gave the task", method, id.kindName())
		}
	}
	if method == "tasks/list" || method == "tasks/cancel" {
		j.taskCapability(f, in.Dir, method)
	}
	if in.Dir == wire.ClientToServer && method != "tasks/result" {
		if len(j.tasks.asked) >= maxPending {
			clear(j.tasks.asked) // requests never answered
		}
		j.tasks.asked[f] = in.Seq
	}
}

// taskCapability flags tasks/list or tasks/cancel sent to a receiver that
// did not declare tasks.list or tasks.cancel ("capabilities.tasks.list
// controls if the tasks/list operation is supported by the party").
func (j *Judge) taskCapability(f *wire.Frame, dir wire.Dir, method string) {
	need := "list"
	if method == "tasks/cancel" {
		need = "cancel"
	}
	j.ran(famCapabilities)
	switch {
	case dir == wire.ClientToServer && j.caps.serverKnown && !declaredObject(j.caps.server.path("tasks", need)):
		raise(f, "undeclared-capability-request", "the client sent %s but the server did not declare tasks.%s", method, need)
	case dir == wire.ServerToClient && j.caps.clientKnown && !declaredObject(j.caps.client.path("tasks", need)):
		raise(f, "undeclared-client-capability", "the server sent %s but the client did not declare tasks.%s", method, need)
	}
}

// requiredTaskCall flags a tools/call, not task-augmented, of a tool whose
// execution.taskSupport is "required" on a server that declared
// tasks.requests.tools.call ("clients MUST invoke the tool as a task").
func (j *Judge) requiredTaskCall(f *wire.Frame, params *obj) {
	if name, ok := j.requiredTaskTool(params); ok {
		j.ran(famTasks)
		raise(f, "task-support-violated", "the client called tool %q without a task, but its execution.taskSupport is \"required\": it must be called with params.task", name)
	}
}

// requiredTaskTool is the name of the tool a tools/call names, when the
// call is not task-augmented and the tool requires it.
func (j *Judge) requiredTaskTool(params *obj) (string, bool) {
	if params.get("task").present() || !j.caps.serverKnown || !j.caps.server.path("tasks", "requests", "tools", "call").isObject() {
		return "", false
	}
	name, _ := params.get("name").str()
	t := j.tools.byName[name]
	return name, t != nil && t.taskSupport == "required"
}

// taskRefusal reports whether a tools/call is one 2025-11-25 has refused
// with -32601 (Method not found): a task-augmented call ("Servers SHOULD
// return a -32601 … error if a client attempts to" invoke a tool as a task
// that does not allow it), or a plain call of a tool that requires one.
func (j *Judge) taskRefusal(params *obj) bool {
	if !j.tasksOn() {
		return false
	}
	if params.get("task").present() {
		return true
	}
	_, required := j.requiredTaskTool(params)
	return required
}

// taskCreated follows a task the server created (its CreateTaskResult
// answers request, a task-augmented tools/call), and flags one created by
// a server that did not declare task-augmented calls ("Receivers that do
// not declare the task capability for a request type MUST process
// requests of that type normally").
func (j *Judge) taskCreated(in Input, method string, t val) {
	if !j.tasksOn() {
		return
	}
	if method == "tools/call" && j.caps.serverKnown {
		j.ran(famCapabilities)
		if !j.caps.server.path("tasks", "requests", "tools", "call").isObject() {
			raise(in.Frame, "undeclared-capability", "the server answered a task-augmented tools/call with a CreateTaskResult but never declared tasks.requests.tools.call: it must process the call normally")
		}
	}
	id, ok := t.get("taskId").str()
	if !ok {
		return
	}
	st := j.taskState(id)
	if st.origin != nil && st.origin != in.Request {
		j.ran(famTasks)
		raise(in.Frame, "task-id-reused", "the server created task %q again, for request %s; it already named the task that request %s created", id, in.Request.Msg.ID.String(), st.origin.Msg.ID.String())
		// The new task is the one its id names from now on.
		*st = taskState{}
	}
	st.origin = in.Request
	j.observeTask(in.Frame, id, t, in.Seq, 0, "the CreateTaskResult")
}

// clientCreatedTask flags a CreateTaskResult from a host that did not
// declare task-augmented requests of that kind (tasks.requests.sampling.
// createMessage, tasks.requests.elicitation.create): "Receivers that do
// not declare the task capability for a request type MUST process
// requests of that type normally".
func (j *Judge) clientCreatedTask(f *wire.Frame, method string) {
	if !j.tasksOn() || !j.caps.clientKnown {
		return
	}
	area, verb, _ := strings.Cut(method, "/")
	if verb == "" || declaredObject(j.caps.client.path("tasks", "requests", area, verb)) {
		return
	}
	j.ran(famTasks)
	raise(f, "result-invalid", "the client answered %s with a CreateTaskResult but never declared tasks.requests.%s.%s: it must process the request normally", method, area, verb)
}

// taskState is the state of the server's task id, made on first sight.
func (j *Judge) taskState(id string) *taskState {
	st := j.tasks.byID[id]
	if st == nil {
		if len(j.tasks.byID) >= maxPending {
			clear(j.tasks.byID)
		}
		st = &taskState{}
		j.tasks.byID[id] = st
	}
	return st
}

// observeTask notes the status t shows of task id, seen in frame seq in
// answer to a request sent at asked (0: not an answer, or no request
// about the task), and flags a final status left.
func (j *Judge) observeTask(f *wire.Frame, id string, t val, seq, asked uint64, where string) {
	status, ok := t.get("status").str()
	if !ok {
		return
	}
	st := j.taskState(id)
	if st.terminal != "" && asked > st.terminalAt && status != st.terminal {
		j.ran(famTasks)
		raise(f, "task-left-terminal-status", "%s reports task %q as %s, but it was %s before this was asked: completed, failed and cancelled are final", where, id, status, st.terminal)
		return
	}
	if st.terminal == "" && finalTaskStatus(status) {
		st.terminal, st.terminalAt = status, seq
	}
}

// askedAt is the Seq at which the request req was sent, forgotten now
// that it is answered (0 when it was not one the judge follows).
func (j *Judge) askedAt(req *wire.Frame) uint64 {
	if req == nil {
		return 0
	}
	at := j.tasks.asked[req]
	delete(j.tasks.asked, req)
	return at
}

// taskResult judges the server's answer (a result) to a request about
// tasks, and a result to a tools/call a task was required for. It returns
// the method the result is to be judged as: for a tasks/result whose task
// the judge saw created, the method of the request that created it, whose
// params it then indexes into params ("The result structure matches the
// original request type").
func (j *Judge) taskResult(in Input, method string, params *obj, r val) string {
	j.taskResultRules(in, method, params, r)
	if orig := j.taskOrigin(method, params); orig != nil {
		params.lazy(body(orig).open("params"))
		return orig.Msg.Method
	}
	return method
}

// taskResultRules is taskResult's judging.
func (j *Judge) taskResultRules(in Input, method string, params *obj, r val) {
	f := in.Frame
	asked := j.askedAt(in.Request)
	switch method {
	case "tasks/get":
		if j.task(f, "result-invalid", "the tasks/get result", r) {
			id, _ := params.get("taskId").str()
			j.observeTask(f, id, r, in.Seq, asked, "the tasks/get result")
		}
	case "tasks/cancel":
		if j.task(f, "result-invalid", "the tasks/cancel result", r) {
			j.cancelResult(f, params, r, in.Seq, asked)
		}
	case "tasks/list":
		j.ran(famTasks)
		ts := r.get("tasks")
		if !ts.isArray() {
			raise(f, "result-invalid", "the tasks/list result's tasks is %s; it must be an array of Tasks", ts.kindName())
			return
		}
		ts.elems(func(i int, t val) bool {
			where := "the tasks/list result's tasks[" + itoa(i) + "]"
			if j.task(f, "result-invalid", where, t) {
				id, _ := t.get("taskId").str()
				j.observeTask(f, id, t, in.Seq, asked, where)
			}
			return true
		})
	case "tasks/result":
		j.ran(famTasks)
		id, _ := params.get("taskId").str()
		rt := r.path("_meta", relatedTaskKey)
		if got, _ := rt.get("taskId").str(); !rt.isObject() || got != id {
			raise(f, "task-result-untagged", "the tasks/result result for task %q has %s %s; it must carry {\"taskId\": %q} there", id, "_meta."+relatedTaskKey, describeRelated(rt), id)
		}
	case "tools/call":
		// A refusal through the tool-error channel (isError, as the
		// TypeScript SDK 1.32 words it: "MCP error -32601: Tool … requires
		// task augmentation") still refuses: only a tool that ran is a foul.
		if name, ok := j.requiredTaskTool(params); ok && !r.get("isError").truthy() {
			j.ran(famTasks)
			raise(f, "task-support-violated", "the server ran tool %q for a call that was not a task, but the tool's execution.taskSupport is \"required\": such a call is refused with -32601 (Method not found)", name)
		}
	}
}

// describeRelated says what a related-task value was, for a message.
func describeRelated(v val) string {
	if !v.present() {
		return "absent"
	}
	return "= " + v.text()
}

// cancelResult judges a tasks/cancel result: the task is cancelled
// ("MUST transition the task to cancelled status before sending the
// response"), and was not final before the request ("Receivers MUST
// reject cancellation requests for tasks already in a terminal status …
// with error code -32602").
func (j *Judge) cancelResult(f *wire.Frame, params *obj, r val, seq, asked uint64) {
	id, _ := params.get("taskId").str()
	if st := j.tasks.byID[id]; st != nil && st.terminal != "" && asked > st.terminalAt {
		raise(f, "task-cancel-invalid", "tasks/cancel of task %q, already %s, was accepted; a task in a terminal status must be refused with -32602 (Invalid params)", id, st.terminal)
		return
	}
	if status, _ := r.get("status").str(); status != "cancelled" {
		raise(f, "task-cancel-invalid", "the tasks/cancel result reports task %q as %s; the receiver must move the task to cancelled before it answers", id, r.get("status").text())
		return
	}
	j.observeTask(f, id, r, seq, asked, "the tasks/cancel result")
}

// declaredObject reports whether a capability flag of the form
// Record<string, never> ({}) is declared.
func declaredObject(v val) bool { return v.present() && !v.isNull() }

// taskError judges an error answering a request about tasks: a
// tasks/cancel of a task known to be final before the request is refused
// with -32602.
func (j *Judge) taskError(in Input, method string, params *obj) {
	asked := j.askedAt(in.Request)
	if method != "tasks/cancel" {
		return
	}
	id, _ := params.get("taskId").str()
	st := j.tasks.byID[id]
	if st == nil || st.terminal == "" || asked <= st.terminalAt || in.Frame.Msg.ErrorCode() == -32602 {
		return
	}
	j.ran(famTasks)
	raise(in.Frame, "task-cancel-invalid", "tasks/cancel of task %q, already %s, was refused with %d; the code for a task in a terminal status is -32602 (Invalid params)", id, st.terminal, in.Frame.Msg.ErrorCode())
}

// taskNotification judges notifications/tasks/status: its params are the
// Task, whose final status is noted (a notification is never stale
// towards a later status, so it only ever shows that a task ended).
func (j *Judge) taskNotification(in Input, params *obj, raw val) {
	if !j.task(in.Frame, "params-invalid", "notifications/tasks/status's params", raw) {
		return
	}
	if in.Dir == wire.ServerToClient {
		id, _ := params.get("taskId").str()
		j.observeTask(in.Frame, id, raw, in.Seq, 0, "notifications/tasks/status")
	}
}

// taskOrigin is, for a tasks/result, the request that created the task
// it asks for, when the judge saw it.
func (j *Judge) taskOrigin(method string, params *obj) *wire.Frame {
	if method != "tasks/result" {
		return nil
	}
	id, ok := params.get("taskId").str()
	if !ok {
		return nil
	}
	if st := j.tasks.byID[id]; st != nil {
		return st.origin
	}
	return nil
}
