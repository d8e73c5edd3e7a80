package eventlog

// eventChunk is how many events one chunk of an eventQueue holds.
const eventChunk = 1024

// eventQueue is a FIFO of events stored in fixed-size chunks: appending
// never copies the events already stored (a plain slice copies all of them
// each time it grows, which showed in ingest profiles), and dropping the
// oldest frees whole chunks.
type eventQueue struct {
	chunks [][]Event // every chunk but the last is full
	head   int       // index in chunks[0] of the oldest event
	n      int
}

func (q *eventQueue) len() int { return q.n }

// at returns the i-th oldest event, 0 <= i < len().
func (q *eventQueue) at(i int) *Event {
	i += q.head
	return &q.chunks[i/eventChunk][i%eventChunk]
}

func (q *eventQueue) push(ev Event) {
	if len(q.chunks) == 0 || len(q.chunks[len(q.chunks)-1]) == eventChunk {
		q.chunks = append(q.chunks, make([]Event, 0, eventChunk))
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, ev)
	q.n++
}

// popFront drops the oldest event, zeroing its slot so that its payload can
// be collected.
func (q *eventQueue) popFront() {
	*q.at(0) = Event{}
	q.head++
	q.n--
	if q.head == eventChunk {
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
}

// appendTo appends copies of the events lo <= i < hi to dst.
func (q *eventQueue) appendTo(dst []Event, lo, hi int) []Event {
	for lo < hi {
		i := lo + q.head
		chunk := q.chunks[i/eventChunk]
		off := i % eventChunk
		n := min(hi-lo, len(chunk)-off)
		dst = append(dst, chunk[off:off+n]...)
		lo += n
	}
	return dst
}
