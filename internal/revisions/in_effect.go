package revisions

import gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"

// InEffect tells whether a Gateway on rev (nil: revision 0, the live spec) renders gcc as
// it is now, by WithHeld's rules: a config that does not ride applies at once; one that
// rides, as the copy rev holds, or as it is when rev holds none and it does not wait for
// a newer revision.
func InEffect(gcc *gatewrightv1alpha1.GatewayClassConfig, controllerNamespace string, rev *gatewrightv1alpha1.GatewayClassBlueprintRevision) (bool, error) {
	if rev == nil || !Rides(gcc, controllerNamespace) {
		return true, nil
	}
	for i := range rev.ClassConfigs {
		if rev.ClassConfigs[i].Name == gcc.Name {
			return sameValues(&rev.ClassConfigs[i].Spec, &gcc.Spec)
		}
	}
	return !waits(gcc, rev), nil
}
