package protocol

import "linesman/wire"

// What a request names and what a task is, for the fold's logical calls
// (eventlog's Call): read once here, with the judge's own scanner, so the
// fold needs no JSON decoding of its own.

// CallTarget is what a request of method names: a tools/call's or
// prompts/get's params.name, a resources/read's params.uri; "" for other
// methods. Retries of a 2026-07-28 multi-round request name the same
// target, so the method and the target together find the call a retry
// continues.
func CallTarget(method string, f *wire.Frame) string {
	field, ok := mrtrMethods[method]
	if !ok || f.Msg.Kind != wire.KindRequest {
		return ""
	}
	s, _ := body(f).get("params").get(field).str()
	return s
}

// CreatedTaskID is the task.taskId of the answer f to a request of method
// when it is a CreateTaskResult (2025-11-25 tasks; see [CreatesTask]).
func CreatedTaskID(method string, f *wire.Frame) (string, bool) {
	if f.Msg.Kind != wire.KindResult || !taskAugmentable(method) {
		return "", false
	}
	t := createdTask(body(f).get("result"))
	if t == nil {
		return "", false
	}
	return t.get("taskId").str()
}

// PolledTaskID is the params.taskId of a tasks/get, tasks/result or
// tasks/cancel request: the task it polls, fetches or cancels.
func PolledTaskID(f *wire.Frame) (string, bool) {
	switch f.Msg.Method {
	case "tasks/get", "tasks/result", "tasks/cancel":
	default:
		return "", false
	}
	if f.Msg.Kind != wire.KindRequest {
		return "", false
	}
	return body(f).get("params").get("taskId").str()
}
