package rollout

import (
	"strconv"
	"strings"
)

// WaveSizes turns waves into cumulative counts of n Gateways: a count as written, a
// percentage of n rounded up; never 0, never fewer than the wave before, at most n, and
// the last wave always takes all n. An entry that is neither (the API refuses those)
// adds no Gateway. No Gateways, no waves.
func WaveSizes(n int, waves []string) []int {
	if n == 0 || len(waves) == 0 {
		return nil
	}
	sizes := make([]int, len(waves))
	prev := 1
	for i, wave := range waves {
		size := max(prev, min(waveSize(n, wave), n))
		sizes[i], prev = size, size
	}
	sizes[len(sizes)-1] = n
	return sizes
}

// waveSize is wave's count of n Gateways, 0 when wave does not parse.
func waveSize(n int, wave string) int {
	if percent, ok := strings.CutSuffix(wave, "%"); ok {
		p, err := strconv.Atoi(percent)
		if err != nil || p < 0 {
			return 0
		}
		return (n*p + 99) / 100
	}
	count, err := strconv.Atoi(wave)
	if err != nil || count < 0 {
		return 0
	}
	return count
}
