package translate

import (
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestProgrammedSaysEnforcedInTheStandardsWords(t *testing.T) {
	for _, tc := range []struct {
		enforced Verdict
		want     Verdict
	}{
		{Verdict{OK: true, Reason: ReasonEnforced, Message: "m"}, Verdict{OK: true, Reason: ReasonProgrammed, Message: "m"}},
		{Verdict{OK: true, Reason: ReasonPartiallyEnforced, Message: "m"}, Verdict{OK: true, Reason: ReasonPartiallyProgrammed, Message: "m"}},
		{Verdict{Reason: ReasonOverridden, Message: "m"}, Verdict{Reason: ReasonOverridden, Message: "m"}},
		{NotAccepted, Verdict{Reason: ReasonReconciling, Message: NotAccepted.Message}},
		{Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: "m"}, Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: "m"}},
	} {
		if got := Programmed(tc.enforced); got != tc.want {
			t.Errorf("Programmed(%+v) = %+v, want %+v", tc.enforced, got, tc.want)
		}
	}
}
