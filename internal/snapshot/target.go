package snapshot

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// TargetAccepted is a policy's Accepted verdict on one target: whether the target exists
// and may be targeted by a policy of namespace. The controller writes it into the
// policy's status, and explain shows it, so the two agree. A read that fails otherwise
// than NotFound (a caller's read refused) is an error, not a verdict.
func (g *Gatherer) TargetAccepted(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) (translate.Verdict, error) {
	r := g.Reader
	notFound := func(format string, args ...any) translate.Verdict {
		return translate.Verdict{Reason: string(gatewayv1.PolicyReasonTargetNotFound), Message: fmt.Sprintf(format, args...)}
	}
	var err error
	switch target.Kind {
	case "Namespace":
		if string(target.Name) != namespace {
			return translate.Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: fmt.Sprintf("a Namespace target must name the policy's own namespace %s, not %s", namespace, target.Name)}, nil
		}
	case "GatewayClass":
		class := &gatewayv1.GatewayClass{}
		if err = r.Get(ctx, client.ObjectKey{Name: string(target.Name)}, class); err == nil && !translate.IsGatewrightClass(class) || apierrors.IsNotFound(err) {
			return notFound("no GatewayClass %s of Gatewright%s", target.Name, didYouMean(ctx, r, target, "")), nil
		}
	case "Gateway":
		if err = r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: string(target.Name)}, &gatewayv1.Gateway{}); apierrors.IsNotFound(err) {
			return notFound("no Gateway %s in namespace %s%s", target.Name, namespace, didYouMean(ctx, r, target, namespace)), nil
		}
	case routes.KindHTTPRoute, routes.KindGRPCRoute, routes.KindTLSRoute, routes.KindTCPRoute, routes.KindUDPRoute:
		if err = r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: string(target.Name)}, routes.New(string(target.Kind))); apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return notFound("no %s %s in namespace %s%s", target.Kind, target.Name, namespace, didYouMean(ctx, r, target, namespace)), nil
		}
	}
	if err != nil {
		return translate.Verdict{}, err
	}
	return translate.Verdict{OK: true, Reason: string(gatewayv1.PolicyReasonAccepted)}, nil
}

// didYouMean reads " (did you mean web?)" when an object of the target's kind has a name
// close to the target's (a few edits): a Gateway or route of namespace, or a
// GatewayClass of Gatewright. "" when none is close or the names cannot be read.
func didYouMean(ctx context.Context, r client.Reader, target gatewayv1.LocalPolicyTargetReference, namespace string) string {
	var list client.ObjectList
	opts := []client.ListOption{client.UnsafeDisableDeepCopy}
	switch target.Kind {
	case "GatewayClass":
		list = &gatewayv1.GatewayClassList{}
	case "Gateway":
		list, opts = &gatewayv1.GatewayList{}, append(opts, client.InNamespace(namespace))
	case routes.KindHTTPRoute, routes.KindGRPCRoute, routes.KindTLSRoute, routes.KindTCPRoute, routes.KindUDPRoute:
		list, opts = routes.NewList(string(target.Kind)), append(opts, client.InNamespace(namespace))
	default:
		return ""
	}
	if err := r.List(ctx, list, opts...); err != nil {
		return ""
	}
	var names []string
	_ = meta.EachListItem(list, func(item runtime.Object) error { // the func never fails
		if class, isClass := item.(*gatewayv1.GatewayClass); !isClass || translate.IsGatewrightClass(class) {
			names = append(names, item.(client.Object).GetName())
		}
		return nil
	})
	if near := values.Nearest(string(target.Name), string(target.Name), names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}
