package values

import (
	"sort"
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

// Party is who answers for a part of a chain when the chain goes over a sum bound.
// Parties add to the sum in this order, each over what the ones before it brought: a
// Gateway's chain is its provider's and then its owner's, and a route adds to it what
// its namespace brings, its provider's first. The party whose addition takes the sum
// over the bound is charged with it; the parties before it were within the bound, and
// keep their verdicts. So a route owner cannot make the Gateway owner's policies, or
// the provider's, Invalid by piling his own on top of them.
type Party int

const (
	// GatewayProvider is levels 1 to 4: the blueprint, the global GatewayClassConfigs
	// and the provider's GatewayClassConfigs of the Gateway's namespace.
	GatewayProvider Party = iota + 1
	// GatewayOwner is levels 5 and 6: the GatewayConfigs of the Gateway's namespace.
	GatewayOwner
	// RouteProvider is levels 9 and 10: the provider's GatewayClassConfigs of the
	// route's namespace, when it is not the Gateway's.
	RouteProvider
	// RouteOwner is levels 7 and 8: the GatewayConfigs of the route's namespace that
	// reach the route.
	RouteOwner
)

// partyOf is the party that answers for level.
func partyOf(level Level) Party {
	switch level {
	case LevelTenantNamespace, LevelGateway:
		return GatewayOwner
	case LevelRouteProviderNamespace, LevelRouteProviderClass:
		return RouteProvider
	case LevelRouteNamespace, LevelRoute:
		return RouteOwner
	default:
		return GatewayProvider
	}
}

// SumLimitError says that the blocks that reach one Gateway or route exceed a bound
// together. As with a *LimitError, the values are not computed: leaving any policy out
// could drop an override the provider relies on. The error charges the party whose
// addition took the sum over the bound (Party), and names its largest contributors,
// so that each can say so in its status; the parties before it keep their verdicts.
type SumLimitError struct {
	Limit Limit
	Max   int
	// Total is the sum over the chain.
	Total int
	// Party is charged with the bound: the parties before it brought Before, within the
	// bound, and Party's own policies brought Added on top, which took it over.
	Party  Party
	Before int
	Added  int
	// Largest are the contributors of Party, the largest first and at most five of
	// them; Others counts those of Party that contributed and are not named.
	Largest []Contribution
	Others  int

	// sources are the policies of the chain, in chain order, each once, and charges
	// what the error means for each; charged counts the contributors of Party by
	// namespace and kind, for messages. All are worked out once, with the error.
	sources []Source
	charges map[Source]Charge
	charged map[string]map[string]int
	// namespace is the namespace of the Gateway or route whose values these are: Error
	// writes for its readers. controllerNamespace holds the global configs, which every
	// tenant reads.
	namespace, controllerNamespace string
}

// Contribution is what one policy brought to a sum, as one party.
type Contribution struct {
	Source Source
	Party  Party
	Amount int
}

// Charge is what a *SumLimitError means for one policy of the chain.
type Charge int

const (
	// NotCharged: the policy takes no part in the chain, or is of a party before the
	// one charged: its additions were within the bound. The values are not computed,
	// but that is not the policy's doing, and its verdict leaves the context out.
	NotCharged Charge = iota
	// Charged: one of the largest contributors of the party charged, which can bring
	// the sum down: the policy is Invalid.
	Charged
	// Blocked: of the party charged but not among its largest, or of a party after it:
	// the policy is not in effect there, and its verdict says why.
	Blocked
)

// ChargeOf says what the error means for the policy source.
func (e *SumLimitError) ChargeOf(source Source) Charge { return e.charges[source] }

// Sources lists every policy of the chain, in chain order, each once.
func (e *SumLimitError) Sources() []Source { return e.sources }

// partySource keys a chainSum: a policy counts for each party it takes part as (a
// GatewayConfig of a Gateway's namespace may reach both the Gateway and a route there).
type partySource struct {
	party  Party
	source Source
}

// chainSum adds up the sizes of the blocks of a chain, per party and policy.
type chainSum struct {
	order []partySource
	by    map[partySource]*[4]int // by the order of sumLimits
}

// sumLimits are the bounds of chainSum, in the order they are checked.
var sumLimits = [4]struct {
	limit Limit
	max   int
}{{LimitBlocks, MaxChainBlocks}, {LimitConditions, MaxChainConditions}, {LimitBytes, MaxChainBytes}, {LimitElements, MaxChainElements}}

// add counts the measured halves of source, at level.
func (s *chainSum) add(level Level, source Source, sizes [2]blockSize) {
	if s.by == nil {
		s.by = map[partySource]*[4]int{}
	}
	key := partySource{party: partyOf(level), source: source}
	sum := s.by[key]
	if sum == nil {
		sum = &[4]int{}
		s.by[key] = sum
		s.order = append(s.order, key)
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

// check returns a *SumLimitError if the chain exceeds a bound, or nil. Of the bounds
// exceeded, the one charged to the earliest party is reported: when a Gateway's own
// chain is over one bound, its routes are refused for that, not for another bound
// their own policies go over besides.
func (s *chainSum) check() *SumLimitError {
	var worst *SumLimitError
	for i, bound := range sumLimits {
		var byParty [RouteOwner + 1]int
		total := 0
		for _, key := range s.order {
			byParty[key.party] += s.by[key][i]
			total += s.by[key][i]
		}
		if total <= bound.max {
			continue
		}
		e := &SumLimitError{Limit: bound.limit, Max: bound.max, Total: total}
		for party := GatewayProvider; party <= RouteOwner; party++ {
			if e.Before+byParty[party] > bound.max {
				e.Party, e.Added = party, byParty[party]
				break
			}
			e.Before += byParty[party]
		}
		if worst == nil || e.Party < worst.Party {
			worst = e
			s.contributions(worst, i)
		}
	}
	return worst
}

// contributions fills in e, the bound sumLimits[i] exceeded, who contributed: once, so
// that judging each of many policies by it, and writing each its message, costs little.
func (s *chainSum) contributions(e *SumLimitError, i int) {
	var charged []Contribution
	e.charges, e.charged = map[Source]Charge{}, map[string]map[string]int{}
	for _, key := range s.order {
		if _, seen := e.charges[key.source]; !seen {
			e.sources = append(e.sources, key.source)
			e.charges[key.source] = NotCharged
		}
		if key.party >= e.Party {
			e.charges[key.source] = Blocked
		}
		amount := s.by[key][i]
		if key.party != e.Party || amount == 0 {
			continue
		}
		charged = append(charged, Contribution{Source: key.source, Party: key.party, Amount: amount})
		byKind := e.charged[key.source.Namespace]
		if byKind == nil {
			byKind = map[string]int{}
			e.charged[key.source.Namespace] = byKind
		}
		byKind[key.source.Kind]++
	}
	sortLargestFirst(charged)
	named := min(len(charged), maxNamedContributors)
	e.Largest, e.Others = charged[:named:named], len(charged)-named
	for _, c := range e.Largest {
		e.charges[c.Source] = Charged
	}
}

// sortLargestFirst orders contributions by amount, then by source.
func sortLargestFirst(contributions []Contribution) {
	sort.Slice(contributions, func(a, b int) bool {
		if contributions[a].Amount != contributions[b].Amount {
			return contributions[a].Amount > contributions[b].Amount
		}
		return contributions[a].Source.String() < contributions[b].Source.String()
	})
}
