package controllers

import (
	"context"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
)

// NamespaceReconciler sets the gatewright.dev/...Affected conditions on Namespaces that
// policies target, as GEP-713 asks of every object a policy affects. Policies target
// only their own Namespace, so a Namespace's conditions depend on its own policies.
type NamespaceReconciler struct {
	client.Client

	shard shard
}

// +kubebuilder:rbac:groups="",resources=namespaces/status,verbs=get;update;patch

func (r *NamespaceReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, req.NamespacedName, ns); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// One instance writes them, as for the ancestors of policies without a Gateway.
	if primary, err := r.shard.primary(ctx, r.Client); err != nil || !primary {
		return ctrl.Result{}, err
	}
	classConfigs, err := policiesTargeting(ctx, r.Client, ns.Name, &gatewrightv1alpha1.GatewayClassConfigList{})
	if err != nil {
		return ctrl.Result{}, err
	}
	configs, err := policiesTargeting(ctx, r.Client, ns.Name, &gatewrightv1alpha1.GatewayConfigList{})
	if err != nil {
		return ctrl.Result{}, err
	}
	original := *ns.Status.DeepCopy()
	setNamespaceAffected(ns, gatewrightv1alpha1.ConditionGatewayClassConfigAffected, gatewrightv1alpha1.KindGatewayClassConfig, classConfigs)
	setNamespaceAffected(ns, gatewrightv1alpha1.ConditionGatewayConfigAffected, gatewrightv1alpha1.KindGatewayConfig, configs)
	// Its messages are bounded and few: there is nothing shorter to write.
	same := func(status corev1.NamespaceStatus) corev1.NamespaceStatus { return status }
	return ctrl.Result{}, ctrlutil.WriteStatus(ctx, r.Client, ns, original, ns.Status, same, ctrlutil.OptimisticLock(ns))
}

// setNamespaceAffected sets conditionType True naming the policies of kind, or removes
// it when there are none. Namespaces carry corev1.NamespaceConditions, which have no
// observedGeneration.
func setNamespaceAffected(ns *corev1.Namespace, conditionType, kind string, names []string) {
	var kept []corev1.NamespaceCondition
	var old *corev1.NamespaceCondition
	for i := range ns.Status.Conditions {
		if string(ns.Status.Conditions[i].Type) == conditionType {
			old = &ns.Status.Conditions[i]
			continue
		}
		kept = append(kept, ns.Status.Conditions[i])
	}
	if len(names) == 0 {
		ns.Status.Conditions = kept
		return
	}
	condition := corev1.NamespaceCondition{
		Type: corev1.NamespaceConditionType(conditionType), Status: corev1.ConditionTrue, Reason: "Affected",
		Message: conditions.Message("targeted by " + kind + " " + strings.Join(names, ", ")),
	}
	condition.LastTransitionTime = metav1.Now()
	if old != nil {
		if old.Status == condition.Status && old.Reason == condition.Reason && old.Message == condition.Message {
			return
		}
		if old.Status == condition.Status {
			condition.LastTransitionTime = old.LastTransitionTime
		}
	}
	ns.Status.Conditions = append(kept, condition)
	sort.Slice(ns.Status.Conditions, func(i, j int) bool { return ns.Status.Conditions[i].Type < ns.Status.Conditions[j].Type })
}

// namespaceOfPolicy maps a policy to its own Namespace, the only one it may target.
func namespaceOfPolicy(_ context.Context, obj client.Object) []reconcile.Request {
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: obj.GetNamespace()}}}
}

func (r *NamespaceReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("namespace").
		// A Namespace's own changes matter only to the conditions Gatewright writes.
		For(&corev1.Namespace{}, builder.WithPredicates(predicate.Funcs{
			CreateFunc:  func(event.CreateEvent) bool { return true },
			UpdateFunc:  func(event.UpdateEvent) bool { return false },
			DeleteFunc:  func(event.DeleteEvent) bool { return false },
			GenericFunc: func(event.GenericEvent) bool { return false },
		})).
		// What a policy targets is in its spec: the writes of its status (one per Gateway
		// its namespace gains) change nothing here.
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, handler.EnqueueRequestsFromMapFunc(namespaceOfPolicy), ctrlutil.SpecChanged).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, handler.EnqueueRequestsFromMapFunc(namespaceOfPolicy), ctrlutil.SpecChanged).
		Complete(ctrlutil.RetryingConflicts(r, staleRecord))
}

// policiesTargeting lists, sorted by namespace/name, the policies in list (a
// GatewayClassConfigList or a GatewayConfigList) of namespace that target it. It reads
// the cache without copies: a tenant's policies may be many and large, and only their
// targets are read.
func policiesTargeting(ctx context.Context, r client.Reader, namespace string, list client.ObjectList) ([]string, error) {
	if err := r.List(ctx, list, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	var names []string
	_ = meta.EachListItem(list, func(item runtime.Object) error { // the func never fails
		if p := asPolicy(item.(client.Object)); targetsNamespace(p.targets, namespace) {
			names = append(names, p.object.GetNamespace()+"/"+p.object.GetName())
		}
		return nil
	})
	sort.Strings(names)
	return names, nil
}

func targetsNamespace(refs []gatewayv1.LocalPolicyTargetReference, namespace string) bool {
	for _, ref := range refs {
		if ref.Group == "" && ref.Kind == "Namespace" && string(ref.Name) == namespace {
			return true
		}
	}
	return false
}
