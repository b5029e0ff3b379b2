package compare

import (
	"encoding/json"
	"io"
	"math"

	"github.com/snowlab/snowlab/lab/result"
)

// The JSON form of a Comparison, for CI tools: every
// figure that is NaN or infinite in the Go value (a side that lacks the
// ratio, a test that was not run) is null here, as JSON has no NaN.

// number is a float64 that marshals NaN and ±Inf as null.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	if f := float64(n); math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

type jsonStat struct {
	Center     number `json:"center"`
	Lo         number `json:"lo"`
	Hi         number `json:"hi"`
	N          int    `json:"n"`
	Interval   string `json:"interval"`   // "median CI", "range" or "none" (Interval)
	Confidence number `json:"confidence"` // that lo..hi holds the median; 0 for none
}

type jsonRow struct {
	Metric         string   `json:"metric"`
	Name           string   `json:"name"`
	Unit           string   `json:"unit"`
	HigherIsBetter bool     `json:"higher_is_better"`
	Old            jsonStat `json:"old"`
	New            jsonStat `json:"new"`
	ChangePct      number   `json:"change_pct"`
	P              number   `json:"p"`
	Outcome        string   `json:"outcome"`
	Verdict        string   `json:"verdict"`
}

type jsonComparison struct {
	OldCommit   string      `json:"old_commit"`
	NewCommit   string      `json:"new_commit"`
	OldHost     result.Host `json:"old_host"`
	NewHost     result.Host `json:"new_host"`
	HostsDiffer bool        `json:"hosts_differ"`
	HostNote    string      `json:"host_note,omitempty"`
	LoadNote    string      `json:"load_note,omitempty"`
	Alpha       float64     `json:"alpha"`
	Regressions int         `json:"regressions"`
	Rows        []jsonRow   `json:"rows"`
	OnlyOld     []string    `json:"only_old,omitempty"`
	OnlyNew     []string    `json:"only_new,omitempty"`
}

// WriteJSON writes the comparison as one JSON object: the hosts, every row
// with both sides' median and interval (which kind, and its confidence),
// the change, p and the outcome
// ("~", "better", "worse", "too few samples", "no samples"), and the count
// of significant regressions.
func (c Comparison) WriteJSON(w io.Writer) error {
	out := jsonComparison{
		OldCommit: c.OldCommit, NewCommit: c.NewCommit, OldHost: c.OldHost, NewHost: c.NewHost,
		HostsDiffer: c.HostsDiffer, HostNote: c.HostNote, LoadNote: c.LoadNote, Alpha: c.Alpha,
		Regressions: len(c.Regressions()), Rows: []jsonRow{}, OnlyOld: c.OnlyOld, OnlyNew: c.OnlyNew,
	}
	stat := func(s Stat) jsonStat {
		return jsonStat{number(s.Center), number(s.Lo), number(s.Hi), s.N, s.Interval.String(), number(s.Confidence)}
	}
	for _, r := range c.Rows {
		out.Rows = append(out.Rows, jsonRow{
			Metric: r.Metric, Name: r.Name, Unit: r.Unit, HigherIsBetter: r.HigherIsBetter,
			Old: stat(r.Old), New: stat(r.New), ChangePct: number(r.Change), P: number(r.P),
			Outcome: r.Outcome.String(), Verdict: r.Verdict,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
