package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/values"
)

// conditionProgrammed says how much of a policy took effect on an ancestor.
const conditionProgrammed = "Programmed"

// PolicyReconciler writes status.ancestors of GatewayClassConfigs or GatewayConfigs:
// per target, Accepted (Accepted, TargetNotFound, Invalid) and Programmed
// (Programmed, PartiallyProgrammed, Overridden, naming the policies that won).
type PolicyReconciler struct {
	client.Client
	ControllerNamespace string
	Blueprints          *render.Cache
	// Kind is GatewayClassConfig or GatewayConfig.
	Kind string

	shard shard
}

// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassconfigs/status;gatewayconfigs/status,verbs=get;update;patch

// policy is a GatewayClassConfig or a GatewayConfig, seen the same way.
type policy struct {
	object  client.Object
	targets []gatewayv1.LocalPolicyTargetReference
	blocks  *gatewrightv1alpha1.DefaultsAndOverrides
	status  *gatewayv1.PolicyStatus
}

func (r *PolicyReconciler) newObject() client.Object {
	if r.Kind == gatewrightv1alpha1.KindGatewayClassConfig {
		return &gatewrightv1alpha1.GatewayClassConfig{}
	}
	return &gatewrightv1alpha1.GatewayConfig{}
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

func (r *PolicyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := r.newObject()
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
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
		if old != nil {
			ancestor.Conditions = old.Conditions
		}
		accepted := r.accepted(ctx, obj, target)
		setPolicyCondition(&ancestor, obj, string(gatewayv1.PolicyConditionAccepted), accepted)
		programmed := verdict{reason: "Pending", message: "the target is not accepted"}
		switch {
		case accepted.ok && refused != nil:
			programmed = verdict{reason: string(gatewayv1.PolicyReasonInvalid), message: refused.Error()}
		case accepted.ok:
			reports, violations, err := r.reports(ctx, obj, target)
			if err != nil {
				return ctrl.Result{}, err
			}
			programmed = programmedVerdict(reports, violations)
		}
		setPolicyCondition(&ancestor, obj, conditionProgrammed, programmed)
		ancestors = append(ancestors, ancestor)
	}
	p.status.Ancestors = ancestors
	if equality.Semantic.DeepEqual(asPolicy(original).status, p.status) {
		return ctrl.Result{}, nil
	}
	err = r.Status().Patch(ctx, obj, r.shard.patchFrom(original))
	if statusRefused(err) {
		// Rather short messages than an older verdict left standing.
		for i := range p.status.Ancestors {
			p.status.Ancestors[i].Conditions = shortMessages(p.status.Ancestors[i].Conditions)
		}
		err = r.Status().Patch(ctx, obj, r.shard.patchFrom(original))
	}
	return ctrl.Result{}, err
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

// verdict is a condition's status, reason and message.
type verdict struct {
	ok      bool
	reason  string
	message string
}

func setPolicyCondition(ancestor *gatewayv1.PolicyAncestorStatus, obj client.Object, conditionType string, v verdict) {
	status := metav1.ConditionFalse
	if v.ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&ancestor.Conditions, metav1.Condition{
		Type: conditionType, Status: status, Reason: v.reason, Message: conditionMessage(v.message), ObservedGeneration: obj.GetGeneration(),
	})
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

// accepted checks the target exists and may be targeted by this policy.
func (r *PolicyReconciler) accepted(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference) verdict {
	notFound := func(format string, args ...any) verdict {
		return verdict{reason: string(gatewayv1.PolicyReasonTargetNotFound), message: fmt.Sprintf(format, args...)}
	}
	switch target.Kind {
	case "Namespace":
		if string(target.Name) != obj.GetNamespace() {
			return verdict{reason: string(gatewayv1.PolicyReasonInvalid), message: fmt.Sprintf("a Namespace target must name the policy's own namespace %s, not %s", obj.GetNamespace(), target.Name)}
		}
	case "GatewayClass":
		class := &gatewayv1.GatewayClass{}
		if err := r.Get(ctx, client.ObjectKey{Name: string(target.Name)}, class); err != nil || class.Spec.ControllerName != gatewrightv1alpha1.ControllerName {
			return notFound("no GatewayClass %s of Gatewright", target.Name)
		}
	case "Gateway":
		if err := r.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: string(target.Name)}, &gatewayv1.Gateway{}); err != nil {
			return notFound("no Gateway %s in namespace %s", target.Name, obj.GetNamespace())
		}
	case "HTTPRoute":
		if err := r.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: string(target.Name)}, &gatewayv1.HTTPRoute{}); err != nil {
			return notFound("no HTTPRoute %s in namespace %s", target.Name, obj.GetNamespace())
		}
	}
	return verdict{ok: true, reason: string(gatewayv1.PolicyReasonAccepted)}
}

// reports computes the values of every Gateway (or route) the target reaches and
// returns this policy's report from each, and the valuesSchema violations of values it set.
func (r *PolicyReconciler) reports(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference) (reports []values.PolicyReport, violations []string, err error) {
	gateways, err := r.gatewaysReached(ctx, obj, target)
	if err != nil {
		return nil, nil, err
	}
	source := values.Source{Kind: r.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	for i := range gateways {
		gw := &gateways[i]
		class := &gatewayv1.GatewayClass{}
		if err := r.Get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, class); err != nil || class.Spec.ControllerName != gatewrightv1alpha1.ControllerName {
			continue
		}
		routeNamespace := gw.Namespace
		var route *gatewayv1.HTTPRoute
		if target.Kind == "HTTPRoute" {
			route = &gatewayv1.HTTPRoute{}
			if err := r.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: string(target.Name)}, route); err != nil {
				continue
			}
			routeNamespace = route.Namespace
		}
		in, err := loadValueInputs(ctx, r.Client, r.ControllerNamespace, class, gw.Namespace, routeNamespace)
		if err != nil {
			continue // the Gateway reports a missing or broken blueprint itself
		}
		parsed, err := r.Blueprints.Get(in.Blueprint)
		if err != nil {
			continue // and so does a blueprint that does not parse
		}
		in.Schema = parsed.ValuesSchema()
		res, err := computeValues(in, gw, route)
		if res == nil {
			continue // the Gateway reports its values error itself
		}
		for _, report := range res.Policies {
			if report.Source == source {
				reports = append(reports, report)
			}
		}
		var schemaErr *values.SchemaError
		if errors.As(err, &schemaErr) {
			for _, v := range schemaErr.Violations {
				if v.SetBy != nil && v.SetBy.Source == source {
					violations = append(violations, fmt.Sprintf("%s: %s (Gateway %s/%s)", v.Path, v.Message, gw.Namespace, gw.Name))
				}
			}
		}
	}
	return reports, violations, nil
}

// computeValues returns the values of gw, or of route on it; a nil result when they
// cannot be computed. A schema violation yields the result too.
func computeValues(in values.Inputs, gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute) (*values.Result, error) {
	if route != nil {
		return in.ForHTTPRoute(gw, route)
	}
	return in.ForGateway(gw)
}

// gatewaysReached lists the Gateways whose values the target can reach.
func (r *PolicyReconciler) gatewaysReached(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference) ([]gatewayv1.Gateway, error) {
	var gateways gatewayv1.GatewayList
	switch target.Kind {
	case "GatewayClass":
		opts := []client.ListOption{client.MatchingFields{indexGatewayClassName: string(target.Name)}}
		if obj.GetNamespace() != r.ControllerNamespace {
			opts = append(opts, client.InNamespace(obj.GetNamespace()))
		}
		err := r.List(ctx, &gateways, opts...)
		return gateways.Items, err
	case "Namespace", "Gateway":
		if err := r.List(ctx, &gateways, client.InNamespace(obj.GetNamespace())); err != nil {
			return nil, err
		}
		if target.Kind == "Namespace" {
			return gateways.Items, nil
		}
		for _, gw := range gateways.Items {
			if gw.Name == string(target.Name) {
				return []gatewayv1.Gateway{gw}, nil
			}
		}
		return nil, nil
	case "HTTPRoute":
		route := &gatewayv1.HTTPRoute{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: obj.GetNamespace(), Name: string(target.Name)}, route); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		var out []gatewayv1.Gateway
		for _, ref := range route.Spec.ParentRefs {
			key, isGateway := attach.ParentGateway(route, ref)
			gw := &gatewayv1.Gateway{}
			if isGateway && r.Get(ctx, key, gw) == nil {
				out = append(out, *gw)
			}
		}
		return out, nil
	}
	return nil, nil
}

// programmedVerdict sums up the reports of one policy over the Gateways it reaches. A
// value the blueprint's valuesSchema refuses stops the Gateway from rendering at all, so
// it outweighs everything else.
func programmedVerdict(reports []values.PolicyReport, violations []string) verdict {
	if len(violations) > 0 {
		return verdict{reason: string(gatewayv1.PolicyReasonInvalid), message: "refused by the blueprint's valuesSchema: " + strings.Join(violations, "; ")}
	}
	if len(reports) == 0 {
		return verdict{reason: "Pending", message: "no Gateway of Gatewright takes values from this target yet"}
	}
	overridden, programmed := 0, 0
	winners := map[string]bool{}
	for _, report := range reports {
		switch report.State() {
		case values.Enforced:
			programmed++
		case values.Overridden:
			overridden++
		}
		for _, by := range report.OverriddenBy() {
			winners[by.String()] = true
		}
	}
	by := make([]string, 0, len(winners))
	for w := range winners {
		by = append(by, w)
	}
	sort.Strings(by)
	switch {
	case programmed == len(reports):
		return verdict{ok: true, reason: conditionProgrammed, message: fmt.Sprintf("in effect on %d Gateway(s) or route(s)", len(reports))}
	case overridden == len(reports):
		return verdict{reason: string(values.Overridden), message: "every value is overridden by " + orItself(by)}
	default:
		return verdict{ok: true, reason: "PartiallyProgrammed", message: "some values are overridden by " + orItself(by)}
	}
}

func orItself(by []string) string {
	if len(by) == 0 {
		return "the policy's own overrides"
	}
	return strings.Join(by, ", ")
}

func (r *PolicyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(r.newObject(), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(r.policiesNear), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, handler.EnqueueRequestsFromMapFunc(r.policiesNear), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewayv1.Gateway{}, handler.EnqueueRequestsFromMapFunc(r.policiesNear), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewayv1.HTTPRoute{}, handler.EnqueueRequestsFromMapFunc(r.policiesNear), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewayv1.GatewayClass{}, handler.EnqueueRequestsFromMapFunc(r.policiesNear), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, handler.EnqueueRequestsFromMapFunc(r.policiesNear), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named(strings.ToLower(r.Kind)).
		Complete(r)
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
	return requestsFor(names)
}
