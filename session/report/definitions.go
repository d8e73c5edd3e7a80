package report

import (
	"bytes"
	"encoding/json"
	"slices"

	"linesman/session"
	"linesman/wire"
)

// Definitions are what a server declared in its listings: its tools,
// prompts and resources, each as the server sent it. They are what drift
// compares ([CompareDefinitions]) and what a baseline file holds.
type Definitions struct {
	// Listed names the listings the session saw answered ("tools",
	// "prompts", "resources"): a kind never listed is unknown, not empty.
	Listed    []string     `json:"listed"`
	Tools     []Definition `json:"tools"`
	Prompts   []Definition `json:"prompts"`
	Resources []Definition `json:"resources"`
}

// Definition is one tool, prompt or resource: its key (a tool's or
// prompt's name, a resource's uri) and the object the server listed, as
// compact JSON. Everything in it is the server's text: untrusted.
type Definition struct {
	Name       string          `json:"name"`
	Definition json.RawMessage `json:"definition"`
	// seq is the frame of the listing it came from (0 when read from a file).
	seq uint64
}

// listings maps a list method to the kind it lists and the member of its
// result that holds them, and the key of each item.
var listings = []struct{ method, kind, key string }{
	{"tools/list", "tools", "name"},
	{"prompts/list", "prompts", "name"},
	{"resources/list", "resources", "uri"},
}

// DefinitionsOf reads the definitions from the answers to the client's
// tools/list, prompts/list and resources/list requests, page after page,
// as the tracker paired them. An item listed twice keeps its last form.
func DefinitionsOf(log *session.Log, tr *session.Tracker) *Definitions {
	d := &Definitions{Listed: []string{}, Tools: []Definition{}, Prompts: []Definition{}, Resources: []Definition{}}
	if tr == nil {
		return d
	}
	for _, q := range tr.Requests() {
		if q.Dir != wire.ClientToServer || q.ResponseSeq == 0 || q.State != session.ReqAnswered {
			continue
		}
		i := slices.IndexFunc(listings, func(l struct{ method, kind, key string }) bool { return l.method == q.Method })
		if i < 0 {
			continue
		}
		ev, ok := log.Get(q.ResponseSeq)
		if !ok || ev.Frame == nil {
			continue
		}
		d.add(listings[i].kind, listings[i].key, ev.Frame.Raw(), ev.Seq)
	}
	return d
}

// add folds one listing page into d.
func (d *Definitions) add(kind, key string, raw []byte, seq uint64) {
	var msg struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if json.Unmarshal(raw, &msg) != nil || msg.Result == nil {
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(msg.Result[kind], &items) != nil {
		return
	}
	if !slices.Contains(d.Listed, kind) {
		d.Listed = append(d.Listed, kind)
	}
	list := d.list(kind)
	for _, it := range items {
		var keyed map[string]json.RawMessage
		if json.Unmarshal(it, &keyed) != nil {
			continue
		}
		var name string
		if json.Unmarshal(keyed[key], &name) != nil {
			continue
		}
		var compact bytes.Buffer
		if json.Compact(&compact, it) != nil {
			continue
		}
		def := Definition{Name: name, Definition: compact.Bytes(), seq: seq}
		if j := slices.IndexFunc(*list, func(x Definition) bool { return x.Name == name }); j >= 0 {
			(*list)[j] = def
		} else {
			*list = append(*list, def)
		}
	}
}

// list is the list of d that holds kind.
func (d *Definitions) list(kind string) *[]Definition {
	switch kind {
	case "tools":
		return &d.Tools
	case "prompts":
		return &d.Prompts
	default:
		return &d.Resources
	}
}

// ToolNames are the names of the tools listed.
func (d *Definitions) ToolNames() []string {
	out := make([]string, len(d.Tools))
	for i, t := range d.Tools {
		out[i] = t.Name
	}
	return out
}

// Seq is the frame of the listing the definition came from (0 when it was
// read from a file).
func (d Definition) Seq() uint64 { return d.seq }
