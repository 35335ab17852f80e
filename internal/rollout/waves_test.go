package rollout

import (
	"reflect"
	"testing"
)

func TestWaveSizes(t *testing.T) {
	cases := []struct {
		name  string
		n     int
		waves []string
		want  []int
	}{
		{"ten Gateways in the default waves take 1, 1, 5 and 10", 10, DefaultWaves, []int{1, 1, 5, 10}},
		{"one Gateway is every wave", 1, DefaultWaves, []int{1, 1, 1, 1}},
		{"a thousand Gateways round nothing", 1000, DefaultWaves, []int{1, 100, 500, 1000}},
		{"a percentage rounds up", 7, []string{"10%", "50%", "100%"}, []int{1, 4, 7}},
		{"a count above the fleet is capped at it", 3, []string{"5", "100%"}, []int{3, 3}},
		{"a count after a larger percentage does not shrink the wave", 100, []string{"50%", "10", "100%"}, []int{50, 50, 100}},
		{"the last wave takes everyone whatever it says", 10, []string{"1", "2"}, []int{1, 10}},
		{"an entry that does not parse adds nobody", 10, []string{"1", "x%", "100%"}, []int{1, 1, 10}},
		{"no Gateways make no waves", 0, DefaultWaves, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := WaveSizes(c.n, c.waves); !reflect.DeepEqual(got, c.want) {
				t.Errorf("WaveSizes(%d, %v) = %v, want %v", c.n, c.waves, got, c.want)
			}
		})
	}
}
