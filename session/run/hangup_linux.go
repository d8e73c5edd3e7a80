package run

import "golang.org/x/sys/unix"

// pollReadHangUp is the peer's shutdown of a socket for writing.
const pollReadHangUp = unix.POLLRDHUP
