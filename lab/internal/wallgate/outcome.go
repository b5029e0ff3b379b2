package wallgate

import (
	"encoding/json"
	"io"
	"math"

	"github.com/snowlab/snowlab/lab/internal/md"
)

// Write prints the pooled decision (Report.Write), how many runs it
// pooled, the confirmation run's failures where there was one, and the
// outcome.
func (o Outcome) Write(w io.Writer) error {
	if err := o.Report.Write(w); err != nil {
		return err
	}
	ew := md.NewWriter(w)
	ew.Printf("runs pooled: %d (more while a ratio was UNKNOWN and its loss at least half the minimum effect, at most %d more)\n", o.Rounds, DefaultMoreRounds)
	if o.Confirm != nil {
		ew.Printf("confirmation run: %d ratio(s) DIFFERENT and worse", len(o.Confirm.Failed()))
		for _, r := range o.Confirm.Failed() {
			ew.Printf("; %s (loss %+.1f%%)", r.Name, 100*r.Loss)
		}
		ew.Printf("\n")
	}
	if err := o.Err(); err != nil {
		ew.Printf("check: FAIL (%v)\n", err)
	} else if o.Confirm != nil {
		ew.Printf("check: PASS (%v)\n", ErrNotConfirmed)
	} else {
		ew.Printf("check: PASS\n")
	}
	return ew.Err()
}

// jsonRow is a Row for JSON: figures NaN where no test could run are
// null.
type jsonRow struct {
	Name       string   `json:"name"`
	Contention bool     `json:"contention,omitempty"`
	Base       *float64 `json:"base"`
	New        *float64 `json:"new"`
	NBase      int      `json:"n_base"`
	NNew       int      `json:"n_new"`
	Loss       *float64 `json:"loss"`
	LossLo     *float64 `json:"loss_lo"`
	LossHi     *float64 `json:"loss_hi"`
	PHolm      *float64 `json:"p_holm"`
	Decision   Decision `json:"decision"`
	Worse      bool     `json:"worse,omitempty"`
	Why        string   `json:"why,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func jsonRows(rows []Row) []jsonRow {
	out := make([]jsonRow, len(rows))
	for i, r := range rows {
		out[i] = jsonRow{Name: r.Name, Contention: r.Contention, Base: finite(r.Base), New: finite(r.New),
			NBase: r.NBase, NNew: r.NNew, Loss: finite(r.Loss), LossLo: finite(r.LossLo), LossHi: finite(r.LossHi),
			PHolm: finite(r.PHolm), Decision: r.Decision, Worse: r.Worse, Why: r.Why}
	}
	return out
}

// WriteJSON writes the outcome as one JSON object: pass, the runs pooled,
// the thresholds, every row, and the confirmation run's rows where there
// was one.
func (o Outcome) WriteJSON(w io.Writer) error {
	v := struct {
		Pass                bool      `json:"pass"`
		Error               string    `json:"error,omitempty"`
		Rounds              int       `json:"rounds"`
		Alpha               float64   `json:"alpha"`
		MinEffect           float64   `json:"min_effect"`
		BaseCommit          string    `json:"base_commit"`
		NewCommit           string    `json:"new_commit"`
		Rows                []jsonRow `json:"rows"`
		Confirm             []jsonRow `json:"confirm,omitempty"`
		CorrectnessFailures []string  `json:"correctness_failures,omitempty"`
	}{Pass: o.Err() == nil, Rounds: o.Rounds, Alpha: o.Alpha, MinEffect: o.MinEffect,
		BaseCommit: o.BaseCommit, NewCommit: o.NewCommit, Rows: jsonRows(o.Rows), CorrectnessFailures: o.CorrectnessFailures}
	if err := o.Err(); err != nil {
		v.Error = err.Error()
	}
	if o.Confirm != nil {
		v.Confirm = jsonRows(o.Confirm.Rows)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
