package units

import (
	"math"
	"strconv"
	"strings"
)

// Ns formats a duration in nanoseconds to three significant digits with a
// unit, trailing zeros dropped: 243ns, 1.2µs, 12.3ms, 4s; "—" for NaN or
// an infinity.
func Ns(ns float64) string { return NsDigits(ns, 3) }

// NsDigits is Ns to sig significant digits.
func NsDigits(ns float64, sig int) string {
	return scaled(ns, sig, true, []string{"ns", "µs", "ms", "s"})
}

// SignedNs is Ns with a + on positive values, for leads.
func SignedNs(ns float64) string {
	if ns > 0 {
		return "+" + Ns(ns)
	}
	return Ns(ns)
}

// Ms formats nanoseconds as milliseconds to three significant digits
// without a unit, as Count: 2.41, 0.0512, 130.
func Ms(ns float64) string { return Count(ns / 1e6) }

// Rate formats a rate per second to three significant digits with an SI
// prefix, trailing zeros kept so columns line up: 4.10M/s, 950/s.
func Rate(perSec float64) string { return SI(perSec, 3, false) + "/s" }

// SI writes v with an SI prefix (k, M, G, T) to sig significant digits,
// trimming trailing zeros when trim is set: SI(2.5e3, 3, true) is "2.5k".
func SI(v float64, sig int, trim bool) string {
	return scaled(v, sig, trim, []string{"", "k", "M", "G", "T"})
}

// scaled writes v in the largest of units (each 1000 times the one
// before) it reaches, to sig significant digits, trailing zeros trimmed
// when trim is set; "—" for NaN or an infinity.
func scaled(v float64, sig int, trim bool, units []string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	if v == 0 {
		return "0"
	}
	i := 0
	for i+1 < len(units) && v >= math.Pow(1000, float64(i+1)) {
		i++
	}
	f := func(i int) string {
		if trim {
			return TrimSig(v/math.Pow(1000, float64(i)), sig)
		}
		return SigFig(v/math.Pow(1000, float64(i)), sig)
	}
	s := f(i)
	// Rounding can carry into the next unit: 999.7ns is 1µs.
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 1000 && i+1 < len(units) {
		i++
		s = f(i)
	}
	return sign + s + units[i]
}

// SigFig formats v to sig significant digits in plain decimal notation,
// keeping trailing zeros: SigFig(4.096, 3) is "4.10", SigFig(1234, 3) is
// "1234" (integer digits are never dropped).
func SigFig(v float64, sig int) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	dec := max(sig-1-mag, 0)
	s := strconv.FormatFloat(v, 'f', dec, 64)
	// Rounding up can add a digit (9.996 -> "10.00"): drop one decimal.
	if r, _ := strconv.ParseFloat(s, 64); dec > 0 && math.Abs(r) >= math.Pow10(mag+1) {
		s = strconv.FormatFloat(v, 'f', dec-1, 64)
	}
	return s
}

// TrimSig is SigFig without trailing zeros: TrimSig(4.10, 3) is "4.1".
func TrimSig(v float64, sig int) string {
	s := SigFig(v, sig)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Count formats a count or ratio to three significant digits: 0.0123,
// 2.5, 1234; "—" for NaN.
func Count(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return TrimSig(v, 3)
}

// Bytes formats a size in bytes with binary prefixes: 64 B, 48 KiB,
// 2 MiB; "?" when unknown (0 or less).
func Bytes(n int64) string {
	if n <= 0 {
		return "?"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(n)
	i := 0
	for i+1 < len(units) && v >= 1024 {
		v /= 1024
		i++
	}
	return TrimSig(v, 3) + " " + units[i]
}

// Thousands writes n with comma separators: 20,000.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
