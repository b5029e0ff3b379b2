package lab

import (
	"encoding/json"
	"os"
)

// writeJSON writes v as indented JSON to path, through a temporary file
// renamed into place so that a crash never leaves half a result.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
