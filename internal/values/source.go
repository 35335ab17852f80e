package values

import "fmt"

// Level is a rung of the precedence chain. Defaults of a higher level beat those of a
// lower one; overrides of a lower level beat those of a higher one.
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
)

// Half says whether a value came from a policy's default or its override.
type Half string

const (
	Default  Half = "default"
	Override Half = "override"
)

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

// Origin says where a value came from: which object, which half of it, at which level.
type Origin struct {
	Source `json:"source"`
	As     Half  `json:"as"`
	Level  Level `json:"level"`
}

func (o Origin) String() string {
	return fmt.Sprintf("%s as %s at level %d", o.Source, o.As, o.Level)
}
