package devcloud

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// loadBalancerAllocator gives every LoadBalancer Service without an ingress address the
// lowest free address of pool, as a cloud controller manager would.
type loadBalancerAllocator struct {
	client client.Client
	// reader lists Services from the API server, not the cache, so that an address
	// assigned a moment ago is never handed out twice.
	reader client.Reader
	pool   netip.Prefix
}

// testNet2 is 198.51.100.0/24, reserved for documentation: nothing routes to it.
func testNet2() netip.Prefix {
	return netip.MustParsePrefix("198.51.100.0/24")
}

func (a *loadBalancerAllocator) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("devcloud-loadbalancer").
		For(&corev1.Service{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(obj client.Object) bool {
			return obj.(*corev1.Service).Spec.Type == corev1.ServiceTypeLoadBalancer
		}))).
		// One worker, so that two Services never receive the same address.
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(a)
}

func (a *loadBalancerAllocator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var svc corev1.Service
	if err := a.client.Get(ctx, req.NamespacedName, &svc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || len(svc.Status.LoadBalancer.Ingress) > 0 {
		return ctrl.Result{}, nil
	}
	addr, err := a.free(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	patch := client.MergeFrom(svc.DeepCopy())
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: addr.String()}}
	err = a.client.Status().Patch(ctx, &svc, patch, client.FieldOwner(FieldOwner))
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, err
}

// free returns the lowest address of the pool that no Service holds.
func (a *loadBalancerAllocator) free(ctx context.Context) (netip.Addr, error) {
	var services corev1.ServiceList
	if err := a.reader.List(ctx, &services); err != nil {
		return netip.Addr{}, err
	}
	used := map[netip.Addr]bool{}
	for _, svc := range services.Items {
		for _, ingress := range svc.Status.LoadBalancer.Ingress {
			if addr, err := netip.ParseAddr(ingress.IP); err == nil {
				used[addr] = true
			}
		}
	}
	// Skip the network address.
	for addr := a.pool.Addr().Next(); a.pool.Contains(addr); addr = addr.Next() {
		if !used[addr] {
			return addr, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("every address of %s is in use", a.pool)
}
