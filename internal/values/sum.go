package values

import (
	"fmt"
	"sort"
	"strings"
)

// Bounds on the blocks that reach one Gateway or route together, over its whole chain.
// The bounds of a block alone let any number of blocks in: 40 tenant configs of 500
// KiB each, all targeting one namespace, made every computation of its Gateways decode
// 20 MB. Real chains stay far inside: the shipped blueprints and samples bring a
// handful of blocks of a few KiB, and a condition or two.
const (
	// MaxChainBlocks bounds the defaults and overrides of a chain, a policy that takes
	// part at two levels counting twice: 32 policies with both halves.
	MaxChainBlocks = 64
	// MaxChainBytes bounds their JSON together: four blocks at MaxBytes.
	MaxChainBytes = 4 * MaxBytes
	// MaxChainElements bounds their elements together: four blocks at MaxElements.
	MaxChainElements = 4 * MaxElements
	// MaxChainConditions bounds the blocks with a condition (when): each is evaluated
	// at every computation, on the values below it built anew as an object, so their
	// number multiplies the size of the values. Together they also share a budget of
	// work (MaxConditionsCost).
	MaxChainConditions = 48
)

const (
	LimitBlocks     Limit = "blocks"
	LimitConditions Limit = "conditions"
)

// maxNamedContributors bounds the policies a *SumLimitError names, so that its message
// stays small however many policies take part.
const maxNamedContributors = 5

// SumLimitError says that the blocks that reach one Gateway or route exceed a bound
// together. As with a *LimitError, the values are not computed: leaving any policy out
// could drop an override the provider relies on. The error names the policies that
// contributed most, so that each can say so in its status.
type SumLimitError struct {
	Limit Limit
	Max   int
	// Total is the sum over the chain.
	Total int
	// Largest are the contributors, the largest first and at most five of them; Others
	// counts the policies that contributed and are not named.
	Largest []Contribution
	Others  int
}

// Contribution is what one policy brought to a sum.
type Contribution struct {
	Source Source
	Amount int
}

func (e *SumLimitError) Error() string {
	named := make([]string, len(e.Largest))
	for i, c := range e.Largest {
		named[i] = fmt.Sprintf("%s (%d)", c.Source, c.Amount)
	}
	msg := fmt.Sprintf("the policies that reach these values have more than %d %s together (%d), largest first: %s",
		e.Max, sumUnit[e.Limit], e.Total, strings.Join(named, ", "))
	if e.Others > 0 {
		msg += fmt.Sprintf(", and %d more", e.Others)
	}
	return msg
}

// Names tells whether the error names source among the largest contributors.
func (e *SumLimitError) Names(source Source) bool {
	for _, c := range e.Largest {
		if c.Source == source {
			return true
		}
	}
	return false
}

var sumUnit = map[Limit]string{
	LimitBlocks:     "blocks (defaults and overrides)",
	LimitConditions: "blocks with a condition (when)",
	LimitBytes:      "bytes of JSON in their blocks",
	LimitElements:   "elements (keys and list items) in their blocks",
}

// chainSum adds up the sizes of the blocks of a chain, per policy.
type chainSum struct {
	order []Source
	by    map[Source]*[4]int // by the order of sumLimits
}

// sumLimits are the bounds of chainSum, in the order they are checked.
var sumLimits = [4]struct {
	limit Limit
	max   int
}{{LimitBlocks, MaxChainBlocks}, {LimitConditions, MaxChainConditions}, {LimitBytes, MaxChainBytes}, {LimitElements, MaxChainElements}}

// add counts the measured halves of source.
func (s *chainSum) add(source Source, sizes [2]blockSize) {
	if s.by == nil {
		s.by = map[Source]*[4]int{}
	}
	sum := s.by[source]
	if sum == nil {
		sum = &[4]int{}
		s.by[source] = sum
		s.order = append(s.order, source)
	}
	for _, size := range sizes {
		if size.bytes == 0 {
			continue // no such half
		}
		sum[0]++
		if size.conditional {
			sum[1]++
		}
		sum[2] += size.bytes
		sum[3] += size.elements
	}
}

// check returns a *SumLimitError for the first bound the chain exceeds, or nil.
func (s *chainSum) check() error {
	for i, bound := range sumLimits {
		total := 0
		var contributions []Contribution
		for _, source := range s.order {
			if amount := s.by[source][i]; amount > 0 {
				total += amount
				contributions = append(contributions, Contribution{Source: source, Amount: amount})
			}
		}
		if total <= bound.max {
			continue
		}
		sort.Slice(contributions, func(a, b int) bool {
			if contributions[a].Amount != contributions[b].Amount {
				return contributions[a].Amount > contributions[b].Amount
			}
			return contributions[a].Source.String() < contributions[b].Source.String()
		})
		named := min(len(contributions), maxNamedContributors)
		return &SumLimitError{Limit: bound.limit, Max: bound.max, Total: total,
			Largest: contributions[:named:named], Others: len(contributions) - named}
	}
	return nil
}
