// Package devcloud stands in for the parts of a cluster that `gatewright-dev dev` does
// not have: a node that runs Deployments and a cloud that gives LoadBalancer Services an
// address. Without them nothing Gatewright renders ever becomes ready on a bare
// kube-apiserver, and the local story would end at Programmed=False.
//
// It is a development aid only: only gatewright-dev links it, never gatewright, and every
// address it hands out comes from TEST-NET-2 (198.51.100.0/24, RFC 5737), which is
// reserved for documentation and routes nowhere.
package devcloud

import (
	ctrl "sigs.k8s.io/controller-runtime"
)

// FieldOwner is the field manager of the status writes made by the simulation.
const FieldOwner = "gatewright-devcloud"

// Setup registers the simulated node and load-balancer allocator with mgr.
func Setup(mgr ctrl.Manager) error {
	if err := (&nodeSimulator{client: mgr.GetClient()}).setup(mgr); err != nil {
		return err
	}
	return (&loadBalancerAllocator{client: mgr.GetClient(), reader: mgr.GetAPIReader(), pool: testNet2()}).setup(mgr)
}
