package snapshot

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/translate"
)

// revisionReads is the one cache of what Gateways run, for the lifetime of a Gatherer:
// each revision a rollout assigned a Gateway read once per Gateway and blueprint, however
// many of its routes are judged (or the records of its namespace listed once), and each
// blueprint revision read once however many Gateways run it, errors included, so that a
// pass judges every Gateway on the same read.
type revisionReads struct {
	targets map[targetKey]int64
	// records are part 0 of the records of each namespace's Gateways, listed once per
	// namespace, errors included (listedTarget).
	records map[string]recordsRead
	read    map[revisionKey]revisionRead
	// behind is a revision Reader did not hold: written just before the status that
	// names it, the cache is behind.
	behind error
}

type targetKey struct {
	gateway   client.ObjectKey
	blueprint string
}

type revisionKey struct {
	blueprint string
	target    int64
}

type recordsRead struct {
	byGateway map[string]*gatewrightv1alpha1.Rendering
	err       error
}

type revisionRead struct {
	revision *gatewrightv1alpha1.GatewayClassBlueprintRevision
	err      error
}

// target is the revision a rollout assigned gw, of blueprint, as its record says.
func (m *revisionReads) target(ctx context.Context, r client.Reader, gw client.Object, blueprint string) (int64, error) {
	key := targetKey{gateway: client.ObjectKeyFromObject(gw), blueprint: blueprint}
	if target, ok := m.targets[key]; ok {
		return target, nil
	}
	target, err := apply.TargetRevision(ctx, r, gw, blueprint)
	if err != nil {
		return 0, err
	}
	if m.targets == nil {
		m.targets = map[targetKey]int64{}
	}
	m.targets[key] = target
	return target, nil
}

// listedTarget is the revision a rollout assigned gw, of blueprint, as part 0 of its
// record says, from the records of gw's namespace listed on the first call for it.
func (m *revisionReads) listedTarget(ctx context.Context, r client.Reader, gw client.Object, blueprint string) (int64, error) {
	read, ok := m.records[gw.GetNamespace()]
	if !ok {
		read.byGateway, read.err = gatewayRecords(ctx, r, gw.GetNamespace())
		if m.records == nil {
			m.records = map[string]recordsRead{}
		}
		m.records[gw.GetNamespace()] = read
	}
	if head := read.byGateway[gw.GetName()]; head != nil {
		return head.TargetFor(blueprint), nil
	}
	return 0, read.err
}

// gatewayRecords are part 0 of the records of namespace's Gateways, by Gateway name.
func gatewayRecords(ctx context.Context, r client.Reader, namespace string) (map[string]*gatewrightv1alpha1.Rendering, error) {
	ofGateways, err := labels.NewRequirement(gatewrightv1alpha1.LabelHTTPRouteName, selection.DoesNotExist, nil)
	if err != nil {
		return nil, err
	}
	var list gatewrightv1alpha1.RenderingList
	if err := r.List(ctx, &list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*ofGateways)}); err != nil {
		return nil, err
	}
	out := map[string]*gatewrightv1alpha1.Rendering{}
	for i := range list.Items {
		if key, ok := apply.GatewayOf(&list.Items[i]); ok {
			out[key.Name] = &list.Items[i]
		}
	}
	return out, nil
}

// running reads the revision of live a Gateway assigned target runs (RunningNumber),
// on the first call for live and target; nil for revision 0.
func (m *revisionReads) running(ctx context.Context, r client.Reader, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	key := revisionKey{blueprint: live.Name, target: target}
	read, ok := m.read[key]
	if !ok {
		read.revision, read.err = readRunning(ctx, r, live, target)
		if m.read == nil {
			m.read = map[revisionKey]revisionRead{}
		}
		m.read[key] = read
	}
	return read.revision, read.err
}

func readRunning(ctx context.Context, r client.Reader, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	n := RunningNumber(live, target)
	if n == 0 {
		return nil, nil
	}
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
	if err := r.Get(ctx, client.ObjectKey{Name: revisions.Name(live.Name, n)}, rev); err != nil {
		if apierrors.IsNotFound(err) {
			// Written just before the status that names it: the cache is behind, retry.
			return nil, fmt.Errorf("GatewayClassBlueprintRevision %s (revision %d of %s) not read yet: %w", revisions.Name(live.Name, n), n, live.Name, err)
		}
		return nil, err
	}
	if rev.Blueprint != live.Name || rev.Revision != n {
		return nil, &translate.InvalidParametersError{Message: fmt.Sprintf("GatewayClassBlueprintRevision %s is not revision %d of %s", rev.Name, n, live.Name)}
	}
	if !metav1.IsControlledBy(rev, live) {
		// Left by a blueprint of the same name that was deleted, until it is collected.
		return nil, fmt.Errorf("GatewayClassBlueprintRevision %s belongs to an earlier GatewayClassBlueprint %s", rev.Name, live.Name)
	}
	return rev, nil
}
