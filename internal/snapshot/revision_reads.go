package snapshot

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// RevisionReads reads, for one pass over many Gateways, each blueprint revision they run
// once however many run it: RunningRevision by blueprint and assigned revision, errors
// included, so that a pass judges every Gateway on the same read.
type RevisionReads struct {
	read map[revisionReadKey]revisionRead
}

type revisionReadKey struct {
	blueprint string
	target    int64
}

type revisionRead struct {
	revision *gatewrightv1alpha1.GatewayClassBlueprintRevision
	err      error
}

// Running is RunningRevision(ctx, r, live, target), read on the first call for live and
// target and remembered for the others.
func (m *RevisionReads) Running(ctx context.Context, r client.Reader, live *gatewrightv1alpha1.GatewayClassBlueprint, target int64) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	key := revisionReadKey{blueprint: live.Name, target: target}
	read, ok := m.read[key]
	if !ok {
		read.revision, read.err = RunningRevision(ctx, r, live, target)
		if m.read == nil {
			m.read = map[revisionReadKey]revisionRead{}
		}
		m.read[key] = read
	}
	return read.revision, read.err
}
