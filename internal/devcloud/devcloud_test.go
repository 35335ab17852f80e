package devcloud

import (
	"context"
	"testing"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/gatewright/gatewright/internal/scheme"
)

func TestRolledOutDeploymentIsCurrentForKstatus(t *testing.T) {
	deployment := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "proxy", Namespace: "team-a", Generation: 4},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](3), ProgressDeadlineSeconds: ptr.To[int32](600)},
	}
	deployment.Status = rolledOut(deployment)
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(deployment)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.CurrentStatus {
		t.Errorf("kstatus says %s (%s), want Current", res.Status, res.Message)
	}
	if !deploymentStatusEqual(deployment.Status, rolledOut(deployment)) {
		t.Error("a rolled-out Deployment would be written again")
	}
	deployment.Generation++
	if deploymentStatusEqual(deployment.Status, rolledOut(deployment)) {
		t.Error("a new generation would not be rolled out")
	}
}

func TestLoadBalancerAddressesAreUniqueAndSkipTheNetworkAddress(t *testing.T) {
	ctx := context.Background()
	taken := loadBalancer("taken", "198.51.100.1")
	first, second := loadBalancer("first", ""), loadBalancer("second", "")
	clusterIP := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "internal", Namespace: "team-a"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}}
	k8s := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(taken, first, second, clusterIP).WithStatusSubresource(&corev1.Service{}).Build()
	allocator := &loadBalancerAllocator{client: k8s, reader: k8s, pool: testNet2()}

	for _, svc := range []*corev1.Service{first, second, clusterIP} {
		if _, err := allocator.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)}); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"taken": "198.51.100.1", "first": "198.51.100.2", "second": "198.51.100.3", "internal": ""} {
		var svc corev1.Service
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: name}, &svc); err != nil {
			t.Fatal(err)
		}
		got := ""
		if ingress := svc.Status.LoadBalancer.Ingress; len(ingress) > 0 {
			got = ingress[0].IP
		}
		if got != want {
			t.Errorf("Service %s has address %q, want %q", name, got, want)
		}
	}
}

func loadBalancer(name, ip string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
	}
	if ip != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	}
	return svc
}
