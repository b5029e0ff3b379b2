package storetest

import (
	"strings"
	"testing"
)

// ExpiresHolder reports whether the suite's case running in t (the t
// Run's open function is given) waits for a holder's ids to expire:
// Crash (done by Config.Expire when Config.Crash is nil), Expiry and
// Zombie. A store whose holds expire after a TTL can give those cases a
// short one, so that they are quick, and every other case one that no
// loaded machine outlasts: their holders must keep their ids throughout.
// (With a 2 s TTL for every case, a renewal held up by a loaded machine
// let a claim expire in the middle of Contention, and the next contender
// took its id: "handed to two at once".)
func ExpiresHolder(t *testing.T) bool {
	name := t.Name()
	switch name[strings.LastIndexByte(name, '/')+1:] {
	case "Crash", "Expiry", "Zombie":
		return true
	}
	return false
}
