package apply

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Record is an owner's Renderings as read, and the inventory they hold.
type Record struct {
	owner Owner
	// parts are the owner's Renderings, by part number.
	parts map[int32]*gatewrightv1alpha1.Rendering
	// Inventory is what the Renderings list, each entry checked.
	Inventory Inventory
	// Readiness judges the owner's objects, the blueprint's readyWhen included (render's
	// Blueprint.Readiness); nil judges them by kstatus.
	// It is given the template the record (or the render) says rendered the object,
	// never the template the object's labels name.
	Readiness func(obj *unstructured.Unstructured, template string) (bool, string)
	// ReadsWhole tells whether the objects of a template are read whole: by a template
	// (.Resources) or by a readyWhen. The cache holds objects without their content
	// (StripContent); those are then read from the API server. nil reads none whole.
	ReadsWhole func(template string) bool
	// Deleting tells that a Rendering of the owner is being deleted: its clean-up must
	// finish before the owner gets new ones.
	Deleting bool
	// Values are the effective values part 0 records: as read, until the caller sets
	// those of the objects it is about to apply.
	Values *gatewrightv1alpha1.RecordedValues
	// Revision and ValuesHash are the blueprint revision and the hash of the effective
	// values part 0 records: as read, until the caller sets those it is about to apply.
	Revision   int64
	ValuesHash string
	// RenderedBytes is the size of the owner's objects and values part 0 records
	// (Rendering.RenderedBytes): as read, until the caller sets that of the render it is
	// about to apply.
	RenderedBytes int64
	// TargetRevision is the revision a rollout assigned the Gateway and GatesRollout
	// whether its health gates the wave; only the rollout engine writes them, so a save
	// keeps them as read.
	TargetRevision int64
	GatesRollout   bool
	// TargetBlueprint is the blueprint whose rollout wrote TargetRevision (TargetFor).
	TargetBlueprint string
	// TenantInputs is the fingerprint of the Gateway's tenant inputs its render read
	// (rollout.TenantInputs): as read, until the caller sets the one of its render.
	// Part 0 records when it changed (Rendering.TenantInputsSince).
	TenantInputs string
	// RouteCutoff is where the Gateway's routes went past a Gateway-wide bound
	// (routing.Cutoff): as read, until the caller sets the one of the render it is
	// about to apply.
	RouteCutoff *gatewrightv1alpha1.RouteCutoff
	// RouteRefused is, for a route, why its templates refused it on its Gateway, empty
	// when they did not: as read, until the caller sets the one of its render.
	RouteRefused string
	// ServedRoutes and NotApplied are, for a Gateway, the routes its configuration
	// holds (ServedRoutes) and why its latest render was not applied: as read, until
	// the caller sets those of the render it is about to apply (RecordNotApplied when
	// it was not).
	ServedRoutes, NotApplied string
	// later fill in what only the record's writes read of the render (Later).
	later []func(*Record)
	// live holds the owner's objects as LiveRecorded read them, by entry key, for the
	// next ApplyRecorded.
	live map[string]*unstructured.Unstructured
	// read is what part 0 recorded when read; nil without one.
	read *readInputs
}

// TargetFor is the revision blueprint's rollout assigned the Gateway, 0 for none
// (Rendering.TargetFor).
func (r *Record) TargetFor(blueprint string) int64 {
	if r.TargetBlueprint != blueprint {
		return 0
	}
	return r.TargetRevision
}

// Owner is how the record's Renderings name their owner, in Namespace.
func (r *Record) Owner() gatewrightv1alpha1.RenderingOwner { return r.owner.recorded() }

// Namespace is the owner's, and its Renderings'.
func (r *Record) Namespace() string { return r.owner.Object.GetNamespace() }

// Exists tells whether the owner has a Rendering.
func (r *Record) Exists() bool { return len(r.parts) > 0 }

// NewInputs tells whether the revision or the values the caller set differ from those
// part 0 recorded when read: the owner's objects then change because a blueprint
// revision or a policy did, not by drift or by an edit of the owner itself. Revision 0,
// the live spec of a blueprint not given revisions yet, to its first revision is no new
// input: that revision is the same spec.
func (r *Record) NewInputs() bool {
	if r.read == nil {
		return false
	}
	return (r.read.revision != 0 && r.read.revision != r.Revision) || r.read.valuesHash != r.ValuesHash
}

// readInputs are the revision and the values hash part 0 recorded when it was read.
type readInputs struct {
	revision     int64
	valuesHash   string
	servedRoutes string
}

// Later has fill fill in, before the record's next write, what only the record reads of
// the render it is about to apply (the tenants' fingerprint, the routes served): an apply
// that does not record first (recordFirst) then does not wait for them.
func (r *Record) Later(fill func(*Record)) { r.later = append(r.later, fill) }

// ValuesRendering names the Rendering that records the values, part 0; "" when there is none.
func (r *Record) ValuesRendering() string {
	if part := r.parts[0]; part != nil {
		return part.Name
	}
	return ""
}

// LoadRecord reads owner's Renderings from the cache. Only the controller writes them;
// still, a Rendering counts only if it names the owner, and an entry only if its
// namespace is the owner's (or it is cluster-scoped).
func (a *Applier) LoadRecord(ctx context.Context, owner Owner) (*Record, error) {
	list, err := a.listRecords(ctx, owner.Object.GetNamespace(), owner.GVK.Kind, owner.Object.GetName(), client.MatchingLabelsSelector{Selector: owner.recordSelector()})
	if err != nil {
		return nil, fmt.Errorf("reading the Renderings of %s: %w", owner, err)
	}
	rec := NewRecord(owner)
	for i := range list.Items {
		r := &list.Items[i]
		if owner.namedBy(r) {
			rec.add(r)
		}
	}
	rec.Inventory.sort()
	return rec, nil
}

// add takes in one of the owner's Renderings.
func (r *Record) add(part *gatewrightv1alpha1.Rendering) {
	r.parts[part.Part] = part
	if part.Part == 0 {
		r.Values, r.Revision, r.ValuesHash, r.RenderedBytes = part.Values, part.Revision, part.ValuesHash, part.RenderedBytes
		r.TargetRevision, r.GatesRollout, r.TargetBlueprint = part.TargetRevision, part.GatesRollout, part.TargetBlueprint
		r.RouteCutoff, r.RouteRefused = part.RouteCutoff, part.RouteRefused
		r.ServedRoutes, r.NotApplied = part.ServedRoutes, part.NotApplied
		r.TenantInputs = part.TenantInputs
		r.read = &readInputs{revision: part.Revision, valuesHash: part.ValuesHash, servedRoutes: part.ServedRoutes}
	}
	r.Deleting = r.Deleting || !part.DeletionTimestamp.IsZero()
	r.Inventory = append(r.Inventory, checkedEntries(r.owner, part)...)
}

// checkedEntries lists the objects of r that may be the owner's: in its namespace, or
// cluster-scoped.
func checkedEntries(owner Owner, r *gatewrightv1alpha1.Rendering) Inventory {
	var inv Inventory
	for _, o := range r.Objects {
		if o.Namespace != "" && o.Namespace != owner.Object.GetNamespace() {
			continue
		}
		inv = append(inv, Entry{
			APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name,
			Template: o.Template, Hash: o.Hash, Ready: o.Ready,
		})
	}
	return inv
}

// SaveRecord makes owner's Renderings list inv, and part 0 the record's values,
// writing only the parts that change. An owner with values, or a route its templates
// refused, has a Rendering even when it has no object, so that the readers of its
// namespace can see its values, and its Gateway that it is refused.
func (a *Applier) SaveRecord(ctx context.Context, rec *Record, inv Inventory) error {
	for _, fill := range rec.later {
		fill(rec)
	}
	rec.later = nil
	inv = append(Inventory{}, inv...)
	inv.sort()
	if len(inv) == 0 && !rec.Exists() && rec.Values == nil && rec.RouteRefused == "" {
		return nil
	}
	chunks := chunk(inv, gatewrightv1alpha1.MaxRenderedObjectsPerRendering)
	for i, objects := range chunks {
		part := int32(i)
		desired := rec.owner.rendering(part, int32(len(chunks)), objects)
		existing := rec.parts[part]
		if part == 0 {
			desired.Values = recordedAt(rec.Values, existing)
			desired.RevisionSince = revisionSince(rec.Revision, existing)
			desired.Revision, desired.ValuesHash, desired.RenderedBytes = rec.Revision, rec.ValuesHash, rec.RenderedBytes
			desired.TargetRevision, desired.GatesRollout, desired.TargetBlueprint = rec.TargetRevision, rec.GatesRollout, rec.TargetBlueprint
			desired.RouteCutoff, desired.RouteRefused = rec.RouteCutoff, rec.RouteRefused
			desired.ServedRoutes, desired.NotApplied = rec.ServedRoutes, rec.NotApplied
			desired.TenantInputs, desired.TenantInputsSince = rec.TenantInputs, tenantInputsSince(rec.TenantInputs, existing)
		}
		var err error
		switch {
		case existing == nil:
			err = a.createRendering(ctx, desired)
		case !sameRendering(existing, desired):
			desired.ResourceVersion = existing.ResourceVersion
			err = a.client.Update(ctx, desired)
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("recording the objects of %s: %w", rec.owner, err)
		}
		rec.parts[part] = desired
	}
	// Parts beyond the last hold nothing that the others do not list now.
	for _, part := range sortedParts(rec.parts) {
		r := rec.parts[part]
		if int(part) < len(chunks) {
			continue
		}
		if err := a.release(ctx, r); err != nil {
			return err
		}
		if err := a.client.Delete(ctx, r); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Rendering %s/%s: %w", r.Namespace, r.Name, err)
		}
		delete(rec.parts, part)
	}
	rec.Inventory = inv
	return nil
}

// createRendering creates r. One that exists already was written after the cache was
// read: it may list objects the caller does not know of, so it is not overwritten; the
// reconcile is retried once the cache has it.
func (a *Applier) createRendering(ctx context.Context, r *gatewrightv1alpha1.Rendering) error {
	err := a.client.Create(ctx, r)
	if apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("Rendering %s/%s exists but was not read yet: %w", r.Namespace, r.Name, err)
	}
	return err
}

// DeleteRecord deletes owner's Renderings. Their finalizer keeps them until the
// Rendering reconciler has deleted the objects they list (CleanUp).
func (a *Applier) DeleteRecord(ctx context.Context, rec *Record) error {
	for _, part := range sortedParts(rec.parts) {
		r := rec.parts[part]
		if !r.DeletionTimestamp.IsZero() {
			continue
		}
		if err := a.client.Delete(ctx, r); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting Rendering %s/%s: %w", r.Namespace, r.Name, err)
		}
	}
	return nil
}

// CleanUp deletes the objects a Rendering lists that still carry its owner's labels,
// then lets the Rendering go. It returns what it deleted.
func (a *Applier) CleanUp(ctx context.Context, r *gatewrightv1alpha1.Rendering) ([]string, error) {
	owner := OwnerOfRendering(r)
	deleted, err := a.DeleteAll(ctx, owner, checkedEntries(owner, r))
	if err != nil {
		return deleted, err
	}
	return deleted, a.release(ctx, r)
}

// release removes the clean-up finalizer of r.
func (a *Applier) release(ctx context.Context, r *gatewrightv1alpha1.Rendering) error {
	if !controllerutil.ContainsFinalizer(r, gatewrightv1alpha1.FinalizerCleanup) {
		return nil
	}
	original := r.DeepCopy()
	controllerutil.RemoveFinalizer(r, gatewrightv1alpha1.FinalizerCleanup)
	if err := a.client.Patch(ctx, r, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{})); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("releasing Rendering %s/%s: %w", r.Namespace, r.Name, err)
	}
	return nil
}

// recordedAt stamps values with the time they were first recorded: that of existing
// when it records the same values, now otherwise.
func recordedAt(values *gatewrightv1alpha1.RecordedValues, existing *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.RecordedValues {
	if values == nil {
		return nil
	}
	if existing != nil && sameValues(existing.Values, values) {
		return existing.Values
	}
	stamped := values.DeepCopy()
	stamped.RecordedAt = metav1.Now()
	return stamped
}

// revisionSince is when the owner's objects were first rendered from revision: as
// existing records it while it records the same revision (none for a record written
// before the field, which a restart then does not rewrite), now otherwise.
func revisionSince(revision int64, existing *gatewrightv1alpha1.Rendering) *metav1.Time {
	if existing != nil && existing.Revision == revision {
		return existing.RevisionSince
	}
	now := metav1.Now()
	return &now
}

// tenantInputsSince is when the owner's tenant inputs were first recorded as inputs: as
// existing records it while it records the same, now otherwise; none without inputs.
func tenantInputsSince(inputs string, existing *gatewrightv1alpha1.Rendering) *metav1.Time {
	switch {
	case inputs == "":
		return nil
	case existing != nil && existing.TenantInputs == inputs:
		return existing.TenantInputsSince
	}
	now := metav1.Now()
	return &now
}

func chunk(inv Inventory, size int) []Inventory {
	var chunks []Inventory
	for len(inv) > size {
		chunks = append(chunks, inv[:size])
		inv = inv[size:]
	}
	return append(chunks, inv)
}

func sameRendering(existing, desired *gatewrightv1alpha1.Rendering) bool {
	return existing.DeletionTimestamp.IsZero() &&
		equality.Semantic.DeepEqual(existing.Owner, desired.Owner) &&
		existing.Part == desired.Part && existing.Parts == desired.Parts &&
		equality.Semantic.DeepEqual(existing.Objects, desired.Objects) &&
		equality.Semantic.DeepEqual(existing.Values, desired.Values) &&
		existing.Revision == desired.Revision && existing.ValuesHash == desired.ValuesHash &&
		existing.RenderedBytes == desired.RenderedBytes &&
		equality.Semantic.DeepEqual(existing.RevisionSince, desired.RevisionSince) &&
		existing.TargetRevision == desired.TargetRevision && existing.GatesRollout == desired.GatesRollout &&
		existing.TargetBlueprint == desired.TargetBlueprint &&
		equality.Semantic.DeepEqual(existing.RouteCutoff, desired.RouteCutoff) && existing.RouteRefused == desired.RouteRefused &&
		existing.ServedRoutes == desired.ServedRoutes && existing.NotApplied == desired.NotApplied &&
		existing.TenantInputs == desired.TenantInputs && equality.Semantic.DeepEqual(existing.TenantInputsSince, desired.TenantInputsSince) &&
		equality.Semantic.DeepEqual(existing.OwnerReferences, desired.OwnerReferences) &&
		controllerutil.ContainsFinalizer(existing, gatewrightv1alpha1.FinalizerCleanup)
}

// rendering is part of the owner's record, listing objects.
func (o Owner) rendering(part, parts int32, objects Inventory) *gatewrightv1alpha1.Rendering {
	r := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:  o.Object.GetNamespace(),
			Name:       o.renderingName(part),
			Labels:     o.recordLabels(),
			Finalizers: []string{gatewrightv1alpha1.FinalizerCleanup},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: o.GVK.GroupVersion().String(), Kind: o.GVK.Kind,
				Name: o.Object.GetName(), UID: o.Object.GetUID(),
			}},
		},
		Owner: o.recorded(),
		Part:  part,
		Parts: parts,
	}
	r.SetGroupVersionKind(gatewrightv1alpha1.GroupVersion.WithKind(gatewrightv1alpha1.KindRendering))
	for _, e := range objects {
		r.Objects = append(r.Objects, gatewrightv1alpha1.RenderedObject{
			APIVersion: e.APIVersion, Kind: e.Kind, Namespace: e.Namespace, Name: e.Name,
			Template: e.Template, Hash: e.Hash, Ready: e.Ready,
		})
	}
	return r
}

// recorded is how the owner's Renderings name it.
func (o Owner) recorded() gatewrightv1alpha1.RenderingOwner {
	return gatewrightv1alpha1.RenderingOwner{
		Kind: o.GVK.Kind, Name: o.Object.GetName(), UID: o.Object.GetUID(),
		GatewayNamespace: o.Labels[gatewrightv1alpha1.LabelGatewayNamespace],
		GatewayName:      o.Labels[gatewayv1.GatewayNameLabelKey],
	}
}

// namedBy tells whether r is one of the owner's Renderings.
func (o Owner) namedBy(r *gatewrightv1alpha1.Rendering) bool {
	return r.Owner.Kind == o.GVK.Kind && r.Owner.Name == o.Object.GetName() &&
		r.Owner.GatewayNamespace == o.Labels[gatewrightv1alpha1.LabelGatewayNamespace] &&
		r.Owner.GatewayName == o.Labels[gatewayv1.GatewayNameLabelKey] &&
		r.Name == o.renderingName(r.Part)
}

// recordLabels are the labels of the owner's Renderings: the owner's, so that they are
// found by label like the objects they list.
func (o Owner) recordLabels() map[string]string {
	out := map[string]string{gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue}
	for k, v := range o.Labels {
		out[k] = v
	}
	return out
}

// recordSelector selects the owner's Renderings; a Gateway's are those without route
// labels, an HTTPRoute's those without a route kind.
func (o Owner) recordSelector() labels.Selector {
	selector := labels.SelectorFromSet(o.recordLabels())
	if !o.isRoute() {
		noRoute, _ := labels.NewRequirement(gatewrightv1alpha1.LabelHTTPRouteName, selection.DoesNotExist, nil)
		selector = selector.Add(*noRoute)
	}
	if o.Labels[gatewrightv1alpha1.LabelRouteKind] == "" {
		noKind, _ := labels.NewRequirement(gatewrightv1alpha1.LabelRouteKind, selection.DoesNotExist, nil)
		selector = selector.Add(*noKind)
	}
	return selector
}

// renderingName names part of the owner's record: gateway.NAME for a Gateway and
// KIND.NAME.HASH for a route (httproute.NAME.HASH, grpcroute.NAME.HASH, ...) on the
// Gateway whose namespace/name hashes to HASH; part n > 0 replaces the first word by
// gateway-n or KIND-n, which no owner's part 0 can be named. A name longer than the
// API server allows is cut and ends with a hash.
func (o Owner) renderingName(part int32) string {
	prefix, name := "gateway", o.Object.GetName()
	if o.isRoute() {
		prefix, name = strings.ToLower(o.GVK.Kind), name+"."+shortHash(o.GatewayKey())
	}
	if part > 0 {
		prefix += "-" + strconv.Itoa(int(part))
	}
	full := prefix + "." + name
	const maxName = 253
	if len(full) <= maxName {
		return full
	}
	cut := strings.TrimRight(full[:maxName-9], ".-")
	return cut + "-" + shortHash(full)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// Planned is what the record lists before an apply: every object of previous, and the
// planned ones with their new hashes; an object keeps its readiness only while its hash
// is the same.
func Planned(previous, planned Inventory) Inventory {
	byKey := make(map[string]Entry, len(previous))
	for _, e := range previous {
		byKey[e.key()] = e
	}
	out := make(Inventory, 0, len(previous)+len(planned))
	for _, e := range planned {
		if before, ok := byKey[e.key()]; ok && before.Hash == e.Hash {
			e.Ready = before.Ready
		}
		out = append(out, e)
	}
	out = append(out, previous.Without(planned)...)
	out.sort()
	return out
}

// sortedParts lists the part numbers of a record in order, for deterministic writes.
func sortedParts(parts map[int32]*gatewrightv1alpha1.Rendering) []int32 {
	out := make([]int32, 0, len(parts))
	for p := range parts {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// LoadRouteRecords reads the Renderings of a route of kind on every parent Gateway, by
// the parent's "namespace/name".
func (a *Applier) LoadRouteRecords(ctx context.Context, kind string, route client.Object) (map[string]*Record, error) {
	selector := client.MatchingLabels{
		gatewrightv1alpha1.LabelManagedBy:          gatewrightv1alpha1.ManagedByValue,
		gatewrightv1alpha1.LabelHTTPRouteName:      route.GetName(),
		gatewrightv1alpha1.LabelHTTPRouteNamespace: route.GetNamespace(),
	}
	list, err := a.listRecords(ctx, route.GetNamespace(), kind, route.GetName(), selector)
	if err != nil {
		return nil, fmt.Errorf("reading the Renderings of %s %s/%s: %w", kind, route.GetNamespace(), route.GetName(), err)
	}
	records := map[string]*Record{}
	for i := range list.Items {
		r := &list.Items[i]
		owner := RouteOwner(kind, route, r.Owner.GatewayNamespace, r.Owner.GatewayName)
		if !owner.namedBy(r) {
			continue
		}
		rec := records[owner.GatewayKey()]
		if rec == nil {
			rec = NewRecord(owner)
			records[owner.GatewayKey()] = rec
		}
		rec.add(r)
	}
	for _, rec := range records {
		rec.Inventory.sort()
	}
	return records, nil
}

// NewRecord is the empty record of an owner that has no Rendering yet.
func NewRecord(owner Owner) *Record {
	return &Record{owner: owner, parts: map[int32]*gatewrightv1alpha1.Rendering{}}
}
