package compare

import (
	"encoding/json"
	"io"
	"math"

	"github.com/snowlab/snowlab/lab/result"
)

// The JSON forms of a Comparison and a GateReport, for CI tools: every
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
	return encode(w, out)
}

type jsonGateRow struct {
	Name          string `json:"name"`
	LowerIsBetter bool   `json:"lower_is_better"`
	Base          number `json:"base"`
	New           number `json:"new"`
	ChangePct     number `json:"change_pct"`
	P             number `json:"p"`
	NBase         int    `json:"n_base"`
	NNew          int    `json:"n_new"`
	Gated         bool   `json:"gated"`
	Why           string `json:"why_not_gated,omitempty"`
	Fail          bool   `json:"fail"`
	Verdict       string `json:"verdict"`
	Significance  bool   `json:"significance_used"`
	MissingInBase bool   `json:"missing_in_base,omitempty"`
	MissingInNew  bool   `json:"missing_in_new,omitempty"`
}

type jsonGate struct {
	Pass                bool          `json:"pass"`
	Error               string        `json:"error,omitempty"`
	Tolerance           float64       `json:"tolerance"`
	Alpha               float64       `json:"alpha"`
	BaseCommit          string        `json:"base_commit"`
	NewCommit           string        `json:"new_commit"`
	BaseHost            result.Host   `json:"base_host"`
	NewHost             result.Host   `json:"new_host"`
	HostNote            string        `json:"host_note,omitempty"`
	LoadNote            string        `json:"load_note,omitempty"`
	Compared            int           `json:"compared"`
	Failed              []string      `json:"failed"`
	Rows                []jsonGateRow `json:"rows"`
	CorrectnessFailures []string      `json:"correctness_failures"`
}

// WriteJSON writes the gate's finding as one JSON object: pass, why not,
// and every ratio with base, new, change, p and verdict.
func (g GateReport) WriteJSON(w io.Writer) error {
	out := jsonGate{
		Pass: g.OK(), Tolerance: g.Tolerance, Alpha: g.Alpha,
		BaseCommit: g.BaseCommit, NewCommit: g.NewCommit, BaseHost: g.BaseHost, NewHost: g.NewHost,
		HostNote: g.HostNote, LoadNote: g.LoadNote, Compared: g.Compared(), Failed: g.Failed(), Rows: []jsonGateRow{},
		CorrectnessFailures: g.CorrectnessFailures,
	}
	if err := g.Err(); err != nil {
		out.Error = err.Error()
	}
	if out.Failed == nil {
		out.Failed = []string{}
	}
	if out.CorrectnessFailures == nil {
		out.CorrectnessFailures = []string{}
	}
	for _, r := range g.Rows {
		out.Rows = append(out.Rows, jsonGateRow{
			Name: r.Name, LowerIsBetter: r.LowerIsBetter, Base: number(r.Base), New: number(r.New), ChangePct: number(r.Change), P: number(r.P),
			NBase: r.NBase, NNew: r.NNew, Gated: !r.Informational && r.HasBase && r.HasNew, Why: r.Why,
			Fail: r.Fail, Verdict: r.Verdict, Significance: r.SignificanceUsed,
			MissingInBase: !r.HasBase, MissingInNew: !r.HasNew,
		})
	}
	return encode(w, out)
}

func encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
