package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/values"
)

// gatewayStatus builds a Gateway's status during a reconcile; it is written once, at
// the end, and only when it changed.
type gatewayStatus struct {
	gw       *gatewayv1.Gateway
	original gatewayv1.GatewayStatus
	status   gatewayv1.GatewayStatus
}

func newGatewayStatus(gw *gatewayv1.Gateway) *gatewayStatus {
	return &gatewayStatus{gw: gw, original: *gw.Status.DeepCopy(), status: *gw.Status.DeepCopy()}
}

func (s *gatewayStatus) set(conditionType gatewayv1.GatewayConditionType, ok bool, reason gatewayv1.GatewayConditionReason, message string) {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	meta.SetStatusCondition(&s.status.Conditions, metav1.Condition{
		Type: string(conditionType), Status: status, Reason: string(reason), Message: conditionMessage(message), ObservedGeneration: s.gw.Generation,
	})
}

func (s *gatewayStatus) accepted() {
	s.set(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonAccepted, "")
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

// fail maps an error reading the inputs: a reference that cannot be used refuses the
// Gateway; anything else is retried.
func (s *gatewayStatus) fail(err error) (ctrl.Result, error) {
	var invalid *invalidParametersError
	if asInvalidParameters(err, &invalid) {
		s.set(gatewayv1.GatewayConditionAccepted, false, gatewayv1.GatewayReasonInvalidParameters, err.Error())
		s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, "the Gateway is not accepted")
		s.attach(nil, nil)
		s.setListeners(false, gatewayv1.ListenerReasonInvalid)
		return ctrl.Result{}, nil
	}
	return ctrl.Result{}, err
}

// invalid reports values or render errors. Nothing was applied or pruned; the
// Gateway's objects stay as they are until the input is fixed (or, for a failure to
// read the live objects, until the retry).
func (s *gatewayStatus) invalid(err error) (ctrl.Result, error) {
	var invalid *invalidParametersError
	var refErr *values.ParametersRefError
	if errors.As(err, &invalid) || errors.As(err, &refErr) {
		return s.fail(err)
	}
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, err.Error()+"; the objects applied before are left as they are")
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	if isInputError(err) {
		return ctrl.Result{}, nil // a change of the input triggers the next attempt
	}
	return ctrl.Result{}, err // reading live objects failed: retry
}

func (s *gatewayStatus) applyFailed(err error) (ctrl.Result, error) {
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, "apply failed, nothing was pruned: "+err.Error())
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	var conflict *apply.ConflictError
	if errors.As(err, &conflict) {
		return ctrl.Result{}, nil // retried when the conflicting object or the input changes
	}
	return ctrl.Result{}, err
}

// programmed reports the outcome of a successful apply. The addresses are what the
// blueprint's status template says: set when it rendered, left as they are while
// anything waits, and cleared when the blueprint has no status template, since
// nothing would ever correct them.
func (s *gatewayStatus) programmed(out *render.Output, notReady []string, hasStatusTemplate bool) {
	if !hasStatusTemplate {
		s.status.Addresses = nil
	}
	var waiting []string
	for _, w := range out.Waiting {
		waiting = append(waiting, w.String())
	}
	waiting = append(waiting, notReady...)
	if len(waiting) > 0 {
		s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonPending, "waiting: "+strings.Join(waiting, "; "))
		s.setListeners(false, gatewayv1.ListenerReasonPending)
		return
	}
	s.set(gatewayv1.GatewayConditionProgrammed, true, gatewayv1.GatewayReasonProgrammed, fmt.Sprintf("%d object(s) applied and ready", len(out.Objects)))
	s.setListeners(true, gatewayv1.ListenerReasonProgrammed)
	if out.StatusRendered {
		s.status.Addresses = out.Addresses
	}
}

// attach records the listeners with their attached routes.
func (s *gatewayStatus) attach(routes []gatewayv1.HTTPRoute, attached map[gatewayv1.SectionName]int32) {
	listeners := make([]gatewayv1.ListenerStatus, 0, len(s.gw.Spec.Listeners))
	for _, l := range s.gw.Spec.Listeners {
		status := gatewayv1.ListenerStatus{Name: l.Name, AttachedRoutes: attached[l.Name], SupportedKinds: supportedKinds(l)}
		for _, previous := range s.status.Listeners {
			if previous.Name == l.Name {
				status.Conditions = previous.Conditions
			}
		}
		listeners = append(listeners, status)
	}
	s.status.Listeners = listeners
}

// setListeners sets the conditions of every listener; reason is the Programmed reason.
func (s *gatewayStatus) setListeners(programmed bool, reason gatewayv1.ListenerConditionReason) {
	for i := range s.status.Listeners {
		l := &s.status.Listeners[i]
		set := func(t, reason string, ok bool) {
			status := metav1.ConditionFalse
			if ok {
				status = metav1.ConditionTrue
			}
			meta.SetStatusCondition(&l.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason, ObservedGeneration: s.gw.Generation})
		}
		set(string(gatewayv1.ListenerConditionAccepted), string(gatewayv1.ListenerReasonAccepted), true)
		set(string(gatewayv1.ListenerConditionResolvedRefs), string(gatewayv1.ListenerReasonResolvedRefs), true)
		set(string(gatewayv1.ListenerConditionProgrammed), string(reason), programmed)
	}
}

// supportedKinds: Gatewright implements HTTPRoute on HTTP and HTTPS listeners.
func supportedKinds(l gatewayv1.Listener) []gatewayv1.RouteGroupKind {
	if l.Protocol != gatewayv1.HTTPProtocolType && l.Protocol != gatewayv1.HTTPSProtocolType {
		return []gatewayv1.RouteGroupKind{}
	}
	group := gatewayv1.Group(gatewayv1.GroupName)
	return []gatewayv1.RouteGroupKind{{Group: &group, Kind: "HTTPRoute"}}
}

// patchStatus writes the status when it changed. A status the API server refuses is
// written again with short messages, so that an older Programmed=True never stays
// because the news was too long to write.
func (r *GatewayReconciler) patchStatus(ctx context.Context, gw *gatewayv1.Gateway, s *gatewayStatus) error {
	if equality.Semantic.DeepEqual(s.original, s.status) {
		return nil
	}
	original := gw.DeepCopy()
	original.Status = s.original
	gw.Status = s.status
	err := r.Status().Patch(ctx, gw, client.MergeFrom(original))
	if statusRefused(err) {
		gw.Status = shortGatewayMessages(s.status)
		err = r.Status().Patch(ctx, gw, client.MergeFrom(original))
	}
	return client.IgnoreNotFound(err)
}

// shortGatewayMessages returns a copy of status with every message cut short.
func shortGatewayMessages(status gatewayv1.GatewayStatus) gatewayv1.GatewayStatus {
	short := *status.DeepCopy()
	short.Conditions = shortMessages(short.Conditions)
	for i := range short.Listeners {
		short.Listeners[i].Conditions = shortMessages(short.Listeners[i].Conditions)
	}
	return short
}

// affected sets the gatewright.dev/...Affected conditions naming the policies that
// took part in the Gateway's values, and removes them when none did.
func (s *gatewayStatus) affected(policies []values.PolicyReport) {
	for conditionType, kind := range map[string]string{
		gatewrightv1alpha1.ConditionGatewayClassConfigAffected: gatewrightv1alpha1.KindGatewayClassConfig,
		gatewrightv1alpha1.ConditionGatewayConfigAffected:      gatewrightv1alpha1.KindGatewayConfig,
	} {
		names := affectingPolicies(policies, kind)
		if len(names) == 0 {
			meta.RemoveStatusCondition(&s.status.Conditions, conditionType)
			continue
		}
		meta.SetStatusCondition(&s.status.Conditions, metav1.Condition{
			Type: conditionType, Status: metav1.ConditionTrue, Reason: "Affected",
			Message: conditionMessage("values from " + strings.Join(names, ", ")), ObservedGeneration: s.gw.Generation,
		})
	}
}

// affectingPolicies names, in chain order, the policies of a kind among reports.
func affectingPolicies(reports []values.PolicyReport, kind string) []string {
	var names []string
	for _, report := range reports {
		if report.Source.Kind == kind {
			names = append(names, report.Source.Namespace+"/"+report.Source.Name)
		}
	}
	return names
}
