package conformance

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/gatewright/gatewright/internal/devcloud"
)

// standInOwner is the field manager of everything the stand-in writes.
const standInOwner = "gatewright-conformance-kubelet"

// SetupKubeletStandIn registers, with a manager whose cache sees every Deployment and Pod,
// what a bare kube-apiserver lacks for the suite's setup to pass: the deployment
// controller (a Pod per replica), a kubelet (every Pod Running and Ready, no container
// runs) and devcloud's node simulation (every Deployment available). The suite's echo
// backends never serve anything; only status-only tests are meant to run here.
func SetupKubeletStandIn(mgr ctrl.Manager) error {
	if err := devcloud.Setup(mgr); err != nil {
		return err
	}
	if err := ctrl.NewControllerManagedBy(mgr).Named("conformance-replicas").
		For(&appsv1.Deployment{}).Complete(&replicaStandIn{client: mgr.GetClient()}); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).Named("conformance-kubelet").
		For(&corev1.Pod{}).Complete(&kubeletStandIn{client: mgr.GetClient()})
}

// replicaStandIn creates a Pod per replica of a Deployment, named as a ReplicaSet's pods
// are, <deployment>-<hash>-<suffix>: the conformance suite takes a Pod's name less its
// last two parts for the backend that answered (HTTPRouteWeight counts them).
type replicaStandIn struct{ client client.Client }

func (r *replicaStandIn) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var d appsv1.Deployment
	if err := r.client.Get(ctx, req.NamespacedName, &d); err != nil || d.DeletionTimestamp != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// No controller-manager creates the default ServiceAccount that Pods are admitted with.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: d.Namespace, Name: "default"}}
	if err := r.client.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, err
	}
	for i := range ptr.Deref(d.Spec.Replicas, 1) {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: d.Namespace, Name: fmt.Sprintf("%s-standin-%d", d.Name, i),
				Labels: d.Spec.Template.Labels, Annotations: d.Spec.Template.Annotations,
			},
			Spec: *d.Spec.Template.Spec.DeepCopy(),
		}
		if err := controllerutil.SetControllerReference(&d, pod, r.client.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.client.Create(ctx, pod, client.FieldOwner(standInOwner)); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// kubeletStandIn reports every Pod as Running and Ready.
type kubeletStandIn struct{ client client.Client }

func (k *kubeletStandIn) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var pod corev1.Pod
	if err := k.client.Get(ctx, req.NamespacedName, &pod); err != nil || pod.DeletionTimestamp != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pod.Status.Phase == corev1.PodRunning {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(pod.DeepCopy())
	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.HostIP = "192.0.2.1"
	pod.Status.PodIP = "192.0.2.2"
	pod.Status.PodIPs = []corev1.PodIP{{IP: pod.Status.PodIP}}
	pod.Status.StartTime = &now
	pod.Status.Conditions = nil
	for _, t := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now})
	}
	err := k.client.Status().Patch(ctx, &pod, patch, client.FieldOwner(standInOwner))
	return ctrl.Result{}, client.IgnoreNotFound(err)
}
