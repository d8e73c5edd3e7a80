//go:build unix && !linux

package run

// pollReadHangUp: only Linux reports a socket's half close apart; a pipe's
// POLLHUP is what is left.
const pollReadHangUp = 0
