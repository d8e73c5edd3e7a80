package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"strconv"

	"linesman/wire"
)

// val is one JSON value's bytes inside a text that wire already classified
// as a JSON-RPC message, so it is known to be valid JSON. The accessors walk
// the bytes lazily and allocate nothing unless a string needs unescaping:
// most frames are judged by looking at a handful of members, and decoding
// whole messages into maps would cost several times what framing does.
// A nil val is an absent member.
type val []byte

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// parse returns the value of a whole JSON text.
func parse(b []byte) val { return val(trimSpace(b)) }

// Kinds of JSON values, as the first byte tells them.
const (
	kAbsent = iota
	kObject
	kArray
	kString
	kNumber
	kBool
	kNull
)

func (v val) kind() int {
	if len(v) == 0 {
		return kAbsent
	}
	switch v[0] {
	case '{':
		return kObject
	case '[':
		return kArray
	case '"':
		return kString
	case 't', 'f':
		return kBool
	case 'n':
		return kNull
	default:
		return kNumber
	}
}

func (v val) present() bool  { return len(v) > 0 }
func (v val) isObject() bool { return v.kind() == kObject }
func (v val) isArray() bool  { return v.kind() == kArray }
func (v val) isString() bool { return v.kind() == kString }
func (v val) isNull() bool   { return v.kind() == kNull }
func (v val) isNumber() bool { return v.kind() == kNumber }

// kindName is the JSON type's name, for messages.
func (v val) kindName() string { return kindNames[v.kind()] }

// kindNames are the kinds' names, by kind.
var kindNames = [...]string{"absent", "an object", "an array", "a string", "a number", "a boolean", "null"}

// skipValue returns the index just past the value that starts at b[i]
// (whitespace already skipped).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i
			}
			i++
		}
		return i
	}
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	i++
	// Keys, names and short values end within a few words: eight bytes at
	// a time (as wire's scanner does) for them, and IndexByte, which is
	// faster per byte but dearer to enter, once a string runs long.
	for end := min(len(b), i+64) - 8; i <= end; {
		m := quoteOrEscape8(binary.LittleEndian.Uint64(b[i:]))
		if m == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(m) >> 3
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the byte it escapes (an escaped quote among them)
	}
	if i >= len(b) {
		return len(b)
	}
	if len(b)-i < 16 {
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				return i + 1
			case '\\':
				i++
			}
		}
		return len(b)
	}
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		bs := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			bs++
		}
		i++
		if bs%2 == 0 {
			return i
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteOrEscape8 returns a mask whose lowest set bit is the high bit of
// the first byte of v (little-endian) that is a quote or a backslash; 0
// when there is none. A borrow only runs upwards, so each term can have
// false positives only above a true one: the lowest set bit is exact.
func quoteOrEscape8(v uint64) uint64 {
	q := v ^ ('"' * ones)
	e := v ^ ('\\' * ones)
	return (((q - ones) &^ q) | ((e - ones) &^ e)) & highs
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// members calls fn with each member's raw key (with its quotes) and value,
// in order, until fn returns false.
func (v val) members(fn func(key []byte, m val) bool) {
	if v.kind() != kObject {
		return
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		key := b[i:ke]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		ve := skipValue(b, i)
		if !fn(key, val(b[i:ve])) {
			return
		}
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// keyIs reports whether the raw quoted key spells name.
func keyIs(raw []byte, name string) bool {
	if len(raw) == len(name)+2 && string(raw[1:len(raw)-1]) == name {
		return true
	}
	// A key can only decode to name if it starts with name's first byte
	// or with an escape: most keys are told apart here, without a scan.
	if len(raw) < 2 || len(name) == 0 || raw[1] != name[0] && raw[1] != '\\' {
		return false
	}
	// A key spelled with escapes is longer than the name it decodes to.
	if len(raw) <= len(name)+2 || bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	s, ok := val(raw).str()
	return ok && s == name
}

// get returns the member named key, or nil. It stops at the first match:
// a duplicated key is wire's duplicate-key finding already.
func (v val) get(key string) val {
	var out val
	v.members(func(k []byte, m val) bool {
		if keyIs(k, key) {
			out = m
			return false
		}
		return true
	})
	return out
}

// path follows keys through nested objects.
func (v val) path(keys ...string) val {
	for _, k := range keys {
		v = v.get(k)
		if v == nil {
			return nil
		}
	}
	return v
}

// has reports whether the object has the member key.
func (v val) has(key string) bool { return v.get(key) != nil }

// elems calls fn with each element of an array until fn returns false.
func (v val) elems(fn func(i int, e val) bool) {
	if v.kind() != kArray {
		return
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		e := skipValue(b, i)
		if !fn(n, val(b[i:e])) {
			return
		}
		i = skipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

// count is the number of elements of an array or members of an object.
func (v val) count() int {
	n := 0
	if v.isArray() {
		v.elems(func(int, val) bool { n++; return true })
	} else {
		v.members(func([]byte, val) bool { n++; return true })
	}
	return n
}

// str decodes a string value.
func (v val) str() (string, bool) {
	if v.kind() != kString || len(v) < 2 {
		return "", false
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// rawStr is a string's bytes without decoding escapes (enough to check
// characters that are never escaped, such as base64's alphabet), or nil.
func (v val) rawStr() []byte {
	if v.kind() != kString || len(v) < 2 {
		return nil
	}
	return v[1 : len(v)-1]
}

// num decodes a number value.
func (v val) num() (float64, bool) {
	if v.kind() != kNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// isInteger reports whether the value is a number with an integral value.
func (v val) isInteger() bool {
	f, ok := v.num()
	return ok && f == math.Trunc(f)
}

// boolean returns a boolean value; ok is false for any other kind.
func (v val) boolean() (b, ok bool) {
	if v.kind() != kBool {
		return false, false
	}
	return v[0] == 't', true
}

// truthy is true only for the literal true.
func (v val) truthy() bool { b, _ := v.boolean(); return b }

// text is the value as written, shortened for a message.
func (v val) text() string {
	const max = 60
	if len(v) == 0 {
		return "absent"
	}
	if len(v) > max {
		return string(v[:max]) + "…"
	}
	return string(v)
}

// wireID reads a JSON-RPC id value (an integer or a string), or the zero ID.
func (v val) wireID() wire.ID {
	switch v.kind() {
	case kString:
		if s, ok := v.str(); ok {
			return wire.StringID(s)
		}
	case kNumber:
		if f, ok := v.num(); ok && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
			return wire.IntID(int64(f))
		}
	}
	return wire.ID{}
}

// member is one member of an indexed object, as offsets into the object's
// bytes: the raw key (with its quotes) is raw[k:ke] and the value
// raw[v:ve]. Offsets rather than slices keep an index small (a frame's
// judging indexes several objects, and zeroing or copying a large index
// cost more than the scan itself on small frames).
type member struct{ k, ke, v, ve uint32 }

// obj is an object indexed by one pass over its members, so that the
// several members a rule looks at cost one scan of the object, not one
// each. Objects with more members than fit fall back to val.get.
//
// An obj is reused: scan and lazy overwrite only its header, never the
// whole array (members past n are stale and never read), so the judge
// keeps a few in its own struct as scratch space rather than building a
// fresh one per frame.
type obj struct {
	ms   [12]member
	n    int
	full bool // more members than ms holds (or offsets past 4 GiB)
	raw  val
	// src, when set, is the object not indexed yet: lazy defers the scan
	// until a member is first asked for.
	src val
}

// lazy makes o an index that scans v only when first asked.
func (o *obj) lazy(v val) {
	o.n, o.full, o.raw, o.src = 0, false, nil, v
}

func (o *obj) force() {
	if o.src != nil {
		o.scan(o.src)
	}
}

// index builds the member index of an object (an empty one for any other
// value), for the rare paths that need an index of their own.
func index(v val) obj {
	var o obj
	o.scan(v)
	return o
}

// scan indexes the object that starts at v[0] (v may run past its end)
// and returns the object's length: one scan gives both the members and
// the extent. Any other value leaves o empty.
func (o *obj) scan(v val) int { return o.scanWith(v, "", nil) }

// scanWith is scan, except that the value of the member named want is
// handed to walk (running to the end of v) instead of being skipped; walk
// returns its length. So a value that must be walked anyway (a result's
// content array) is scanned once, not once to index and once to walk.
func (o *obj) scanWith(v val, want string, walk func(open val) int) int {
	o.lazy(nil)
	if v.kind() != kObject {
		return 0
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		k := i
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			break
		}
		i = skipSpace(b, i+1)
		var ve int
		if walk != nil && keyIs(b[k:ke], want) {
			ve = i + walk(val(b[i:]))
			walk = nil
		} else {
			ve = skipValue(b, i)
		}
		if o.n < len(o.ms) && ve <= math.MaxUint32 {
			o.ms[o.n] = member{uint32(k), uint32(ke), uint32(i), uint32(ve)}
			o.n++
		} else {
			o.full = true
		}
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i < len(b) && b[i] == '}' {
		i++
	}
	o.raw = val(b[:i])
	return i
}

// fromIndex makes o the index of an object that a classifier indexed in
// text as it classified it (a message's params: see wire.ParamsIndex):
// the index scan would build, the object not read again.
func (o *obj) fromIndex(text []byte, x *wire.ParamsIndex) {
	o.lazy(nil)
	o.raw = val(text[x.Start:x.End])
	o.n, o.full = min(x.N, len(o.ms)), x.Full || x.N > len(o.ms)
	for i, m := range x.Members[:o.n] {
		o.ms[i] = member{m.Key, m.KeyEnd, m.Value, m.ValueEnd}
	}
}

// open returns the member named key of an object without finding where
// the member's value ends: the value runs to the end of v. Only for
// objects and arrays that are then walked (get, members, elems, index),
// never for values whose bytes are compared or copied.
func (v val) open(key string) val {
	if v.kind() != kObject {
		return nil
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		match := keyIs(b[i:ke], key)
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return nil
		}
		i = skipSpace(b, i+1)
		if match {
			return val(b[i:])
		}
		i = skipSpace(b, skipValue(b, i))
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return nil
}

// objects walks an array whose elements are mostly objects, indexing each
// object element in the same scan that delimits it; o is empty for an
// element that is not an object. It returns the array's length (v may run
// past its end), or, for a value that is not an array, that value's. o is
// the caller's scratch space for the index (fn must not keep it).
func (v val) objects(o *obj, fn func(i int, o *obj, el val)) int {
	if v.kind() != kArray {
		return skipValue(v, 0)
	}
	b := []byte(v)
	i := skipSpace(b, 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		var e int
		if b[i] == '{' {
			e = i + o.scan(val(b[i:]))
		} else {
			o.lazy(nil)
			e = skipValue(b, i)
		}
		fn(n, o, val(b[i:e]))
		i = skipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	if i < len(b) {
		i++ // the ]
	}
	return i
}

// get returns the member named key, or nil.
func (o *obj) get(key string) val {
	o.force()
	if o.full {
		return o.raw.get(key)
	}
	for _, m := range o.ms[:o.n] {
		if keyIs(o.raw[m.k:m.ke], key) {
			return o.raw[m.v:m.ve]
		}
	}
	return nil
}

func (o *obj) has(key string) bool { return o.get(key) != nil }

// value is the object o indexes, as a val (for rules written over vals).
func (o *obj) value() val {
	o.force()
	return o.raw
}

// path follows keys from this object through nested ones.
func (o *obj) path(keys ...string) val {
	v := o.get(keys[0])
	if v == nil {
		return nil
	}
	return v.path(keys[1:]...)
}
