package controllers

import (
	"context"
	"errors"

	ctrl "sigs.k8s.io/controller-runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// gatewayStatus builds a Gateway's status during a reconcile; it is written once, at
// the end, and only when it changed.
type gatewayStatus struct {
	gw       *gatewayv1.Gateway
	original gatewayv1.GatewayStatus
	status   gatewayv1.GatewayStatus
	// listenerRules is what the Gateway API rules say of each listener of the spec.
	listenerRules []listeners.Status
}

// newGatewayStatus starts the status of gw, whose listeners the rules judged as judged
// says (snapshot.Listeners).
func newGatewayStatus(gw *gatewayv1.Gateway, judged []listeners.Status) *gatewayStatus {
	return &gatewayStatus{gw: gw, original: *gw.Status.DeepCopy(), status: *gw.Status.DeepCopy(), listenerRules: judged}
}

func (s *gatewayStatus) set(conditionType gatewayv1.GatewayConditionType, ok bool, reason gatewayv1.GatewayConditionReason, message string) {
	conditions.Set(&s.status.Conditions, string(conditionType), ok, string(reason), message, s.gw.Generation)
}

// accepted accepts the Gateway when at least one of its listeners is valid; the
// message names the listeners that are not, as the spec asks.
func (s *gatewayStatus) accepted() {
	switch notValid := s.listenersNotValid(); {
	case notValid == "":
		s.set(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonAccepted, "")
	case s.hasValidListener():
		s.set(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonListenersNotValid, notValid)
	default:
		s.set(gatewayv1.GatewayConditionAccepted, false, gatewayv1.GatewayReasonListenersNotValid, notValid)
	}
}

// notAccepted refuses the Gateway for a reason outside it (its class is missing or
// being deleted, its blueprint is missing): nothing is programmed for it any more, and
// the addresses it had are no longer promised.
func (s *gatewayStatus) notAccepted(reason gatewayv1.GatewayConditionReason, message string) {
	s.set(gatewayv1.GatewayConditionAccepted, false, reason, message)
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, "the Gateway is not accepted: "+message)
	s.attach(nil, nil)
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	s.status.Addresses = nil
}

// unchanged drops what this round found: it is retried at once, and a half-built status
// (listeners without conditions) must not be written.
func (s *gatewayStatus) unchanged() {
	s.status = *s.original.DeepCopy()
}

// noValidListener reports a Gateway none of whose listeners is valid: the specification
// rejects it as a whole, so nothing is rendered, and what was applied before stays.
func (s *gatewayStatus) noValidListener() bool {
	if s.hasValidListener() {
		return false
	}
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid,
		s.listenersNotValid()+"; nothing is rendered, the objects applied before are left as they are")
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	return true
}

// fail maps an error reading the inputs: a reference that cannot be used refuses the
// Gateway; anything else is retried. The conditions are the pipeline's
// (translate.Result), so that what the controller writes is what gatewright diff
// predicts.
func (s *gatewayStatus) fail(err error) (ctrl.Result, error) {
	res := &translate.Result{Err: err}
	if !res.Refused() {
		return ctrl.Result{}, err
	}
	s.set(gatewayv1.GatewayConditionAccepted, false, gatewayv1.GatewayReasonInvalidParameters, err.Error())
	s.setProgrammed(res.Programmed())
	s.attach(nil, nil)
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	return ctrl.Result{}, nil
}

// invalid reports values or render errors. Nothing was applied or pruned; the
// Gateway's objects stay as they are until the input is fixed (or, for a failure to
// read the live objects, until the retry).
func (s *gatewayStatus) invalid(err error) (ctrl.Result, error) {
	if renderStopped(err) {
		s.unchanged()
		return ctrl.Result{}, err
	}
	res := &translate.Result{Err: err}
	if res.Refused() {
		return s.fail(err)
	}
	s.setProgrammed(res.Programmed())
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	if isInputError(err) {
		return ctrl.Result{}, nil // a change of the input triggers the next attempt
	}
	return ctrl.Result{}, err // reading live objects failed: retry
}

func (s *gatewayStatus) setProgrammed(v translate.Verdict) {
	s.set(gatewayv1.GatewayConditionProgrammed, v.OK, gatewayv1.GatewayConditionReason(v.Reason), v.Message)
}

// overNamespaceBytes reports a render refused because the Gateways of the namespace
// would hold too many bytes together. Nothing was applied or pruned: the objects of the
// last render stay. Room made in the namespace brings the Gateway back (namespaceBytes).
func (s *gatewayStatus) overNamespaceBytes(err error) (ctrl.Result, error) {
	s.set(gatewayv1.GatewayConditionProgrammed, false, ReasonNamespaceBytes, err.Error())
	s.setListeners(false, gatewayv1.ListenerReasonPending)
	return ctrl.Result{}, nil
}

func (s *gatewayStatus) applyFailed(err error) (ctrl.Result, error) {
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, "apply failed, nothing was pruned: "+err.Error())
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	var conflict *apply.ConflictError
	if errors.As(err, &conflict) || isInputError(err) {
		return ctrl.Result{}, nil // retried when the conflicting object or the input changes
	}
	return ctrl.Result{}, err
}

// programmed reports the outcome of a successful apply of res, whose output is what
// this round's apply left (settle), notReady the applied objects not ready yet. The
// addresses are what the blueprint's status template says: set when it rendered, left
// as they are while anything waits, and cleared when the blueprint has no status
// template, since nothing would ever correct them.
func (s *gatewayStatus) programmed(res *translate.Result, notReady []string, hasStatusTemplate bool) {
	if !hasStatusTemplate {
		s.status.Addresses = nil
	}
	v := res.Programmed(notReady...)
	s.setProgrammed(v)
	if !v.OK {
		s.setListeners(false, gatewayv1.ListenerReasonPending)
		return
	}
	s.setListeners(true, gatewayv1.ListenerReasonProgrammed)
	if res.Output.StatusRendered {
		s.status.Addresses = res.Output.Addresses
	}
}

// patchStatus writes the status when it changed, with short messages when the API
// server refuses it.
func (r *GatewayReconciler) patchStatus(ctx context.Context, gw *gatewayv1.Gateway, s *gatewayStatus) error {
	return ctrlutil.WriteStatus(ctx, r.Client, gw, s.original, s.status, shortGatewayMessages)
}

// shortGatewayMessages returns a copy of status with every message cut short.
func shortGatewayMessages(status gatewayv1.GatewayStatus) gatewayv1.GatewayStatus {
	short := *status.DeepCopy()
	short.Conditions = conditions.Short(short.Conditions)
	for i := range short.Listeners {
		short.Listeners[i].Conditions = conditions.Short(short.Listeners[i].Conditions)
	}
	return short
}

// affected sets the gatewright.dev/...Affected conditions naming the policies that
// change the Gateway's values, and removes them when none does.
func (s *gatewayStatus) affected(policies []values.PolicyReport) {
	translate.SetAffected(&s.status.Conditions, s.gw.Generation, policies)
}
