package wire

// ParamsIndex locates the members of a message's params object in the
// text it was classified from, as the classifier's one pass found them: a
// judge that looks members up by name reads them from here instead of
// scanning params again. Offsets are bytes: the object is
// text[Start:End], and each member's raw key (with its quotes) and value
// are at Start plus its offsets.
type ParamsIndex struct {
	Start, End uint32
	Members    [ParamsIndexed]ParamsMember // the first N members, in order
	N          int
	Full       bool // the object has more members than Members holds
	frame      *Frame
}

// ParamsIndexed is how many members a ParamsIndex locates.
const ParamsIndexed = 12

// ParamsMember is one member of an indexed params object: its raw key
// (quotes included) is at [Key, KeyEnd) and its value at [Value, ValueEnd),
// from the object's first byte.
type ParamsMember struct{ Key, KeyEnd, Value, ValueEnd uint32 }

// Params returns the index of the params of fr, the frame Next returned
// last, when the classifier made one: fr is one line, not truncated, a
// request or notification whose only params member is an object. It is
// valid until the next call to Next; nil otherwise (and for a line past
// 4 GiB: the offsets are 32 bits).
func (f *Framer) Params(fr *Frame) *ParamsIndex {
	if fr == nil || f.params.frame != fr {
		return nil
	}
	return &f.params
}

// indexer records the members of the params object being scanned, when
// the classification was given an index to fill (see classify).
type indexer struct {
	x      *ParamsIndex
	open   int // where the object starts in the scanned text
	off    int // where the scanned text starts in the classified text (after a BOM)
	seen   int // params members met at the top level (counted by paramsMember)
	filled bool
}

// start begins the index of a params object at s.s[at].
func (ix *indexer) start(at int) {
	if ix.x == nil {
		return
	}
	ix.open, ix.filled = at, false
	ix.x.N, ix.x.Full = 0, false
}

// member records a member whose key's quotes are at k and ke-1 and whose
// value is at [v, ve).
func (ix *indexer) member(k, ke, v, ve int) {
	x := ix.x
	if x == nil {
		return
	}
	if x.N == len(x.Members) {
		x.Full = true
		return
	}
	o := ix.open
	x.Members[x.N] = ParamsMember{uint32(k - o), uint32(ke - o), uint32(v - o), uint32(ve - o)}
	x.N++
}

// end closes the index of the object that ended at s.s[end-1].
func (ix *indexer) end(end int) {
	if ix.x == nil {
		return
	}
	ix.x.Start, ix.x.End = uint32(ix.off+ix.open), uint32(ix.off+end)
	ix.filled = true
}

// usable reports whether the index describes the message's one params object.
func (ix *indexer) usable() bool { return ix.x != nil && ix.filled && ix.seen == 1 }
