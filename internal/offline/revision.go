package offline

import (
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/translate"
)

// NewRevisions names, sorted, the blueprints whose spec the set proposes: a change over
// a set that makes them a new revision.
func (s *Set) NewRevisions() []string {
	var names []string
	for name, proposed := range s.proposed {
		if proposed {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Blueprint finds a GatewayClassBlueprint by name.
func (s *Set) Blueprint(name string) *gatewrightv1alpha1.GatewayClassBlueprint {
	at, ok := s.indexed().blueprints.byKey[client.ObjectKey{Name: name}]
	if !ok {
		return nil
	}
	return &s.Blueprints[at]
}

// proposing takes, into the changed set out, the blueprints a change touched (changed,
// by name: true for those it names itself): one that is a new revision (its hash, over
// its spec and the GatewayClassConfigs that ride its rollout, is not that of the newest
// revision, or of base's when base holds no revision) is proposed; one the change names
// that is not keeps base's uid and status, as applying it would, so that its Gateways
// run what they run.
func proposing(out, base *Set, touched map[string]bool, controllerNamespace string) error {
	for i := range out.Blueprints {
		bp := &out.Blueprints[i]
		named, ok := touched[bp.Name]
		if !ok {
			continue
		}
		was := base.Blueprint(bp.Name)
		if was == nil {
			out.proposed[bp.Name] = true
			continue
		}
		hash, err := out.revisionHash(bp, controllerNamespace)
		if err != nil {
			return err
		}
		running, err := base.newestHash(was, controllerNamespace)
		if err != nil {
			return err
		}
		if hash != running {
			out.proposed[bp.Name] = true
			continue
		}
		if named {
			bp.UID, bp.Status = was.UID, *was.Status.DeepCopy()
		}
	}
	return nil
}

// touchedBlueprints are the blueprints a change may make a new revision of: those it
// names (true), and those of the classes a riding GatewayClassConfig it changes, adds or
// deletes targets, before or after (false).
func touchedBlueprints(out, base, changed *Set, deletes []Ref, controllerNamespace string) map[string]bool {
	touched := map[string]bool{}
	for _, bp := range changed.Blueprints {
		touched[bp.Name] = true
	}
	var configs []*gatewrightv1alpha1.GatewayClassConfig
	for i := range changed.GatewayClassConfigs {
		gcc := &changed.GatewayClassConfigs[i]
		configs = append(configs, gcc, base.classConfig(gcc.Namespace, gcc.Name))
	}
	for _, ref := range deletes {
		if ref.Kind == gatewrightv1alpha1.KindGatewayClassConfig {
			configs = append(configs, base.classConfig(ref.Namespace, ref.Name))
		}
	}
	for _, gcc := range configs {
		if gcc == nil || !revisions.Rides(gcc, controllerNamespace) {
			continue
		}
		for _, set := range []*Set{base, out} {
			for _, class := range set.GatewayClasses {
				if blueprint, ok := translate.ClassBlueprint(&class); ok && slices.ContainsFunc(gcc.Spec.TargetRefs, func(t gatewayv1.LocalPolicyTargetReference) bool {
					return string(t.Name) == class.Name
				}) {
					if _, named := touched[blueprint]; !named {
						touched[blueprint] = false
					}
				}
			}
		}
	}
	return touched
}

// classConfig is the GatewayClassConfig namespace/name of the set, nil if none.
func (s *Set) classConfig(namespace, name string) *gatewrightv1alpha1.GatewayClassConfig {
	for i := range s.GatewayClassConfigs {
		if gcc := &s.GatewayClassConfigs[i]; gcc.Namespace == namespace && gcc.Name == name {
			return gcc
		}
	}
	return nil
}

// newestHash is the hash of bp's newest revision in the set, or, with none, of the
// revision bp would make.
func (s *Set) newestHash(bp *gatewrightv1alpha1.GatewayClassBlueprint, controllerNamespace string) (string, error) {
	var newest *gatewrightv1alpha1.GatewayClassBlueprintRevision
	for i := range s.Revisions {
		if rev := &s.Revisions[i]; rev.Blueprint == bp.Name && (newest == nil || rev.Revision > newest.Revision) {
			newest = rev
		}
	}
	if newest != nil {
		return newest.Hash, nil
	}
	return s.revisionHash(bp, controllerNamespace)
}

// revisionHash is the hash of the revision bp makes in the set, as the blueprint
// reconciler computes it.
func (s *Set) revisionHash(bp *gatewrightv1alpha1.GatewayClassBlueprint, controllerNamespace string) (string, error) {
	var classes []string
	for _, class := range s.GatewayClasses {
		if translate.UsesBlueprint(&class, bp.Name) {
			classes = append(classes, class.Name)
		}
	}
	riding, err := revisions.ClassConfigs(s.GatewayClassConfigs, controllerNamespace, classes)
	if err != nil {
		return "", err
	}
	return revisions.Hash(&bp.Spec, riding)
}
