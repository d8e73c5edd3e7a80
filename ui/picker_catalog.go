package ui

import (
	"encoding/json"

	"linesman/session"
	"linesman/wire"
)

// catalog is what the server offers, as its last list results said: the
// tools (with their input schemas), prompts (with their arguments),
// resources and resource templates. The picker lists them; the composer's
// tools/call skeletons read the tools. Everything here is server text:
// made inert where it is shown (see pickItem.row) and written into requests
// by the JSON encoder only.
type catalog struct {
	tools      []toolInfo
	prompts    []promptInfo
	resources  []resourceInfo
	rtemplates []resourceInfo // resource templates: URI holds the uriTemplate
	// listedMethods holds the list methods an answer was seen for.
	listedMethods map[string]bool
}

// toolInfo is one tool of a tools/list result.
type toolInfo struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"inputSchema"`
}

// promptInfo is one prompt of a prompts/list result.
type promptInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"arguments"`
}

// resourceInfo is one resource of resources/list, or one template of
// resources/templates/list (URI is then its uriTemplate).
type resourceInfo struct {
	URI         string `json:"uri"`
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

// listed keeps what a list result says, for the request r it answers. A
// result for a request that carried a cursor (a later page) adds to the
// list; any other replaces it.
func (x *index) listed(r session.Request, f *wire.Frame) {
	c := &x.catalog
	var res struct {
		Result struct {
			Tools             []toolInfo     `json:"tools"`
			Prompts           []promptInfo   `json:"prompts"`
			Resources         []resourceInfo `json:"resources"`
			ResourceTemplates []resourceInfo `json:"resourceTemplates"`
		} `json:"result"`
	}
	switch r.Method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
	default:
		return
	}
	if json.Unmarshal(frameText(f), &res) != nil {
		return
	}
	if c.listedMethods == nil {
		c.listedMethods = map[string]bool{}
	}
	page := c.listedMethods[r.Method] && x.hadCursor(r.Seq)
	c.listedMethods[r.Method] = true
	switch r.Method {
	case "tools/list":
		c.tools = keepPage(c.tools, res.Result.Tools, page)
	case "prompts/list":
		c.prompts = keepPage(c.prompts, res.Result.Prompts, page)
	case "resources/list":
		c.resources = keepPage(c.resources, res.Result.Resources, page)
	case "resources/templates/list":
		for i := range res.Result.ResourceTemplates {
			t := &res.Result.ResourceTemplates[i]
			t.URI = t.URITemplate
		}
		c.rtemplates = keepPage(c.rtemplates, res.Result.ResourceTemplates, page)
	}
}

// keepPage replaces old with items, or appends them when they are a later
// page of the same list.
func keepPage[T any](old, items []T, page bool) []T {
	if page {
		return append(old, items...)
	}
	return items
}

// hadCursor reports whether the request frame seq asked for a later page.
func (x *index) hadCursor(seq uint64) bool {
	ev, ok := x.log.Get(seq)
	if !ok || ev.Frame == nil {
		return false
	}
	var req struct {
		Params struct {
			Cursor *string `json:"cursor"`
		} `json:"params"`
	}
	return json.Unmarshal(frameText(ev.Frame), &req) == nil && req.Params.Cursor != nil
}
