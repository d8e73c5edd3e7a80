package eventlog

import (
	"bytes"
	"encoding/json"
	"slices"

	"linesman/wire"
)

// Offer is what the server offers, as the projection tells it
// ([Tracker.Offer]): for each kind of listing, the items of its most recent
// listing. The picker, the report's definitions, --baseline, --expect-tool
// and diff all read it; none keeps a catalog of its own.
//
// The one rule, for every kind:
//   - A listing is a list request without a cursor and the requests with
//     the cursors that follow it. The first answered page of a listing
//     replaces what the previous listing said, whole: an item no longer
//     listed is no longer offered (tools/list answered [a, b], later [a]:
//     the offer is [a]).
//   - A page answered for a request that carries a cursor adds to the
//     listing under way; an item listed twice keeps its last form.
//   - An error, or an answer that is not a list result, changes nothing.
//   - notifications/<kind>/list_changed marks the kind Stale, and so does a
//     restart: what was last listed stays the offer (nothing better is
//     known) until the next listing.
//
// Why: a list result is the server's current offer ("servers MAY change
// their list" and notify with list_changed, server/tools and friends, every
// revision), and pagination splits one list over pages (utilities/
// pagination). A union of every listing ever seen would keep offering a
// tool the server took away.
type Offer struct {
	Tools, Prompts, Resources, ResourceTemplates Listing
}

// Listing is one kind of the offer.
type Listing struct {
	// Listed: a listing of this kind was answered (a kind never listed is
	// unknown, not empty).
	Listed bool
	// Stale: the server said the list changed (or restarted) since.
	Stale bool
	Items []Offered
}

// Offered is one item of a listing: its key (a tool's or prompt's name, a
// resource's uri, a template's uriTemplate) and the object as the server
// listed it, as compact JSON. Everything in it is server text: untrusted.
type Offered struct {
	Key  string
	JSON json.RawMessage
	// Seq is the answer frame that listed it.
	Seq uint64
}

// Keys returns the keys of the listing's items, in listed order.
func (l *Listing) Keys() []string {
	out := make([]string, len(l.Items))
	for i, it := range l.Items {
		out[i] = it.Key
	}
	return out
}

// offerKinds maps each list method to its member of the result, the key
// of its items, and the notification that says the list changed.
var offerKinds = []struct {
	method, member, key, changed string
	listing                      func(*Offer) *Listing
}{
	{"tools/list", "tools", "name", "notifications/tools/list_changed", func(o *Offer) *Listing { return &o.Tools }},
	{"prompts/list", "prompts", "name", "notifications/prompts/list_changed", func(o *Offer) *Listing { return &o.Prompts }},
	{"resources/list", "resources", "uri", "notifications/resources/list_changed", func(o *Offer) *Listing { return &o.Resources }},
	{"resources/templates/list", "resourceTemplates", "uriTemplate", "notifications/resources/list_changed", func(o *Offer) *Listing { return &o.ResourceTemplates }},
}

// isListMethod reports whether method lists a kind of the offer.
func isListMethod(method string) bool {
	return slices.ContainsFunc(offerKinds, func(k struct {
		method, member, key, changed string
		listing                      func(*Offer) *Listing
	}) bool {
		return k.method == method
	})
}

// hasCursor reports whether a request frame's params carry a cursor.
func hasCursor(f *wire.Frame) bool {
	raw := f.Raw()
	if !bytes.Contains(raw, []byte(`"cursor"`)) {
		return false
	}
	var req struct {
		Params struct {
			Cursor json.RawMessage `json:"cursor"`
		} `json:"params"`
	}
	return json.Unmarshal(raw, &req) == nil && len(req.Params.Cursor) > 0 && string(req.Params.Cursor) != "null"
}

// learnOffer folds the answer f (at seq) to the client's request e into the
// offer, by the rule of [Offer].
func (t *Tracker) learnOffer(e *entry, seq uint64, f *wire.Frame) {
	if e.Dir != wire.ClientToServer || f.Msg.Kind != wire.KindResult {
		return
	}
	for _, k := range offerKinds {
		if k.method != e.Method {
			continue
		}
		var msg struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		var items []json.RawMessage
		if json.Unmarshal(f.Raw(), &msg) != nil || json.Unmarshal(msg.Result[k.member], &items) != nil {
			return
		}
		l := k.listing(&t.offer)
		if !e.paged {
			*l = Listing{}
		}
		l.Listed, l.Stale = true, false
		for _, raw := range items {
			l.add(k.key, raw, seq)
		}
		return
	}
}

// add adds one listed item, replacing an item with the same key.
func (l *Listing) add(key string, raw json.RawMessage, seq uint64) {
	var keyed map[string]json.RawMessage
	var name string
	if json.Unmarshal(raw, &keyed) != nil || json.Unmarshal(keyed[key], &name) != nil {
		return
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return
	}
	it := Offered{Key: name, JSON: compact.Bytes(), Seq: seq}
	if j := slices.IndexFunc(l.Items, func(x Offered) bool { return x.Key == name }); j >= 0 {
		l.Items[j] = it
		return
	}
	l.Items = append(l.Items, it)
}

// offerChanged marks stale the kinds a server's list_changed names.
func (t *Tracker) offerChanged(method string) {
	for _, k := range offerKinds {
		if k.changed == method {
			k.listing(&t.offer).Stale = true
		}
	}
}

// Offer returns what the server offers as the fold stands (the slices are
// copies; the items' JSON is shared and must not be changed).
func (t *Tracker) Offer() Offer {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := t.offer
	for _, k := range offerKinds {
		l := k.listing(&o)
		l.Items = slices.Clone(l.Items)
	}
	return o
}
