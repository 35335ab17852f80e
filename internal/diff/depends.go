package diff

import (
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/routes"
)

// Depends is what a diff's answer is computed from, for a reader of the cluster to tell
// which of the reads it could not make (offline.Unread) the answer depends on: a diff
// computed without one of those could say "nothing changes" where something does, or
// name the wrong winner of a value. It errs on the side of depending: a read judged
// needed that was not makes the diff refuse to answer, never answer wrongly.
type Depends struct {
	controllerNamespace string
	// everywhere: the change reaches Gateways by class or in every namespace (a
	// blueprint, a class, a global policy, namespace labels), or a Gateway it reaches
	// takes routes from other namespaces; every namespace's objects count.
	everywhere bool
	// namespaces hold the Gateways and routes reached, and the objects changed: their
	// Gateways, routes, policies, records and ReferenceGrants count.
	namespaces map[string]bool
	// secrets and services are the namespaces that the certificateRefs of the reached
	// Gateways, and the backendRefs of their routes, name.
	secrets, services map[string]bool
	// namespaceLabels: a reached Gateway selects routes by their namespace's labels.
	namespaceLabels bool
}

// DependsOn works out what the diff of base and changed depends on, as Compare reaches it.
func DependsOn(base, changed *offline.Set, controllerNamespace string) Depends {
	d := Depends{controllerNamespace: controllerNamespace, namespaces: map[string]bool{}, secrets: map[string]bool{}, services: map[string]bool{}}
	r := newReach(base, changed, controllerNamespace)
	r.walk(base, changed)
	d.everywhere = r.all || r.byClass
	for _, key := range changedKeys(base, changed) {
		if key.Namespace != "" {
			d.namespaces[key.Namespace] = true
		}
	}
	reached := map[client.ObjectKey]bool{}
	for _, gw := range r.gateways {
		key := client.ObjectKeyFromObject(gw)
		if !d.everywhere && !r.reached[key] {
			continue
		}
		reached[key] = true
		d.namespaces[gw.Namespace] = true
		if !attach.SameNamespaceOnly(gw) {
			d.everywhere = true
		}
		if attach.SelectsByLabels(gw) {
			d.namespaceLabels = true
		}
		for _, key := range attach.CertificateSecrets(gw) {
			d.secrets[key.Namespace] = true
		}
	}
	for _, route := range r.routes {
		onReached := d.everywhere
		for _, ref := range routes.ParentRefs(route) {
			if key, isGateway := attach.ParentGateway(route, ref); isGateway && reached[key] {
				onReached = true
			}
		}
		if !onReached {
			continue
		}
		d.namespaces[route.GetNamespace()] = true
		for _, rule := range routes.BackendRefs(route) {
			for _, ref := range rule {
				if key, isService := attach.BackendService(route, ref.BackendObjectReference); isService {
					d.services[key.Namespace] = true
				}
			}
		}
	}
	return d
}

// Needs tells whether the answer depends on what u says was not read.
func (d Depends) Needs(u offline.Unread) bool {
	switch {
	case u.AllNamespaces:
		return d.everywhere || slices.ContainsFunc(d.namespacesFor(u.Kind), func(ns string) bool { return !slices.Contains(u.ReadIn, ns) })
	case u.Namespace == "" && u.Kind == "Namespaces":
		return d.namespaceLabels
	case u.Namespace == "":
		// GatewayClasses, blueprints, revisions: every Gateway's result depends on them.
		return true
	}
	return slices.Contains(d.namespacesFor(u.Kind), u.Namespace) || d.everywhere && u.Kind != "Secrets" && u.Kind != "Services"
}

// namespacesFor are the namespaces whose objects of kind the answer reads.
func (d Depends) namespacesFor(kind string) []string {
	var out []string
	add := func(set map[string]bool) {
		for ns := range set {
			out = append(out, ns)
		}
	}
	switch kind {
	case "Secrets":
		add(d.secrets)
	case "Services":
		add(d.services)
	case "ReferenceGrants":
		add(d.namespaces)
		add(d.secrets)
		add(d.services)
	case "GatewayClassConfigs":
		add(d.namespaces)
		out = append(out, d.controllerNamespace)
	default:
		add(d.namespaces)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// changedKeys are the objects, of every namespaced kind the diff reads, that differ.
func changedKeys(base, changed *offline.Set) []client.ObjectKey {
	return slices.Concat(
		differing(base.Gateways, changed.Gateways, sameSpec),
		differing(base.HTTPRoutes, changed.HTTPRoutes, sameSpec),
		differing(base.GatewayClassConfigs, changed.GatewayClassConfigs, sameSpec),
		differing(base.GatewayConfigs, changed.GatewayConfigs, sameSpec),
		differing(base.ReferenceGrants, changed.ReferenceGrants, sameSpec),
	)
}
