package values

import (
	"fmt"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Level is a rung of the precedence chain. Its number names it in provenance; its place
// in the chain is Rank, which is not the number: the two route-only provider levels, 9
// and 10, rank between 4 and 5. Compare levels with Rank or Above, never by number.
type Level int

const (
	// LevelBlueprint is the blueprint's own spec.values.
	LevelBlueprint Level = 1
	// LevelGlobalClass is GatewayClassConfigs in the controller namespace targeting the class.
	LevelGlobalClass Level = 2
	// LevelProviderNamespace is GatewayClassConfigs targeting the Gateway's namespace.
	LevelProviderNamespace Level = 3
	// LevelProviderClass is GatewayClassConfigs in the Gateway's namespace targeting the class.
	LevelProviderClass Level = 4
	// LevelTenantNamespace is GatewayConfigs targeting the Gateway's namespace.
	LevelTenantNamespace Level = 5
	// LevelGateway is GatewayConfigs targeting the Gateway or named by its
	// spec.infrastructure.parametersRef.
	LevelGateway Level = 6
	// LevelRouteNamespace is GatewayConfigs targeting the namespace of an HTTPRoute that
	// lives outside the Gateway's namespace.
	LevelRouteNamespace Level = 7
	// LevelRoute is GatewayConfigs targeting the HTTPRoute.
	LevelRoute Level = 8
	// LevelRouteProviderNamespace is GatewayClassConfigs targeting the namespace of an
	// HTTPRoute that lives outside the Gateway's namespace. It ranks after level 4 and
	// before level 5: the route's provider binds the route above every tenant.
	LevelRouteProviderNamespace Level = 9
	// LevelRouteProviderClass is GatewayClassConfigs in that route namespace targeting
	// the Gateway's class; it ranks right after level 9.
	LevelRouteProviderClass Level = 10
)

// chainOrder lists the levels from the least specific to the most specific.
var chainOrder = []Level{
	LevelBlueprint, LevelGlobalClass, LevelProviderNamespace, LevelProviderClass,
	LevelRouteProviderNamespace, LevelRouteProviderClass,
	LevelTenantNamespace, LevelGateway, LevelRouteNamespace, LevelRoute,
}

// Rank is the level's place in the chain: 1 for the blueprint, the least specific, up
// to 10 for the HTTPRoute, the most specific. 0 for a level that does not exist.
func (l Level) Rank() int {
	for i, level := range chainOrder {
		if level == l {
			return i + 1
		}
	}
	return 0
}

// Above tells whether l is less specific than m: l's defaults lose to m's, l's
// overrides beat m's.
func (l Level) Above(m Level) bool { return l.Rank() < m.Rank() }

// Half says whether a value came from a policy's default or its override.
type Half string

const (
	Default  Half = "default"
	Override Half = "override"
)

// Strategy is how a block combines with the values below it: Patch, Merge or Atomic.
type Strategy = gatewrightv1alpha1.ValuesStrategy

// Source is the object a value came from.
type Source struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (s Source) String() string {
	if s.Namespace == "" {
		return s.Kind + " " + s.Name
	}
	return s.Kind + " " + s.Namespace + "/" + s.Name
}

// tenant tells whether the source is written by a tenant, whom a blueprint may forbid
// to unset inherited values.
func (s Source) tenant() bool { return s.Kind == gatewrightv1alpha1.KindGatewayConfig }

// Origin says where a value came from: which object, which half of it, at which level,
// and the strategy of that block, by which it was combined with the values below it.
type Origin struct {
	Source   `json:"source"`
	As       Half     `json:"as"`
	Level    Level    `json:"level"`
	Strategy Strategy `json:"strategy"`
}

// String reads "GatewayConfig team-a/web as default at level 6"; a strategy other than
// Patch, the default, is named: "... as Atomic default at level 6".
func (o Origin) String() string {
	as := string(o.As)
	if o.Strategy != gatewrightv1alpha1.StrategyPatch && o.Strategy != "" {
		as = string(o.Strategy) + " " + as
	}
	return fmt.Sprintf("%s as %s at level %d", o.Source, as, o.Level)
}
