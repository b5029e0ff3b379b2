// Package plot is the lab's chart house style over gonum.org/v1/plot: the
// page (title across it, the legend in a column beside the data area, axis
// labels centred on it), Liberation Sans throughout, the palette and the
// series lines, log, log₂ and linear axes with readable ticks, and the
// reference lines, whiskers and swatches the lab's charts share. It knows nothing of lab results: the
// suite's charts and the experiments' (internal/report) are drawn
// with it.
package plot
