package apply

import (
	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Ready tells whether a live object has reached its desired state, by kstatus: a
// Deployment whose replicas are available, a Service with its load balancer, an object
// whose Ready condition is True.
func Ready(obj *unstructured.Unstructured) bool {
	res, err := status.Compute(obj)
	return err == nil && res.Status == status.CurrentStatus
}
