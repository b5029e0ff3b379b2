package lab

import (
	"encoding/json"
	"fmt"
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

// ReadJSONFile reads the JSON file at path into v; what names the kind of
// file expected in the error when it does not parse.
func ReadJSONFile(path, what string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: not %s: %w", path, what, err)
	}
	return nil
}
