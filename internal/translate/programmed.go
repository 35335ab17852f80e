package translate

// The policy condition GEP-713 names in gateway-api v1.6.3, and its reasons. Enforced,
// the older text's name, is written beside it for one minor release (deprecated).
const (
	ConditionProgrammed       = "Programmed"
	ConditionEnforced         = "Enforced"
	ReasonProgrammed          = "Programmed"
	ReasonPartiallyProgrammed = "PartiallyProgrammed"
	ReasonReconciling         = "Reconciling"
)

// Programmed is the Programmed verdict of a policy's target whose Enforced verdict is
// enforced: the same judgement in the standard's words. Values not computed yet are
// Reconciling; Overridden and Invalid keep their reasons.
func Programmed(enforced Verdict) Verdict {
	switch enforced.Reason {
	case ReasonEnforced:
		enforced.Reason = ReasonProgrammed
	case ReasonPartiallyEnforced:
		enforced.Reason = ReasonPartiallyProgrammed
	case ReasonPending:
		enforced.Reason = ReasonReconciling
	}
	return enforced
}
