package devcloud

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// nodeSimulator reports every Deployment as rolled out and available, as the deployment
// controller would once a kubelet had started its Pods. No Pod is created.
type nodeSimulator struct {
	client client.Client
}

func (s *nodeSimulator) setup(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("devcloud-node").
		For(&appsv1.Deployment{}).
		Complete(s)
}

func (s *nodeSimulator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var deployment appsv1.Deployment
	if err := s.client.Get(ctx, req.NamespacedName, &deployment); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := rolledOut(&deployment)
	if deploymentStatusEqual(deployment.Status, want) {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(deployment.DeepCopy())
	deployment.Status = want
	err := s.client.Status().Patch(ctx, &deployment, patch, client.FieldOwner(FieldOwner))
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, err
}

// rolledOut is the status of d once every replica of its current generation is available.
func rolledOut(d *appsv1.Deployment) appsv1.DeploymentStatus {
	replicas := ptr.Deref(d.Spec.Replicas, 1)
	since := d.CreationTimestamp
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			since = c.LastTransitionTime
		}
	}
	return appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation,
		Replicas:           replicas,
		UpdatedReplicas:    replicas,
		ReadyReplicas:      replicas,
		AvailableReplicas:  replicas,
		Conditions: []appsv1.DeploymentCondition{
			{
				Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
				Reason: "MinimumReplicasAvailable", Message: "Simulated by gatewright dev: no Pods run here.",
				LastUpdateTime: since, LastTransitionTime: since,
			},
			{
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
				Reason: "NewReplicaSetAvailable", Message: "Simulated by gatewright dev: no Pods run here.",
				LastUpdateTime: since, LastTransitionTime: since,
			},
		},
	}
}

// deploymentStatusEqual compares what rolledOut sets, so that the simulation writes once
// per generation.
func deploymentStatusEqual(got, want appsv1.DeploymentStatus) bool {
	if got.ObservedGeneration != want.ObservedGeneration || got.Replicas != want.Replicas ||
		got.UpdatedReplicas != want.UpdatedReplicas || got.ReadyReplicas != want.ReadyReplicas ||
		got.AvailableReplicas != want.AvailableReplicas || len(got.Conditions) != len(want.Conditions) {
		return false
	}
	for i := range want.Conditions {
		g, w := got.Conditions[i], want.Conditions[i]
		if g.Type != w.Type || g.Status != w.Status || g.Reason != w.Reason {
			return false
		}
	}
	return true
}
