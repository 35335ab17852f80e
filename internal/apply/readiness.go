package apply

import (
	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Readiness tells whether a live object has reached its desired state, by kstatus, and
// when not, why (kstatus's message, or why it could not be judged): a Deployment whose
// replicas are available, an object whose Ready condition is True. A LoadBalancer
// Service is ready once the load balancer has an address, which kstatus does not wait
// for: the address is what a Gateway publishes, so Programmed must wait. A blueprint's
// readyWhen replaces it for the objects of its template (render.Blueprint.Readiness).
func Readiness(obj *unstructured.Unstructured) (bool, string) {
	if obj.GetAPIVersion() == "v1" && obj.GetKind() == "Service" {
		specType, _, _ := unstructured.NestedString(obj.Object, "spec", "type")
		ingress, _, _ := unstructured.NestedSlice(obj.Object, "status", "loadBalancer", "ingress")
		if specType == "LoadBalancer" && len(ingress) == 0 {
			return false, "the load balancer has no address yet"
		}
	}
	res, err := status.Compute(obj)
	switch {
	case err != nil:
		return false, err.Error()
	case res.Status == status.CurrentStatus:
		return true, ""
	case res.Message != "":
		return false, res.Message
	}
	return false, string(res.Status)
}
