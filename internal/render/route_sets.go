package render

import (
	"strings"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	routekinds "github.com/gatewright/gatewright/internal/routes"
)

// routeSet is the route templates of one route kind, parsed.
type routeSet struct {
	templates []resourceTemplate // in dependency order
	// readsLive is what the set's templates and the helpers may read of .Resources
	// (RouteObjectsMayChange, ReadsWhole).
	readsLive liveReads
}

// routeSetName is the set of kind's route templates, which their ids begin with:
// "httproute", "grpcroute", "tlsroute", "tcproute" or "udproute".
func routeSetName(kind string) string { return strings.ToLower(kind) }

// parseRouteSets orders the route templates of every kind bp has some for, compiles
// their readyWhen into b.readyWhen and adds their sources, by id, to sources.
func (b *Blueprint) parseRouteSets(bp *gatewrightv1alpha1.GatewayClassBlueprint, sources map[string]string) error {
	b.routes = map[string]routeSet{}
	for _, kind := range routekinds.Kinds {
		rt := bp.Spec.RouteTemplateOf(kind)
		if rt == nil {
			continue
		}
		set := routeSetName(kind)
		order, err := dependencyOrder(set, rt.ResourceTemplates)
		if err != nil {
			return err
		}
		if err := compileReadyWhen(set, rt.ResourceTemplates, b.readyWhen); err != nil {
			return err
		}
		for _, t := range rt.ResourceTemplates {
			sources[set+"/"+t.Name] = t.Template
		}
		b.routes[kind] = routeSet{templates: order, readsLive: liveReadsOf(append(templateSources(rt.ResourceTemplates), bp.Spec.Helpers)...)}
	}
	return nil
}

// routeIDs are the ids of every route template, kind by kind in routekinds.Kinds order.
func (b *Blueprint) routeIDs() []string {
	var out []string
	for _, kind := range routekinds.Kinds {
		out = append(out, ids(b.routes[kind].templates)...)
	}
	return out
}
