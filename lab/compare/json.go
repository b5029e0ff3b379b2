package compare

import (
	"encoding/json"
	"io"
	"math"
)

// number is a figure of a comparison: a float64 that JSON, which has no
// NaN, holds as null where it is NaN or infinite (a side that lacks the
// ratio, a test that was not run).
type number float64

// MarshalJSON writes n, null where it is NaN or infinite.
func (n number) MarshalJSON() ([]byte, error) {
	if f := float64(n); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// WriteJSON writes the comparison as one JSON object: the hosts, every row
// with both sides' median and interval (which kind, and its confidence),
// the change, p and the outcome
// ("~", "better", "worse", "too few samples", "no samples"), and the count
// of significant regressions.
func (c Comparison) WriteJSON(w io.Writer) error {
	type plain Comparison
	v := struct {
		plain
		Regressions int   `json:"regressions"`
		Rows        []Row `json:"rows"` // [], never null
	}{plain(c), len(c.Regressions()), append([]Row{}, c.Rows...)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
