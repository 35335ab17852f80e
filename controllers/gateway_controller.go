package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
)

// gatewayFinalizer holds a Gateway until the objects rendered for it are deleted.
const gatewayFinalizer = "gatewright.dev/cleanup"

// GatewayReconciler renders and applies the blueprint of each Gateway of Gatewright's
// classes, and reports its status.
type GatewayReconciler struct {
	client.Client
	Applier             *apply.Applier
	Blueprints          *render.Cache
	Recorder            record.EventRecorder
	ControllerNamespace string

	shard   shard
	watches *objectWatches
}

// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways/finalizers,verbs=update
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch
// +kubebuilder:rbac:groups=gatewright.dev,resources=gatewayclassconfigs;gatewayconfigs,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

func (r *GatewayReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	gw := &gatewayv1.Gateway{}
	if err := r.Get(ctx, req.NamespacedName, gw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	class, err := getClass(ctx, r.Client, string(gw.Spec.GatewayClassName))
	if err != nil {
		return ctrl.Result{}, err
	}
	owner := r.shard.ownership(class)
	if owner == ownedElsewhere {
		return ctrl.Result{}, nil // another shard programs it, and cleans up after it
	}
	inventory, err := apply.DecodeInventory(gw.Annotations[apply.InventoryAnnotation])
	if err != nil {
		return ctrl.Result{}, err
	}
	if owner == unowned || !gw.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.cleanUp(ctx, gw, inventory)
	}
	if err := ensureFinalizer(ctx, r.Client, gw); err != nil {
		return ctrl.Result{}, err
	}

	status := newGatewayStatus(gw)
	defer func() { err = errors.Join(err, r.patchStatus(ctx, gw, status)) }()

	in, err := r.loadInputs(ctx, gw, class)
	if err != nil {
		return status.fail(err)
	}
	status.accepted()
	status.attach(in.routes, in.attached)

	out, err := r.render(ctx, gw, in, inventory, status)
	if err != nil {
		r.Recorder.Event(gw, "Warning", "RenderFailed", err.Error())
		return status.invalid(err)
	}
	start := time.Now()
	applied, err := r.Applier.Apply(ctx, gatewayOwner(gw), out.Objects, inventory, keepWaiting(out.Waiting))
	countApply(metrics.KindGateway, start, applied, err)
	if err != nil {
		r.Recorder.Event(gw, "Warning", "ApplyFailed", err.Error())
		return status.applyFailed(err)
	}
	r.recordChanges(gw, applied)
	if err := r.saveInventory(ctx, gw, applied.Applied.Union(kept(inventory, out.Waiting))); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.watches.ensure(ctx, out.Objects); err != nil {
		return ctrl.Result{}, err
	}
	notReady, err := r.notReady(ctx, applied.Applied)
	if err != nil {
		return ctrl.Result{}, err
	}
	status.programmed(out, notReady)
	return ctrl.Result{}, nil
}

// render computes the values and renders the blueprint, with the live objects of the
// Gateway's inventory as .Resources.
func (r *GatewayReconciler) render(ctx context.Context, gw *gatewayv1.Gateway, in *gatewayInputs, inventory apply.Inventory, status *gatewayStatus) (_ *render.Output, err error) {
	defer func() { countRender(metrics.KindGateway, in.values.Blueprint.Name, err) }()
	parsed, err := r.Blueprints.Get(in.values.Blueprint)
	if err != nil {
		// A blueprint that does not parse cannot be used: the Gateway is not accepted.
		return nil, &invalidParametersError{message: err.Error(), cause: err}
	}
	in.values.Schema = parsed.ValuesSchema()
	start := time.Now()
	vals, err := in.values.ForGateway(gw)
	observeSince(metrics.ValuesMergeDuration, metrics.KindGateway, start)
	if vals != nil {
		status.affected(vals.Policies)
	}
	if err != nil {
		return nil, err
	}
	live, err := r.Applier.Live(ctx, inventory)
	if err != nil {
		return nil, err
	}
	start = time.Now()
	defer observeSince(metrics.RenderDuration, metrics.KindGateway, start)
	return parsed.Gateway(render.Input{
		Values:       vals.Values,
		Gateway:      gw,
		GatewayClass: in.class,
		HTTPRoutes:   in.routes,
		Live:         live,
		IsReady:      apply.Ready,
		IsNamespaced: namespacedBy(r.Client),
	})
}

// notReady lists the applied objects that are not ready yet.
func (r *GatewayReconciler) notReady(ctx context.Context, inv apply.Inventory) ([]string, error) {
	live, err := r.Applier.Live(ctx, inv)
	if err != nil {
		return nil, err
	}
	found := 0
	var waiting []string
	for _, objs := range live {
		for _, obj := range objs {
			found++
			if !apply.Ready(obj) {
				waiting = append(waiting, obj.GetKind()+" "+client.ObjectKeyFromObject(obj).String())
			}
		}
	}
	if found < len(inv) {
		waiting = append(waiting, fmt.Sprintf("%d object(s) not yet seen", len(inv)-found))
	}
	return waiting, nil
}

func (r *GatewayReconciler) recordChanges(gw *gatewayv1.Gateway, applied *apply.Result) {
	if len(applied.Changed) > 0 {
		r.Recorder.Event(gw, "Normal", "Applied", "applied "+strings.Join(applied.Changed, ", "))
	}
	if len(applied.Pruned) > 0 {
		r.Recorder.Event(gw, "Normal", "Pruned", "deleted what is no longer rendered: "+strings.Join(applied.Pruned, ", "))
	}
}

// cleanUp deletes what was rendered for a Gateway that is going away or no longer of
// Gatewright's classes, then lets go of it. When no instance implements the class any
// more, every instance may do this at once: deletes are guarded by the owner's labels and
// all of them remove the same finalizer, so they agree.
func (r *GatewayReconciler) cleanUp(ctx context.Context, gw *gatewayv1.Gateway, inventory apply.Inventory) error {
	if !controllerutil.ContainsFinalizer(gw, gatewayFinalizer) && len(inventory) == 0 {
		return nil
	}
	deleted, err := r.Applier.DeleteAll(ctx, gatewayOwner(gw), inventory)
	countCleanup(metrics.KindGateway, deleted)
	if err != nil {
		return err
	}
	if len(deleted) > 0 {
		log.FromContext(ctx).Info("deleted the objects rendered for the Gateway", "objects", len(deleted))
	}
	original := gw.DeepCopy()
	controllerutil.RemoveFinalizer(gw, gatewayFinalizer)
	delete(gw.Annotations, apply.InventoryAnnotation)
	return client.IgnoreNotFound(r.Patch(ctx, gw, client.MergeFrom(original)))
}

// saveInventory records what is applied for gw, when it changed.
func (r *GatewayReconciler) saveInventory(ctx context.Context, gw *gatewayv1.Gateway, inv apply.Inventory) error {
	encoded := inv.Encode()
	if gw.Annotations[apply.InventoryAnnotation] == encoded {
		return nil
	}
	original := gw.DeepCopy()
	setAnnotation(gw, apply.InventoryAnnotation, encoded)
	return r.Patch(ctx, gw, client.MergeFrom(original))
}

// gatewayOwner is the apply.Owner of a Gateway's objects.
func gatewayOwner(gw *gatewayv1.Gateway) apply.Owner {
	return apply.Owner{
		Object: gw,
		GVK:    gatewayv1.SchemeGroupVersion.WithKind("Gateway"),
		Labels: map[string]string{
			gatewayv1.GatewayNameLabelKey:            gw.Name,
			gatewrightv1alpha1.LabelGatewayNamespace: gw.Namespace,
		},
	}
}

// keepWaiting keeps the objects of templates that wait for a dependency: they were
// rendered before and are not gone, only not rendered this round.
func keepWaiting(waiting []render.Waiting) func(apply.Entry) bool {
	return func(e apply.Entry) bool {
		for _, w := range waiting {
			if w.Template == e.Template {
				return true
			}
		}
		return false
	}
}

func kept(inv apply.Inventory, waiting []render.Waiting) apply.Inventory {
	keep := keepWaiting(waiting)
	var out apply.Inventory
	for _, e := range inv {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func (r *GatewayReconciler) SetupWithManager(mgr ctrl.Manager) error {
	c, err := ctrl.NewControllerManagedBy(mgr).
		For(&gatewayv1.Gateway{}, gatewayPredicates()).
		Watches(&gatewayv1.GatewayClass{}, mapTo(r.gatewaysOfClass)).
		Watches(&gatewrightv1alpha1.GatewayClassBlueprint{}, mapTo(r.gatewaysOfBlueprint)).
		Watches(&gatewrightv1alpha1.GatewayClassConfig{}, mapTo(r.gatewaysOfClassConfig)).
		Watches(&gatewrightv1alpha1.GatewayConfig{}, mapTo(r.gatewaysInNamespaceOf)).
		Watches(&gatewayv1.HTTPRoute{}, mapTo(r.gatewaysOfRoute)).
		Watches(&corev1.Namespace{}, mapTo(r.allGateways), builder.WithPredicates(predicate.LabelChangedPredicate{})).
		Named("gateway").
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Build(r)
	if err != nil {
		return err
	}
	r.watches = newObjectWatches(c, mgr.GetCache(), r.gatewayOfObject)
	return nil
}
