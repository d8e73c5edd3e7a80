// Package wire turns the bytes of an MCP stdio stream into frames and back.
//
// It is pure: an io.Reader in, frames out. It starts no goroutines, runs no
// processes and knows nothing of the UI. Everything here keeps the exact bytes
// that crossed the wire: a Frame's raw bytes, concatenated in order, give back
// the input exactly (an oversize line keeps only its first Options.MaxFrame
// bytes, and records its real length). Classification is done in one pass
// over those bytes by a hand-written scanner (no decoding into maps) and
// never "fixes" them; what is wrong is reported as findings whose codes are
// described in the registry (see Lookup and Codes).
//
// The pieces: Splitter (bytes to physical lines), Framer (lines to
// classified logical frames, reassembling pretty-printed JSON), Classify (one
// JSON text to a Message and findings), Marshal (a value to one compact
// line), and the registry. `go test -bench . ./wire` measures them against
// encoding/json over a realistic stream (BenchmarkStreamRatios).
package wire

import (
	"strconv"
	"unsafe"
)

// Terminator is how a physical line ended on the wire.
type Terminator uint8

const (
	// TermNone: the stream ended (EOF) without a line terminator.
	TermNone Terminator = iota
	// TermLF: the line ended with "\n", as MCP stdio requires.
	TermLF
	// TermCRLF: the line ended with "\r\n".
	TermCRLF
)

// String returns "none", "\\n" or "\\r\\n" as seen on screen.
func (t Terminator) String() string {
	switch t {
	case TermLF:
		return `\n`
	case TermCRLF:
		return `\r\n`
	default:
		return "none"
	}
}

// Bytes returns the terminator's bytes.
func (t Terminator) Bytes() []byte {
	switch t {
	case TermLF:
		return []byte{'\n'}
	case TermCRLF:
		return []byte{'\r', '\n'}
	default:
		return nil
	}
}

// Line is one physical line as read from the stream.
//
// Content holds the line's bytes without the terminator. When the line was
// longer than the splitter's maximum, Content holds only the first bytes,
// Truncated is set, and Length still counts every byte the line really had.
type Line struct {
	Content   []byte
	Length    int64 // real length of the content in bytes, including what was truncated
	Term      Terminator
	Truncated bool
}

// Dir is the direction a frame travelled.
type Dir uint8

const (
	// ClientToServer: written by linesman (the client) to the server's stdin.
	ClientToServer Dir = iota + 1
	// ServerToClient: read from the server's stdout.
	ServerToClient
)

// String returns "c2s" or "s2c" (the spelling of the JSON report).
func (d Dir) String() string {
	switch d {
	case ClientToServer:
		return "c2s"
	case ServerToClient:
		return "s2c"
	default:
		return "?"
	}
}

// Kind is what a logical frame turned out to be.
type Kind uint8

const (
	KindNonJSON      Kind = iota // not JSON at all (or never completed a value)
	KindRequest                  // has "method" and "id"
	KindNotification             // has "method", no "id"
	KindResult                   // has "id" and "result"
	KindError                    // has "id" and "error"
	KindInvalid                  // JSON, but not a valid JSON-RPC 2.0 message (includes batches)
)

// String returns the kind's spelling in the JSON report.
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result"
	case KindError:
		return "error"
	case KindInvalid:
		return "invalid"
	default:
		return "non-json"
	}
}

// IsResponse reports whether the kind answers a request (result or error).
func (k Kind) IsResponse() bool { return k == KindResult || k == KindError }

// IDKind says what an ID holds.
type IDKind uint8

const (
	IDAbsent IDKind = iota // no "id" member
	IDNull                 // "id": null
	IDInt                  // an integral number (1, 1.0 and 1e0 all hold 1)
	IDString               // a string
	IDOther                // a non-integral number, or a value of another type; Str holds its JSON spelling
)

// ID is a JSON-RPC request id. It is comparable, so it can be a map key, and
// the integer 2 and the string "2" are different IDs.
type ID struct {
	Kind IDKind
	Num  int64  // when Kind == IDInt
	Str  string // when Kind == IDString (the decoded string) or IDOther (the raw JSON)
}

// IntID returns the integer id n.
func IntID(n int64) ID { return ID{Kind: IDInt, Num: n} }

// StringID returns the string id s.
func StringID(s string) ID { return ID{Kind: IDString, Str: s} }

// IsValid reports whether the ID can identify a request (an integer or string;
// a non-integral number is tolerated by JSON-RPC but flagged elsewhere).
func (id ID) IsValid() bool { return id.Kind == IDInt || id.Kind == IDString || id.Kind == IDOther }

// String renders the id as JSON would: 2, "2", null, or "" when absent.
func (id ID) String() string {
	switch id.Kind {
	case IDInt:
		return strconv.FormatInt(id.Num, 10)
	case IDString:
		return strconv.Quote(id.Str)
	case IDNull:
		return "null"
	case IDOther:
		return id.Str
	default:
		return ""
	}
}

// Message is the one-pass classification of a logical frame's JSON text.
// Fields that the frame does not have are zero. What few messages carry (a
// progress notification's members, a cancellation's request id, an error's
// code and message, why a text is invalid) is read through methods and
// kept apart (rare), so that the message every frame keeps, while the log
// keeps the frame, is 96 bytes rather than 272. Compare messages with
// [Message.Equal], not ==.
type Message struct {
	_    [0]func() // not comparable: see Equal
	Kind Kind
	// HasResultType says result.resultType is present (ResultType is its
	// value when it is a string).
	HasResultType bool
	// printable: the text is one JSON value of printable ASCII alone (see
	// PrintableASCII).
	printable bool
	ID        ID
	// IDRaw is the id exactly as spelled on the wire (e.g. `1.0`, `1e0`, `"7"`).
	IDRaw  string
	Method string
	// ResultType is result.resultType when present (2026-07-28 era).
	ResultType string
	rare       *rareMembers // nil when the message has none of them
}

// rareMembers are the members of a Message that few messages have.
type rareMembers struct {
	progressToken   ID
	progress, total float64
	hasTotal        bool
	progressMessage string
	requestID       ID
	errorCode       int64
	errorMessage    string
	invalid         string
	deepID          ID
}

// noRare is what a message without rare members reads.
var noRare rareMembers

func (m *Message) r() *rareMembers {
	if m.rare == nil {
		return &noRare
	}
	return m.rare
}

// set returns the rare members to write, made on first use.
func (m *Message) set() *rareMembers {
	if m.rare == nil {
		m.rare = new(rareMembers)
	}
	return m.rare
}

// ProgressToken is params._meta.progressToken on a request, or
// params.progressToken on notifications/progress.
func (m *Message) ProgressToken() ID { return m.r().progressToken }

// Progress is params.progress of a notifications/progress notification.
func (m *Message) Progress() float64 { return m.r().progress }

// Total is params.total of a notifications/progress notification.
func (m *Message) Total() float64 { return m.r().total }

// HasTotal says a notifications/progress notification has a numeric params.total.
func (m *Message) HasTotal() bool { return m.r().hasTotal }

// ProgressMessage is params.message of a notifications/progress notification.
func (m *Message) ProgressMessage() string { return m.r().progressMessage }

// RequestID is params.requestId on notifications/cancelled.
func (m *Message) RequestID() ID { return m.r().requestID }

// ErrorCode is error.code of an error response.
func (m *Message) ErrorCode() int64 { return m.r().errorCode }

// ErrorMessage is error.message of an error response.
func (m *Message) ErrorMessage() string { return m.r().errorMessage }

// Invalid explains, for KindInvalid, what is wrong (e.g. `"jsonrpc" must be "2.0"`).
func (m *Message) Invalid() string { return m.r().invalid }

// DeepID is, for a KindNonJSON text nested deeper than the scanner's
// limit, the top-level "id" read before the limit was reached (IDAbsent
// when none came first): a client waiting for that answer learns at once
// that it came and cannot be read, instead of waiting out its timeout.
// Kind stays KindNonJSON, and ID stays absent: the text is no message, and
// nothing pairs it.
func (m *Message) DeepID() ID { return m.r().deepID }

// Equal reports whether m and o classify a text alike.
func (m *Message) Equal(o *Message) bool {
	return m.Kind == o.Kind && m.HasResultType == o.HasResultType && m.ID == o.ID && m.IDRaw == o.IDRaw &&
		m.Method == o.Method && m.ResultType == o.ResultType && *m.r() == *o.r()
}

// PrintableASCII reports that the classification of the message's text
// found it to be exactly one JSON value (whitespace around it included)
// whose every byte is printable ASCII, 0x20 to 0x7e: no tab or line end
// between its tokens, no DEL, nothing above ASCII in its strings, no byte
// order mark. It is true only of a message classified from the text
// itself, whole ([Classify], a Framer's frame of one line, [PrepareValue]),
// and says nothing when false: the text was not scanned so, or holds other
// bytes. [Message.Equal] does not compare it: it is of the text, not of
// the message.
func (m *Message) PrintableASCII() bool { return m.printable }

// KeptSize is what a message keeps beyond its own struct: the strings it
// holds and its rare members. (Strings a classification shares, such as
// the method names it knows, are counted all the same: on the high side.)
func (m *Message) KeptSize() int {
	n := len(m.IDRaw) + len(m.Method) + len(m.ResultType) + len(m.ID.Str)
	if r := m.rare; r != nil {
		n += int(unsafe.Sizeof(*r)) + len(r.progressMessage) + len(r.errorMessage) + len(r.invalid) +
			len(r.progressToken.Str) + len(r.requestID.Str) + len(r.deepID.Str)
	}
	return n
}

// Severity orders findings: Error is the worst.
type Severity uint8

const (
	SeverityNote Severity = iota + 1
	SeverityWarning
	SeverityError
)

// String returns "note", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityNote:
		return "note"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	default:
		return "unknown"
	}
}

// Finding is one problem spotted on a frame or in a session. Code is a stable
// kebab-case code from the registry; Severity is usually the registry's, but
// a few codes depend on the protocol era (e.g. reused-id); Message says what
// exactly was seen, in one line.
type Finding struct {
	Code     string
	Severity Severity
	Message  string
}

// Frame is one logical frame: usually one physical line, several when a
// pretty-printed JSON value was spread over lines (finding multi-line-frame).
type Frame struct {
	Lines    []Line
	Msg      Message
	Findings []Finding
}

// Raw returns the frame's exact bytes as they crossed the wire (possibly
// truncated when a line was oversize): every line's content and terminator.
func (f *Frame) Raw() []byte {
	n := 0
	for _, l := range f.Lines {
		n += len(l.Content) + 2
	}
	out := make([]byte, 0, n)
	for _, l := range f.Lines {
		out = append(out, l.Content...)
		out = append(out, l.Term.Bytes()...)
	}
	return out
}

// Size returns the number of bytes the frame really had on the wire,
// terminators included, counting truncated bytes too.
func (f *Frame) Size() int64 {
	var n int64
	for _, l := range f.Lines {
		n += l.Length + int64(len(l.Term.Bytes()))
	}
	return n
}

// Truncated reports whether any of the frame's lines was cut at the maximum
// frame size, so that Raw holds only part of what crossed the wire.
func (f *Frame) Truncated() bool {
	for _, l := range f.Lines {
		if l.Truncated {
			return true
		}
	}
	return false
}

// Has reports whether the frame carries a finding with the given code.
func (f *Frame) Has(code string) bool {
	for _, x := range f.Findings {
		if x.Code == code {
			return true
		}
	}
	return false
}

// DefaultMaxFrame is the longest line kept whole when Options.MaxFrame is 0.
// MCP results (a base64 image, a large file) are often megabytes long, so
// the limit is generous; it only exists so that a runaway stream cannot
// exhaust memory.
const DefaultMaxFrame = 16 << 20

// DefaultMaxPendingLines bounds multi-line reassembly when
// Options.MaxPendingLines is 0.
const DefaultMaxPendingLines = 10000

// Options configures a Framer.
type Options struct {
	MaxFrame        int // longest line kept whole (0 = DefaultMaxFrame); longer: truncated + oversize-frame
	MaxPendingLines int // multi-line reassembly bound in lines (0 = DefaultMaxPendingLines)
	MaxPendingBytes int // multi-line reassembly bound in bytes (0 = MaxFrame)
}

func (o Options) withDefaults() Options {
	if o.MaxFrame <= 0 {
		o.MaxFrame = DefaultMaxFrame
	}
	if o.MaxPendingLines <= 0 {
		o.MaxPendingLines = DefaultMaxPendingLines
	}
	if o.MaxPendingBytes <= 0 {
		o.MaxPendingBytes = o.MaxFrame
	}
	return o
}
