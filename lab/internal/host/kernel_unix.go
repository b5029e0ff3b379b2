//go:build unix

package host

import "golang.org/x/sys/unix"

// kernel is the kernel's release, as uname -r prints it.
func kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "unknown: " + err.Error()
	}
	return unix.ByteSliceToString(u.Release[:])
}
