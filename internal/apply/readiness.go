package apply

import (
	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Ready tells whether a live object has reached its desired state, by kstatus: a
// Deployment whose replicas are available, an object whose Ready condition is True. A
// LoadBalancer Service is ready once the load balancer has an address, which kstatus
// does not wait for: the address is what a Gateway publishes, so Programmed must wait.
func Ready(obj *unstructured.Unstructured) bool {
	if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Service" {
		specType, _, _ := unstructured.NestedString(obj.Object, "spec", "type")
		ingress, _, _ := unstructured.NestedSlice(obj.Object, "status", "loadBalancer", "ingress")
		if specType == "LoadBalancer" && len(ingress) == 0 {
			return false
		}
	}
	res, err := status.Compute(obj)
	return err == nil && res.Status == status.CurrentStatus
}
