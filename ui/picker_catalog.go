package ui

import (
	"encoding/json"

	"linesman/session/eventlog"
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

// listed refreshes the catalog from what the server offers, as the
// projection tells it (eventlog.Offer: the most recent listing of each
// kind), after the answer to the list request r.
func (x *index) listed(r eventlog.Request) {
	switch r.Method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
	default:
		return
	}
	o := x.tr.Offer()
	c := &x.catalog
	c.listedMethods = map[string]bool{}
	c.tools = offered[toolInfo](&o.Tools, "tools/list", c.listedMethods)
	c.prompts = offered[promptInfo](&o.Prompts, "prompts/list", c.listedMethods)
	c.resources = offered[resourceInfo](&o.Resources, "resources/list", c.listedMethods)
	c.rtemplates = offered[resourceInfo](&o.ResourceTemplates, "resources/templates/list", c.listedMethods)
	for i := range c.rtemplates {
		c.rtemplates[i].URI = c.rtemplates[i].URITemplate
	}
}

// offered decodes the items of one listing of the offer, and notes its
// method in listed when it was listed.
func offered[T any](l *eventlog.Listing, method string, listed map[string]bool) []T {
	if !l.Listed {
		return nil
	}
	listed[method] = true
	out := make([]T, 0, len(l.Items))
	for _, it := range l.Items {
		var v T
		if json.Unmarshal(it.JSON, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}
