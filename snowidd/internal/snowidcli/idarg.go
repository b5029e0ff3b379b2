package snowidcli

import (
	"flag"
	"fmt"
)

// idFormsHelp is what the help of decode and mask says about writing an
// ID, as idtext.Parse reads it.
const idFormsHelp = `An ID is decimal (141264821508263936), 13 characters of Crockford base32
(03XEZKD8M4M00, decode's base32), or either after a prefix: dec:DIGITS, or
b32: and 1 to 13 base32 characters (leading zeros may be dropped). 13 digits
that are two different IDs, decimal and base32 (0312345678901), are refused:
write dec:0312345678901 or b32:0312345678901.
`

// parseIDArgs parses the flags and ID arguments of a command that reads
// IDs as idtext.Parse does (decode, mask): its help explains how to write
// one, and a command line with none is a usage error.
func parseIDArgs(fs *flag.FlagSet, args []string) (ids []string, code int, ok bool) {
	addNote(fs, idFormsHelp)
	ids, code, ok = parse(fs, args)
	if ok && len(ids) == 0 {
		return nil, usageError(fs, "no IDs given"), false
	}
	return ids, code, ok
}

// addNote has fs's usage end with note, after the flags and a blank line.
func addNote(fs *flag.FlagSet, note string) {
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(fs.Output(), "\n"+note)
	}
}
