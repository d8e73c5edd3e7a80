package protocol

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"linesman/wire"
)

func itoa(n int) string { return strconv.Itoa(n) }

// quoteRune names the character r that starts s[at:] for a message:
// a printable one in quotes with its code point ('é' (U+00E9)), any
// other — a control, a format or bidirectional control, a combining mark
// or a separator — by its code point alone (U+009B), so that nothing
// quoted from a server's text can act on the terminal that shows it; a
// byte that is not UTF-8 by its value.
func quoteRune(s string, at int, r rune) string {
	switch {
	case r == ' ':
		return "a space"
	case r == utf8.RuneError:
		if _, n := utf8.DecodeRuneInString(s[at:]); n <= 1 {
			return fmt.Sprintf("the byte 0x%02X, which is not UTF-8", s[at])
		}
	case r < utf8.RuneSelf && unicode.IsPrint(r):
		return strconv.QuoteRune(r)
	}
	if unicode.IsPrint(r) && !unicode.IsMark(r) {
		return fmt.Sprintf("'%c' (U+%04X)", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// contentType reads a content block's type and the revision it appeared
// in, without allocating for the known ones.
func contentType(v val) (typ, since string, known bool) {
	switch string(v.rawStr()) {
	case "text":
		return "text", V20241105, true
	case "image":
		return "image", V20241105, true
	case "resource":
		return "resource", V20241105, true
	case "audio":
		return "audio", V20250326, true
	case "resource_link":
		return "resource_link", V20250618, true
	}
	typ, _ = v.str()
	return typ, "", false
}

// contentBlock judges one content block (tool result, prompt message)
// and returns its type.
func (j *Judge) contentBlock(f *wire.Frame, where place, b *obj, el val) string {
	j.ran(famContent)
	if !el.isObject() {
		raise(f, "content-block-invalid", "%s is %s; a content block is an object", where, el.kindName())
		return ""
	}
	typ, since, known := contentType(b.get("type"))
	switch {
	case !known:
		raise(f, "content-block-invalid", "%s has type %s; content blocks are text, image, audio, resource_link or resource", where, b.get("type").text())
		return typ
	case !j.versionAtLeast(since):
		raise(f, "content-block-invalid", "%s has type %q, which protocol version %s does not have (it arrived in %s)", where, typ, j.version, since)
		return typ
	}
	needString := func(key string) bool {
		if v := b.get(key); !v.isString() {
			raise(f, "content-block-invalid", "%s (%s) has %s %s; it must be a string", where, typ, key, v.kindName())
			return false
		}
		return true
	}
	switch typ {
	case "text":
		needString("text")
	case "image", "audio":
		if needString("data") {
			j.base64(f, where.with(".data"), b.get("data"))
		}
		if needString("mimeType") && !mediaTypeOK(b.get("mimeType").rawStr()) {
			raise(f, "content-block-invalid", "%s (%s) has mimeType %s, which is no media type (type/subtype, e.g. image/png)", where, typ, b.get("mimeType").text())
		}
	case "resource_link":
		if needString("uri") {
			j.uri(f, where.with(".uri"), b.get("uri"))
		}
		needString("name")
	case "resource":
		if j.serverFrame && j.caps.serverKnown && !declares(j.caps.server, "resources") {
			raise(f, "embedded-resource-undeclared", "%s is an embedded resource, but the server declared no resources capability: a host cannot read it again", where)
		}
		r := b.get("resource")
		if !r.isObject() {
			raise(f, "content-block-invalid", "%s (resource) has resource %s; it must be an object with uri and text or blob", where, r.kindName())
			return typ
		}
		ro := index(r)
		j.resourceContents(f, where.with(".resource"), &ro)
	}
	if a := b.get("annotations"); a.present() {
		j.annotations(f, "content-block-invalid", where.String()+".annotations", a)
	}
	return typ
}

// mediaTypeOK reports whether s has the shape of a media type: a type and
// a subtype of token characters, parameters allowed ("image/png",
// "audio/wav", "image/svg+xml; charset=utf-8").
func mediaTypeOK(s []byte) bool {
	if i := bytes.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	s = bytes.TrimSpace(s)
	slash := bytes.IndexByte(s, '/')
	if slash <= 0 || slash == len(s)-1 {
		return false
	}
	for i, c := range s {
		if i == slash {
			continue
		}
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`()<>@,;:\"/[]?={}`), c) >= 0 {
			return false
		}
	}
	return true
}

// annotations judges an Annotations object (content blocks, resources):
// audience of roles, priority from 0 to 1, lastModified a string
// (2025-06-18).
func (j *Judge) annotations(f *wire.Frame, code, where string, a val) {
	if !a.isObject() {
		raise(f, code, "%s is %s; annotations are an object", where, a.kindName())
		return
	}
	if au := a.get("audience"); au.present() {
		ok := au.isArray()
		au.elems(func(_ int, r val) bool {
			ok = string(r) == `"user"` || string(r) == `"assistant"`
			return ok
		})
		if !ok {
			raise(f, code, "%s.audience is %s; it must be a list of roles, \"user\" or \"assistant\"", where, au.text())
		}
	}
	if p := a.get("priority"); p.present() {
		if n, ok := p.num(); !ok || n < 0 || n > 1 {
			raise(f, code, "%s.priority is %s; it must be a number from 0 (least important) to 1 (most)", where, p.text())
		}
	}
	if lm := a.get("lastModified"); lm.present() && !lm.isString() && j.versionAtLeast(V20250618) {
		raise(f, code, "%s.lastModified is %s; it must be an ISO 8601 string", where, lm.kindName())
	}
}

// resourceContents judges text or blob resource contents.
func (j *Judge) resourceContents(f *wire.Frame, where place, r *obj) {
	j.ran(famResources)
	if u := r.get("uri"); !u.isString() {
		raise(f, "content-block-invalid", "%s has uri %s; it must be a string", where, u.kindName())
	} else {
		j.uri(f, where.with(".uri"), u)
	}
	text, blob := r.get("text"), r.get("blob")
	switch {
	case text.isString() && !blob.present():
	case blob.isString() && !text.present():
		j.base64(f, where.with(".blob"), blob)
	case text.present() && blob.present():
		raise(f, "content-block-invalid", "%s has both text and blob; resource contents carry exactly one", where)
	default:
		raise(f, "content-block-invalid", "%s has neither a text nor a blob string", where)
	}
}

// b64 marks the bytes of the standard base64 alphabet.
var b64 = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return
}()

// base64 checks that a string is standard base64 with correct padding.
func (j *Judge) base64(f *wire.Frame, where place, v val) {
	s := v.rawStr()
	if msg := base64Problem(s); msg != "" {
		raise(f, "invalid-base64", "%s is not valid base64: %s", where, msg)
	}
}

func base64Problem(s []byte) string {
	n := len(s)
	for n > 0 && s[n-1] == '=' {
		n--
	}
	if len(s)-n > 2 {
		return "too much padding"
	}
	for i := 0; i < n; i++ {
		if !b64[s[i]] {
			if s[i] == '\\' {
				return "an escape sequence (\\) in the data"
			}
			return "the character " + strconv.QuoteRune(rune(s[i])) + " at offset " + itoa(i)
		}
	}
	if len(s)%4 != 0 {
		return "its length " + itoa(len(s)) + " is not a multiple of 4"
	}
	return ""
}

// uri checks that a URI has a scheme (RFC 3986 §3: scheme ":" hier-part).
func (j *Judge) uri(f *wire.Frame, where place, v val) {
	j.ran(famResources)
	s, _ := v.str()
	if !hasScheme(s) {
		raise(f, "resource-uri-invalid", "%s %q has no scheme (file://, https://, or a custom scheme:)", where, s)
	}
}

func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':' && i > 0:
			return true
		default:
			return false
		}
	}
	return false
}

// resourcesListResult judges the resources of a listing.
func (j *Judge) resourcesListResult(f *wire.Frame, result *obj) {
	result.get("resources").elems(func(i int, r val) bool {
		where := place{base: "resources", i: i}
		if !r.isObject() {
			raise(f, "result-invalid", "%s is %s; a resource is an object", where, r.kindName())
			return true
		}
		j.members(f, "result-invalid", where.String(), r, resourceMembers)
		if a := r.get("annotations"); a.present() {
			j.annotations(f, "result-invalid", where.String()+".annotations", a)
		}
		if u := r.get("uri"); !u.isString() {
			raise(f, "result-invalid", "%s.uri is %s; it must be a string", where, u.kindName())
		} else {
			j.uri(f, where.with(".uri"), u)
		}
		return true
	})
}

// resourcesReadResult judges the contents of a read.
func (j *Judge) resourcesReadResult(f *wire.Frame, result *obj) {
	result.get("contents").objects(&j.block, func(i int, r *obj, el val) {
		if !el.isObject() {
			raise(f, "result-invalid", "contents[%d] is %s; it must be an object", i, el.kindName())
			return
		}
		j.resourceContents(f, place{base: "contents", i: i}, r)
	})
}

// promptsListResult records each prompt's required arguments.
func (j *Judge) promptsListResult(f *wire.Frame, result *obj) {
	j.ran(famPrompts)
	result.get("prompts").elems(func(i int, p val) bool {
		j.promptShape(f, i, p)
		name, ok := p.get("name").str()
		if !ok {
			return true
		}
		var req []string
		p.get("arguments").elems(func(_ int, a val) bool {
			if n, ok := a.get("name").str(); ok && a.get("required").truthy() {
				req = append(req, n)
			}
			return true
		})
		j.prompts[name] = req
		return true
	})
}

// promptsGetResult flags a prompt served without its required arguments,
// and judges the messages' content.
func (j *Judge) promptsGetResult(f *wire.Frame, params, result *obj) {
	j.ran(famPrompts)
	name, _ := params.get("name").str()
	if req, ok := j.prompts[name]; ok {
		args := params.get("arguments")
		for _, a := range req {
			if !args.get(a).isString() {
				raise(f, "prompt-required-argument-missing", "prompt %q was served without its required argument %q instead of an Invalid params error (-32602)", name, a)
				break
			}
		}
	}
	result.get("messages").elems(func(i int, m val) bool {
		j.promptMessageRole(f, i, m)
		c := m.get("content")
		co := index(c)
		j.contentBlock(f, place{base: "messages", i: i, subs: [2]string{".content"}, n: 1}, &co, c)
		return true
	})
}

// paginated are the methods whose results may carry nextCursor.
var paginated = map[string]bool{"tools/list": true, "prompts/list": true, "resources/list": true, "resources/templates/list": true}

// cursorRequest flags a cursor the server never issued for that method.
func (j *Judge) cursorRequest(f *wire.Frame, method string, params *obj) {
	if !paginated[method] {
		return
	}
	c := params.get("cursor")
	if !c.present() {
		return
	}
	j.ran(famPagination)
	s, ok := c.str()
	if !ok {
		raise(f, "params-invalid", "%s's params.cursor is %s; cursors are strings", method, c.kindName())
		return
	}
	if !j.pages[method].mayHold(s) {
		raise(f, "unknown-cursor", "%s asks for cursor %q, which no earlier %s result issued as nextCursor: cursors are opaque and only valid as issued", method, s, method)
	}
}

// cursorResult records a nextCursor.
func (j *Judge) cursorResult(f *wire.Frame, method string, result *obj) {
	if !paginated[method] {
		return
	}
	c := result.get("nextCursor")
	if !c.present() || c.isNull() {
		return
	}
	j.ran(famPagination)
	s, ok := c.str()
	if !ok {
		raise(f, "result-invalid", "the %s result's nextCursor is %s; it must be a string", method, c.kindName())
		return
	}
	if j.pages[method] == nil {
		j.pages[method] = &issuedCursors{set: map[string]bool{}}
	}
	j.pages[method].add(s)
}

// maxCursors bounds the cursors remembered per method: a host that lists
// again and again, for hours, through a tap, is issued new cursors each
// time. Past it the set is forgotten, and from then on no cursor of that
// method is called unknown (one forgotten may be asked for, rightly).
const maxCursors = 4096

// issuedCursors is the set of cursors a method's results issued.
type issuedCursors struct {
	set    map[string]bool
	forgot bool // the set was forgotten once: any cursor may have been issued
}

func (c *issuedCursors) add(s string) {
	if len(c.set) >= maxCursors {
		clear(c.set)
		c.forgot = true
	}
	c.set[s] = true
}

// mayHold reports whether s may have been issued: it was, or the set was
// forgotten since. A nil set (nothing issued yet) holds nothing.
func (c *issuedCursors) mayHold(s string) bool {
	return c != nil && (c.forgot || c.set[s])
}

// place names where in a result a value sits ("content[2].resource.uri"),
// built into a string only when a finding needs it.
type place struct {
	base string
	i    int
	subs [2]string
	n    int
}

// with is the place of a member below this one.
func (p place) with(sub string) place {
	if p.n < len(p.subs) {
		p.subs[p.n] = sub
		p.n++
	}
	return p
}

func (p place) String() string {
	s := p.base + "[" + itoa(p.i) + "]"
	for _, x := range p.subs[:p.n] {
		s += x
	}
	return s
}
