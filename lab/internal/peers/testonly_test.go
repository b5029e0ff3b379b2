package peers

import "github.com/snowlab/snowlab/lab/subject"

// What only this package's tests call, kept out of the build.

// ByName returns the peer subject called name.
func ByName(name string) (subject.Subject, bool) {
	for _, s := range All() {
		if s.Name == name {
			return s, true
		}
	}
	return subject.Subject{}, false
}
