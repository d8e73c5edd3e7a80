package session

import "testing"

// TestWithArticle: finding messages read "an initialize request", not "a
// initialize request".
func TestWithArticle(t *testing.T) {
	for method, want := range map[string]string{
		"initialize":             "an initialize",
		"elicitation/create":     "an elicitation/create",
		"ping":                   "a ping",
		"sampling/createMessage": "a sampling/createMessage",
		"":                       "a ",
	} {
		if got := withArticle(method); got != want {
			t.Errorf("withArticle(%q) = %q, want %q", method, got, want)
		}
	}
}
