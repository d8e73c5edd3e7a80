package report

import (
	"encoding/json"

	"linesman/session/eventlog"
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

// DefinitionsOf reads the definitions from what the server offers, as the
// projection tells it ([eventlog.Offer]: the most recent listing of each
// kind, page after page; a tool the server stopped listing is gone).
func DefinitionsOf(tr *eventlog.Tracker) *Definitions {
	d := &Definitions{Listed: []string{}, Tools: []Definition{}, Prompts: []Definition{}, Resources: []Definition{}}
	if tr == nil {
		return d
	}
	o := tr.Offer()
	for _, k := range []struct {
		kind    string
		listing *eventlog.Listing
	}{{"tools", &o.Tools}, {"prompts", &o.Prompts}, {"resources", &o.Resources}} {
		if !k.listing.Listed {
			continue
		}
		d.Listed = append(d.Listed, k.kind)
		list := d.list(k.kind)
		for _, it := range k.listing.Items {
			*list = append(*list, Definition{Name: it.Key, Definition: it.JSON, seq: it.Seq})
		}
	}
	return d
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
