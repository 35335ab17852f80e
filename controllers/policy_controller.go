package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/summary"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// PolicyReconciler writes status.ancestors of GatewayClassConfigs or GatewayConfigs:
// per target, Accepted (Accepted, TargetNotFound, Invalid) and Programmed (Programmed,
// PartiallyProgrammed, Overridden naming the policies that won, Reconciling), judged
// over every Gateway and route the target reaches, and Enforced, its deprecated name;
// and at the top, for health checks, observedGeneration and the summary conditions
// (policy_status.go).
type PolicyReconciler struct {
	client.Client
	ControllerNamespace string
	Blueprints          *render.Cache
	// Recorder records an event on a policy each time an ancestor's condition changes
	// state: at most two per target and change, never one per Gateway.
	Recorder record.EventRecorder
	// Kind is GatewayClassConfig or GatewayConfig.
	Kind string
	// Workers is how many policies are judged at once.
	Workers int
	// RouteKinds are the route kinds the API server serves (servedRouteKinds): a route
	// of any of them may have values.
	RouteKinds []string
	// listenerSets: the API server serves ListenerSets, through which routes reach
	// Gateways too (servesListenerSets).
	listenerSets bool
	// tables are the Gateway reconciler's memos of its Gateways' routes, which a
	// judgement reads as the Gateway's reconcile does.
	tables *tableMemos
	// httpRoutes finds the HTTPRoutes that name a Gateway, uncopied: the objects the
	// memos in tables find again.
	httpRoutes *routeParentIndex

	shard shard
	pace  judgementPace
}

// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassconfigs/status;gatewayconfigs/status,verbs=get;update;patch

func (r *PolicyReconciler) newObject() client.Object {
	if r.Kind == gatewrightv1alpha1.KindGatewayClassConfig {
		return &gatewrightv1alpha1.GatewayClassConfig{}
	}
	return &gatewrightv1alpha1.GatewayConfig{}
}

func (r *PolicyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.newObject()
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		r.pace.forget(req.NamespacedName)
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	defer r.pace.took(req.NamespacedName, time.Now())
	original := obj.DeepCopyObject().(client.Object)
	p := asPolicy(obj)
	targets, err := r.withReferencingGateways(ctx, obj, p.targets)
	if err != nil {
		return ctrl.Result{}, err
	}
	primary, err := r.shard.primary(ctx, r.Client)
	if err != nil {
		return ctrl.Result{}, err
	}
	// A policy over a bound of the values engine, or of a shape it cannot read, is never
	// merged: every Gateway it reaches fails with the same error, which is all there is
	// to say on each target.
	refused := values.CheckPolicy(values.Source{Kind: r.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}, p.blocks)
	targets, omitted := translate.CapAncestors(targets)
	// One gatherer for every target: they often reach the same classes and namespaces.
	g := &snapshot.Gatherer{Reader: r.Client, ControllerNamespace: r.ControllerNamespace, GatewayClassIndex: indexGatewayClassName, RouteParentIndex: indexRouteParent,
		ServesListenerSets: r.listenerSets, ListenerSetParentIndex: indexListenerSetParent, OtherRouteKinds: otherRouteKinds(r.RouteKinds),
		AttachMemos: r.tables.attachedOf, HTTPRoutesNaming: r.httpRoutes.httpRoutesOf}
	ancestors := make([]gatewayv1.PolicyAncestorStatus, 0, len(targets))
	writesAny := false
	for _, target := range targets {
		ancestor := gatewayv1.PolicyAncestorStatus{AncestorRef: translate.AncestorRef(obj.GetNamespace(), target), ControllerName: gatewrightv1alpha1.ControllerName}
		old := translate.FindAncestor(p.status.Ancestors, ancestor)
		mine, err := r.writes(ctx, obj, target, primary)
		if err != nil {
			return ctrl.Result{}, err
		}
		if !mine {
			if old != nil {
				ancestors = append(ancestors, *old)
			}
			continue
		}
		writesAny = true
		var before []metav1.Condition
		if old != nil {
			before = slices.Clone(old.Conditions)
			ancestor.Conditions = old.Conditions
		}
		accepted, err := g.TargetAccepted(ctx, obj.GetNamespace(), target)
		if err != nil {
			return ctrl.Result{}, err
		}
		enforced := translate.NotAccepted
		switch {
		case accepted.OK && refused != nil:
			enforced = translate.Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: refused.Error()}
		case accepted.OK:
			if enforced, err = r.enforcement(ctx, g, obj, target); err != nil {
				return ctrl.Result{}, err
			}
		}
		if enforced.Reason == string(gatewayv1.PolicyReasonInvalid) {
			// The error belongs on the object the user edited, where kubectl get shows it.
			accepted = enforced
		}
		translate.SetAncestorCondition(&ancestor, obj.GetGeneration(), string(gatewayv1.PolicyConditionAccepted), accepted)
		translate.SetAncestorCondition(&ancestor, obj.GetGeneration(), translate.ConditionProgrammed, translate.Programmed(enforced))
		translate.SetAncestorCondition(&ancestor, obj.GetGeneration(), translate.ConditionEnforced, enforced)
		// Events follow the standard's condition; Enforced says the same in older words.
		for _, conditionType := range []string{string(gatewayv1.PolicyConditionAccepted), translate.ConditionProgrammed} {
			changed := *meta.FindStatusCondition(ancestor.Conditions, conditionType)
			changed.Message = fmt.Sprintf("%s/%s: %s", target.Kind, target.Name, changed.Message)
			recordConditionChange(r.Recorder, obj, before, changed)
		}
		ancestors = append(ancestors, ancestor)
	}
	if !writesAny && (len(targets) > 0 || !primary) {
		// Other shards write every entry, and the summary with them: the status keeps one
		// writer per entry, and none for a policy no shard judges.
		return ctrl.Result{}, nil
	}
	translate.MarkOmitted(ancestors, obj.GetGeneration(), omitted)
	p.status.Ancestors = ancestors
	verdict, err := r.summary(ctx, obj, ancestors, len(targets))
	if err != nil {
		return ctrl.Result{}, err
	}
	summary.Set(&p.status.Conditions, verdict, obj.GetGeneration())
	p.status.ObservedGeneration = obj.GetGeneration()
	// Rather short messages than an older verdict left standing.
	shortAll := func(status gatewrightv1alpha1.PolicyStatus) gatewrightv1alpha1.PolicyStatus {
		status.Conditions = conditions.Short(status.Conditions)
		status.Ancestors = slices.Clone(status.Ancestors)
		for i := range status.Ancestors {
			status.Ancestors[i].Conditions = conditions.Short(status.Ancestors[i].Conditions)
		}
		return status
	}
	return ctrl.Result{}, ctrlutil.WriteStatus(ctx, r.Client, obj, *asPolicy(original).status, *p.status, shortAll, r.shard.statusLock(obj)...)
}

// withReferencingGateways adds, for a GatewayConfig, the Gateways that name it in
// spec.infrastructure.parametersRef: they count as targets.
func (r *PolicyReconciler) withReferencingGateways(ctx context.Context, obj client.Object, targets []gatewayv1.LocalPolicyTargetReference) ([]gatewayv1.LocalPolicyTargetReference, error) {
	if r.Kind != gatewrightv1alpha1.KindGatewayConfig {
		return targets, nil
	}
	var gateways gatewayv1.GatewayList
	// The cache's own Gateways, not copied: they are only read (sorted as the list's copies).
	if err := r.List(ctx, &gateways, client.InNamespace(obj.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	// The cache lists in no particular order; the ancestors must come out the same way
	// every time, or the status would be rewritten for nothing.
	sort.Slice(gateways.Items, func(i, j int) bool { return gateways.Items[i].Name < gateways.Items[j].Name })
	out := append([]gatewayv1.LocalPolicyTargetReference{}, targets...)
	for _, gw := range gateways.Items {
		if !gatewrightv1alpha1.NamesGatewayConfig(&gw, obj.GetName()) {
			continue
		}
		target := gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "Gateway", Name: gatewayv1.ObjectName(gw.Name)}
		if !slices.Contains(out, target) {
			out = append(out, target)
		}
	}
	return out, nil
}

func (r *PolicyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	if r.Kind == gatewrightv1alpha1.KindGatewayClassConfig {
		// A riding config's summary reads the revisions its blueprint names; one the
		// cache reads after the blueprint's status would leave it RevisionPending.
		b = b.Watches(&gatewrightv1alpha1.GatewayClassBlueprintRevision{}, r.coalesced(r.ridingPolicies), builder.WithPredicates(ctrlutil.Created))
	}
	for _, kind := range r.RouteKinds {
		b = b.Watches(routes.New(kind), r.coalesced(r.policiesNearRoute), builder.WithPredicates(routeAttachmentChanged))
	}
	if r.listenerSets {
		b = b.Watches(&gatewayv1.ListenerSet{}, r.coalesced(r.policiesNearListenerSet), ctrlutil.SpecChanged)
	}
	return b.
		For(r.newObject(), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		Watches(&gatewayv1.Gateway{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		Watches(&gatewayv1.GatewayClass{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		// Values are computed with the blueprint revision each Gateway runs: what moves
		// it is a new currentRevision or a rollout's assignment, not a spec edit; a
		// riding config's summary follows its rollout's phase too.
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, r.coalesced(r.policiesNear), blueprintRunsOrRolls).
		Watches(&gatewrightv1alpha1.Rendering{}, r.coalesced(r.policiesNear), targetRevisionChanged).
		Named(strings.ToLower(r.Kind)).
		WithOptions(fairlyShared(r.Workers)).
		Complete(ctrlutil.RetryingConflicts(r, staleRecord))
}

// policyCoalescing is how long a policy waits at least after a change around it before
// its status is judged again: creating a thousand Gateways then judges each policy a few
// times, not a thousand times over every Gateway it reaches. A change to the policy
// itself is judged at once.
const policyCoalescing = time.Second

// judgementSpacing makes a policy whose judgement takes long wait longer between
// judgements, in proportion: a class-wide policy over 5,000 Gateways takes about a
// second to judge, and judging it every second while Gateways arrive would take a core
// from the work of programming them.
const judgementSpacing = 10

// judgementPace remembers how long each policy's last judgement took.
type judgementPace struct {
	mu   sync.Mutex
	last map[types.NamespacedName]time.Duration
}

func (p *judgementPace) took(key types.NamespacedName, start time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last == nil {
		p.last = map[types.NamespacedName]time.Duration{}
	}
	p.last[key] = time.Since(start)
}

func (p *judgementPace) forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.last, key)
}

// wait is how long a change around the policy waits before it is judged.
func (p *judgementPace) wait(key types.NamespacedName) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(policyCoalescing, judgementSpacing*p.last[key])
}

// coalesced enqueues what fn maps an event to after the policy's wait.
func (r *PolicyReconciler) coalesced(fn handler.MapFunc) handler.EventHandler {
	return ctrlutil.Coalesced(fn, func(req reconcile.Request) time.Duration { return r.pace.wait(req.NamespacedName) })
}

// policiesNearRoute: a route's values take part in the judgement of the policies of its
// own namespace, of its parent Gateways' namespaces (its ListenerSets' Gateways too) and
// of the controller namespace.
func (r *PolicyReconciler) policiesNearRoute(ctx context.Context, obj client.Object) []reconcile.Request {
	route := obj.(routes.Route) // watched for the route kinds only
	namespaces := map[string]bool{route.GetNamespace(): true, r.ControllerNamespace: true}
	for _, key := range attach.ParentGateways(route) {
		namespaces[key.Namespace] = true
	}
	// A route on a ListenerSet reaches the Gateway the ListenerSet names.
	for _, ref := range routes.ParentRefs(route) {
		if key, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), ref); isListenerSet && r.listenerSets {
			ls := &gatewayv1.ListenerSet{}
			if r.Get(ctx, key, ls) == nil {
				if parent, isGateway := attach.ListenerSetParent(ls); isGateway {
					namespaces[parent.Namespace] = true
				}
			}
		}
	}
	var requests []reconcile.Request
	for ns := range namespaces {
		requests = append(requests, r.policies(ctx, client.InNamespace(ns))...)
	}
	return requests
}

// policiesNear: a change in a namespace can change which values of that namespace's
// policies and the global ones win; a change in the controller namespace or to a
// cluster-scoped object can change any policy's.
func (r *PolicyReconciler) policiesNear(ctx context.Context, obj client.Object) []reconcile.Request {
	if ns := obj.GetNamespace(); ns != "" && ns != r.ControllerNamespace {
		return append(r.policies(ctx, client.InNamespace(ns)), r.policies(ctx, client.InNamespace(r.ControllerNamespace))...)
	}
	return r.policies(ctx)
}

// policiesNearListenerSet are the policies near a ListenerSet and near the Gateway it
// names: the routes on it reach that Gateway while it is attached.
func (r *PolicyReconciler) policiesNearListenerSet(ctx context.Context, obj client.Object) []reconcile.Request {
	out := r.policiesNear(ctx, obj)
	if key, isGateway := attach.ListenerSetParent(obj.(*gatewayv1.ListenerSet)); isGateway && key.Namespace != obj.GetNamespace() && key.Namespace != r.ControllerNamespace {
		out = append(out, r.policies(ctx, client.InNamespace(key.Namespace))...)
	}
	return out
}

// ridingPolicies are the policies that may ride a blueprint's rollouts: the
// GatewayClassConfigs of the controller namespace (revisions.Rides).
func (r *PolicyReconciler) ridingPolicies(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.policies(ctx, client.InNamespace(r.ControllerNamespace))
}

func (r *PolicyReconciler) policies(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
	var names []types.NamespacedName
	if r.Kind == gatewrightv1alpha1.KindGatewayClassConfig {
		var list gatewrightv1alpha1.GatewayClassConfigList
		if err := r.List(ctx, &list, opts...); err == nil {
			for _, p := range list.Items {
				names = append(names, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
			}
		}
	} else {
		var list gatewrightv1alpha1.GatewayConfigList
		if err := r.List(ctx, &list, opts...); err == nil {
			for _, p := range list.Items {
				names = append(names, types.NamespacedName{Namespace: p.Namespace, Name: p.Name})
			}
		}
	}
	return ctrlutil.RequestsFor(names)
}

// writes tells whether this instance writes the ancestor entry for target. The shard of a
// Gatewright GatewayClass writes the entries for the class and for its Gateways. The
// primary shard writes every other entry: a Namespace or an HTTPRoute reaches Gateways of
// any shard, and a target that is missing or not Gatewright's belongs to no shard. So one
// policy's entries may come from several instances, but each entry from exactly one.
func (r *PolicyReconciler) writes(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference, primary bool) (bool, error) {
	owner := unowned
	switch target.Kind {
	case "GatewayClass":
		class, err := getClass(ctx, r.Client, string(target.Name))
		if err != nil {
			return false, err
		}
		owner = r.shard.ownership(class)
	case "Gateway":
		var err error
		if owner, err = r.shard.gatewayOwnership(ctx, r.Client, client.ObjectKey{Namespace: obj.GetNamespace(), Name: string(target.Name)}); err != nil {
			return false, err
		}
	}
	if owner == unowned {
		return primary, nil
	}
	return owner == ownedHere, nil
}

// policy is a GatewayClassConfig or a GatewayConfig, seen the same way.
type policy struct {
	object  client.Object
	targets []gatewayv1.LocalPolicyTargetReference
	blocks  *gatewrightv1alpha1.DefaultsAndOverrides
	status  *gatewrightv1alpha1.PolicyStatus
}

func asPolicy(obj client.Object) policy {
	switch p := obj.(type) {
	case *gatewrightv1alpha1.GatewayClassConfig:
		return policy{object: p, targets: p.Spec.TargetRefs, blocks: &p.Spec.DefaultsAndOverrides, status: &p.Status}
	case *gatewrightv1alpha1.GatewayConfig:
		return policy{object: p, targets: p.Spec.TargetRefs, blocks: &p.Spec.DefaultsAndOverrides, status: &p.Status}
	}
	panic(fmt.Sprintf("not a policy: %T", obj))
}
