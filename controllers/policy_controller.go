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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// PolicyReconciler writes status.ancestors of GatewayClassConfigs or GatewayConfigs:
// per target, Accepted (Accepted, TargetNotFound, Invalid) and Enforced (Enforced,
// PartiallyEnforced, Overridden, naming the policies that won), judged over every
// Gateway and route the target reaches.
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
	targets, omitted := capAncestors(targets)
	inputs := &valueInputsCache{reader: r.Client, controllerNamespace: r.ControllerNamespace, blueprints: r.Blueprints}
	ancestors := make([]gatewayv1.PolicyAncestorStatus, 0, len(targets))
	for _, target := range targets {
		ancestor := gatewayv1.PolicyAncestorStatus{AncestorRef: ancestorRef(obj, target), ControllerName: gatewrightv1alpha1.ControllerName}
		old := findAncestor(p.status.Ancestors, ancestor)
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
		var before []metav1.Condition
		if old != nil {
			before = slices.Clone(old.Conditions)
			ancestor.Conditions = old.Conditions
		}
		// Programmed was this condition's name before the GEP-713 Standard words.
		meta.RemoveStatusCondition(&ancestor.Conditions, "Programmed")
		accepted, err := snapshot.TargetAccepted(ctx, r.Client, obj.GetNamespace(), target)
		if err != nil {
			return ctrl.Result{}, err
		}
		enforced := translate.NotAccepted
		switch {
		case accepted.OK && refused != nil:
			enforced = translate.Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: refused.Error()}
		case accepted.OK:
			if enforced, err = r.enforcement(ctx, obj, target, inputs); err != nil {
				return ctrl.Result{}, err
			}
		}
		if enforced.Reason == string(gatewayv1.PolicyReasonInvalid) {
			// The error belongs on the object the user edited, where kubectl get shows it.
			accepted = enforced
		}
		setPolicyCondition(&ancestor, obj, string(gatewayv1.PolicyConditionAccepted), accepted)
		setPolicyCondition(&ancestor, obj, conditionEnforced, enforced)
		for _, conditionType := range []string{string(gatewayv1.PolicyConditionAccepted), conditionEnforced} {
			changed := *meta.FindStatusCondition(ancestor.Conditions, conditionType)
			changed.Message = fmt.Sprintf("%s/%s: %s", target.Kind, target.Name, changed.Message)
			recordConditionChange(r.Recorder, obj, before, changed)
		}
		ancestors = append(ancestors, ancestor)
	}
	markOmitted(ancestors, obj, omitted)
	p.status.Ancestors = ancestors
	// Rather short messages than an older verdict left standing.
	shortAll := func(status gatewayv1.PolicyStatus) gatewayv1.PolicyStatus {
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
	if err := r.List(ctx, &gateways, client.InNamespace(obj.GetNamespace())); err != nil {
		return nil, err
	}
	// The cache lists in no particular order; the ancestors must come out the same way
	// every time, or the status would be rewritten for nothing.
	sort.Slice(gateways.Items, func(i, j int) bool { return gateways.Items[i].Name < gateways.Items[j].Name })
	out := append([]gatewayv1.LocalPolicyTargetReference{}, targets...)
	for _, gw := range gateways.Items {
		infra := gw.Spec.Infrastructure
		if infra == nil || infra.ParametersRef == nil || infra.ParametersRef.Name != obj.GetName() ||
			string(infra.ParametersRef.Group) != gatewrightv1alpha1.GroupVersion.Group || string(infra.ParametersRef.Kind) != gatewrightv1alpha1.KindGatewayConfig {
			continue
		}
		target := gatewayv1.LocalPolicyTargetReference{Group: gatewayv1.GroupName, Kind: "Gateway", Name: gatewayv1.ObjectName(gw.Name)}
		if !slices.Contains(out, target) {
			out = append(out, target)
		}
	}
	return out, nil
}

func setPolicyCondition(ancestor *gatewayv1.PolicyAncestorStatus, obj client.Object, conditionType string, v translate.Verdict) {
	conditions.Set(&ancestor.Conditions, conditionType, v.OK, v.Reason, v.Message, obj.GetGeneration())
}

func ancestorRef(obj client.Object, target gatewayv1.LocalPolicyTargetReference) gatewayv1.ParentReference {
	group, kind := target.Group, target.Kind
	ref := gatewayv1.ParentReference{Group: &group, Kind: &kind, Name: target.Name}
	if target.Kind == "Gateway" || target.Kind == "HTTPRoute" {
		namespace := gatewayv1.Namespace(obj.GetNamespace())
		ref.Namespace = &namespace
	}
	return ref
}

func (r *PolicyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(r.newObject(), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		Watches(&gatewayv1.Gateway{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		Watches(&gatewayv1.HTTPRoute{}, r.coalesced(r.policiesNearRoute), ctrlutil.SpecChanged).
		Watches(&gatewayv1.GatewayClass{}, r.coalesced(r.policiesNear), ctrlutil.SpecChanged).
		// Values are computed with the blueprint revision each Gateway runs: what moves
		// it is a new currentRevision or a rollout's assignment, not a spec edit.
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, r.coalesced(r.policiesNear), blueprintRunsOtherwise).
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
// own namespace, of its parent Gateways' namespaces and of the controller namespace.
func (r *PolicyReconciler) policiesNearRoute(ctx context.Context, obj client.Object) []reconcile.Request {
	route, ok := obj.(*gatewayv1.HTTPRoute)
	if !ok {
		return nil
	}
	namespaces := map[string]bool{route.Namespace: true, r.ControllerNamespace: true}
	for _, ref := range route.Spec.ParentRefs {
		if key, isGateway := attach.ParentGateway(route, ref); isGateway {
			namespaces[key.Namespace] = true
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
