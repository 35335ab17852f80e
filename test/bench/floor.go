package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sync"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// The floor is the purpose-built controller of issue 14 that Gatewright is compared
// with: no templates, no values, no inventory. It watches the Gateways of the bench
// class and, once per generation, server-side applies the same five children as the
// bench blueprint renders and patches the Gateway's status once, with what the Gateway
// API asks of every implementation (floorStatus): 6 writes per Gateway; and writes each
// policy's status once per generation, as GEP-713 asks (floor_policies.go).
// 16 workers, no client-side rate limit. What it takes is what this API server allows
// for this work.
const (
	floorWorkers      = 16
	floorFieldManager = "bench-floor"
	// floorCommand is the first argument that makes the harness binary the floor.
	floorCommand = "floor-controller"
	// floorControllerName names the floor's controller in its metrics.
	floorControllerName = "floor"
	// cacheChildrenFlag makes the floor cache the children it applies
	// (-floor-caches-children).
	cacheChildrenFlag = "--cache-children"
)

// runFloor runs the floor against the cluster of $KUBECONFIG until ctx ends; args may
// give the addresses of its metrics endpoint (metricsFlag) and of its /readyz, a ping as
// Gatewright's is (probeFlag).
func runFloor(ctx context.Context, args []string) error {
	metrics, probes := "0", "0"
	if address := flagValue(args, metricsFlag); address != "" {
		metrics = address
	}
	if address := flagValue(args, probeFlag); address != "" {
		probes = address
	}
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel), zap.WriteTo(os.Stderr)))
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	cfg.QPS = -1 // no client-side rate limit
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme.New(),
		Metrics:                metricsserver.Options{BindAddress: metrics},
		HealthProbeBindAddress: probes,
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&gatewayv1.Gateway{}: {},
			// Only the change (floor_change.go), not the children.
			&corev1.ConfigMap{}: {
				Namespaces: map[string]cache.Config{controllerNamespace: {}},
				Field:      fields.OneTermEqualSelector("metadata.name", floorChangeName),
			},
		}},
	})
	if err != nil {
		return err
	}
	ofBenchClass := predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return obj.(*gatewayv1.Gateway).Spec.GatewayClassName == benchClass
	})
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	f := &floor{Client: mgr.GetClient()}
	gateways := ctrl.NewControllerManagedBy(mgr).
		Named(floorControllerName).
		For(&gatewayv1.Gateway{}, builder.WithPredicates(ofBenchClass, predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: floorWorkers})
	if slices.Contains(args, routesFlag) {
		f.routes = newFloorRoutes()
		gateways = gateways.Watches(&gatewayv1.HTTPRoute{}, f.routes.pace.handler())
		if err := watchFloorRoutes(mgr, f); err != nil {
			return err
		}
	}
	if err := gateways.Complete(f); err != nil {
		return err
	}
	if err := watchFloorChanges(mgr, f); err != nil {
		return err
	}
	if err := watchFloorPolicies(mgr, f); err != nil {
		return err
	}
	if slices.Contains(args, cacheChildrenFlag) {
		if err := cacheFloorChildren(ctx, mgr); err != nil {
			return err
		}
	}
	return mgr.Start(ctx)
}

// cacheFloorChildren has the floor hold in a cache of its own (the manager's caches only
// one ConfigMap, the change's) every ConfigMap, Secret and Service with Gatewright's
// managed-by label, as Gatewright's cache does: the same objects, the same memory.
func cacheFloorChildren(ctx context.Context, mgr ctrl.Manager) error {
	managed, err := labels.Parse(gatewrightv1alpha1.LabelManagedBy + "=" + gatewrightv1alpha1.ManagedByValue)
	if err != nil {
		return err
	}
	children, err := cache.New(mgr.GetConfig(), cache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), DefaultLabelSelector: managed})
	if err != nil {
		return err
	}
	for _, kind := range []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}, &corev1.Service{}} {
		if _, err := children.GetInformer(ctx, kind); err != nil {
			return err
		}
	}
	return mgr.Add(children)
}

type floor struct {
	client.Client

	mu     sync.Mutex
	change floorChange // the change the harness made, if any (floor_change.go)
	// routes is what the floor remembers in the routes shape (floor_routes.go); nil in
	// the others.
	routes *floorRoutes
}

func (f *floor) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	gw := &gatewayv1.Gateway{}
	if err := f.Get(ctx, req.NamespacedName, gw); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	f.mu.Lock()
	change := f.change
	f.mu.Unlock()
	children := floorChildren(gw, change)
	var routes []*gatewayv1.HTTPRoute
	if f.routes != nil {
		var err error
		if routes, err = f.routesOf(ctx, gw); err != nil {
			return ctrl.Result{}, err
		}
		for _, obj := range children {
			if obj.GetLabels()[gatewrightv1alpha1.LabelTemplate] == routesTemplate {
				obj.Object["data"] = map[string]any{routesKey: routeLines(routes)}
			}
		}
	}
	var clusterIP string
	for _, a := range gw.Status.Addresses {
		clusterIP = a.Value // what the floor wrote, kept while the Service is not applied again
	}
	for _, obj := range children {
		applied := func() {}
		if f.routes != nil {
			var unchanged bool
			if unchanged, applied = f.routes.unchanged(gw, obj); unchanged {
				continue
			}
		}
		if err := f.applyChild(ctx, gw, obj); err != nil {
			return ctrl.Result{}, err
		}
		applied()
		if obj.GetKind() == "Service" {
			clusterIP, _, _ = unstructured.NestedString(obj.Object, "spec", "clusterIP")
		}
	}
	original := gw.DeepCopy()
	floorStatus(gw, clusterIP)
	if f.routes != nil {
		attachRoutes(gw, routes)
		if equality.Semantic.DeepEqual(original.Status, gw.Status) {
			return ctrl.Result{}, nil
		}
	}
	return ctrl.Result{}, f.Status().Patch(ctx, gw, client.MergeFrom(original))
}

// floorStatus sets the status the Gateway API asks of every implementation, as
// Gatewright writes it for a bench Gateway: the address, Accepted and Programmed, and
// per listener its route kinds, attached routes and Accepted, ResolvedRefs and
// Programmed (Conflicted left out, as no listener conflicts).
func floorStatus(gw *gatewayv1.Gateway, clusterIP string) {
	gw.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Type: ptr.To(gatewayv1.IPAddressType), Value: clusterIP}}
	setTrue(&gw.Status.Conditions, gw.Generation, string(gatewayv1.GatewayConditionAccepted), string(gatewayv1.GatewayReasonAccepted))
	setTrue(&gw.Status.Conditions, gw.Generation, string(gatewayv1.GatewayConditionProgrammed), string(gatewayv1.GatewayReasonProgrammed))
	listeners := make([]gatewayv1.ListenerStatus, len(gw.Spec.Listeners))
	for i, l := range gw.Spec.Listeners {
		status := gatewayv1.ListenerStatus{Name: l.Name, SupportedKinds: []gatewayv1.RouteGroupKind{{Group: ptr.To(gatewayv1.Group(gatewayv1.GroupName)), Kind: "HTTPRoute"}}}
		for _, c := range gw.Status.Listeners {
			if c.Name == l.Name {
				status.Conditions = c.Conditions
			}
		}
		setTrue(&status.Conditions, gw.Generation, string(gatewayv1.ListenerConditionAccepted), string(gatewayv1.ListenerReasonAccepted))
		setTrue(&status.Conditions, gw.Generation, string(gatewayv1.ListenerConditionResolvedRefs), string(gatewayv1.ListenerReasonResolvedRefs))
		setTrue(&status.Conditions, gw.Generation, string(gatewayv1.ListenerConditionProgrammed), string(gatewayv1.ListenerReasonProgrammed))
		listeners[i] = status
	}
	gw.Status.Listeners = listeners
}

func setTrue(conditions *[]metav1.Condition, generation int64, conditionType, reason string) {
	setCondition(conditions, generation, conditionType, metav1.ConditionTrue, reason)
}

func setCondition(conditions *[]metav1.Condition, generation int64, conditionType string, status metav1.ConditionStatus, reason string) {
	meta.SetStatusCondition(conditions, metav1.Condition{Type: conditionType, Status: status, Reason: reason, ObservedGeneration: generation})
}

// applyChild server-side applies obj, owned by gw.
func (f *floor) applyChild(ctx context.Context, gw *gatewayv1.Gateway, obj *unstructured.Unstructured) error {
	obj.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: gatewayv1.GroupVersion.String(), Kind: "Gateway", Name: gw.Name, UID: gw.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}})
	return f.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(floorFieldManager), client.ForceOwnership)
}

// floorChildren are the objects the bench blueprint renders for gw, with the values its
// policies give (workload.go) after change, built without templates: the same names,
// labels and data, the bootstrap ConfigMap first, the Service last.
func floorChildren(gw *gatewayv1.Gateway, change floorChange) []*unstructured.Unstructured {
	name := gw.Name + "-proxy"
	valueLabels := map[string]string{"tier": "bench", "managed": "platform", "team": gw.Namespace}
	listeners := map[string]any{}
	var ports []any
	for _, l := range gw.Spec.Listeners {
		listeners[string(l.Name)] = fmt.Sprint(l.Port)
		ports = append(ports, map[string]any{"name": string(l.Name), "port": int64(l.Port)})
	}
	bootstrap := map[string]any{"image": "envoyproxy/envoy:v1.36.2", "replicas": "2"}
	if change.reaches(gw.Namespace) {
		for k, v := range change.Bootstrap {
			bootstrap[k] = v
		}
	}
	sum := sha256.Sum256([]byte(gw.Namespace + "/" + gw.Name))
	objs := []*unstructured.Unstructured{
		child(gw, "v1", "ConfigMap", name+"-bootstrap", "bootstrap", valueLabels, map[string]any{"data": bootstrap}),
		child(gw, "v1", "ConfigMap", name+"-listeners", "listeners", nil, map[string]any{"data": listeners}),
		child(gw, "v1", "ConfigMap", name+"-routes", "routes", nil, map[string]any{"data": map[string]any{"count": "0"}}),
		child(gw, "v1", "Secret", name+"-token", "token", nil, map[string]any{
			"type": "Opaque",
			"data": map[string]any{"token": base64.StdEncoding.EncodeToString([]byte(hex.EncodeToString(sum[:])))},
		}),
		child(gw, "v1", "Service", name, "service", valueLabels, map[string]any{
			"spec": map[string]any{"type": "ClusterIP", "selector": map[string]any{"app": name}, "ports": ports},
		}),
	}
	return objs
}

// child is one object of gw with Gatewright's labels, the template's own labels, and
// the given top-level fields.
func child(gw *gatewayv1.Gateway, apiVersion, kind, name, template string, labels map[string]string, fields map[string]any) *unstructured.Unstructured {
	all := map[string]any{
		gatewrightv1alpha1.LabelManagedBy:        gatewrightv1alpha1.ManagedByValue,
		gatewayv1.GatewayNameLabelKey:            gw.Name,
		gatewayv1.GatewayClassNameLabelKey:       string(gw.Spec.GatewayClassName),
		gatewrightv1alpha1.LabelGatewayNamespace: gw.Namespace,
		gatewrightv1alpha1.LabelTemplate:         template,
	}
	for k, v := range labels {
		all[k] = v
	}
	obj := &unstructured.Unstructured{Object: fields}
	obj.SetAPIVersion(apiVersion)
	obj.SetKind(kind)
	obj.SetNamespace(gw.Namespace)
	obj.SetName(name)
	obj.Object["metadata"].(map[string]any)["labels"] = all
	return obj
}
