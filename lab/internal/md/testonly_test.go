package md

import "io"

// What only this package's tests call, kept out of the build.

// text writes s as it is.
func (e *Writer) text(s string) { io.WriteString(e, s) }
