package host

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCPUList reads a CPU list: comma-separated numbers and ranges, as
// taskset -c and the kernel's /sys/devices/system/cpu/online write them
// ("0,2-3"). Each CPU appears once in the result, in the order first
// named.
func ParseCPUList(spec string) ([]int, error) {
	var cpus []int
	seen := map[int]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || a < 0 || b < a || b-a >= 1<<16 {
			return nil, fmt.Errorf("%q is not a CPU number or range (want e.g. 0,1 or 0-3)", part)
		}
		for c := a; c <= b; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	return cpus, nil
}
