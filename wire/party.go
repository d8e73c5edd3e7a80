package wire

// Party is the side a finding holds at fault: the server linesman judges,
// or the host (the client side: a host under a tap, or the host that
// wrote a recorded conversation). linesman itself, as the client of check,
// send and the inspector, is judged by the same rules and must never draw
// a host finding of its own making.
type Party uint8

const (
	// PartyWriter (an entry's default): a finding raised on a frame as it
	// is judged is about what that frame's writer wrote; a finding logged
	// apart from one (a timeout, a request lost in an exit, the process's
	// end) is the server's.
	PartyWriter Party = iota
	// PartyHost: the host rules (Info.Party): always the host's, whatever
	// they point at (a shutdown step, a frame of either side).
	PartyHost
	// PartyServer: always the server's.
	PartyServer
)

// String is the party's name in reports: "host" or "server".
func (p Party) String() string {
	if p == PartyHost {
		return "host"
	}
	return "server"
}

// PartyOf is the party at fault for a finding of code: onFrame says it
// was raised on a frame as that frame was judged, wrote is the frame's
// direction. Every view that sorts findings by party (the text report's
// host section, the JSON report's "party") asks it, so the rule is one.
func PartyOf(code string, wrote Dir, onFrame bool) Party {
	if i, ok := Lookup(code); ok && i.Party != PartyWriter {
		return i.Party
	}
	if onFrame && wrote == ClientToServer {
		return PartyHost
	}
	return PartyServer
}
