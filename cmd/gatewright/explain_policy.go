package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/explain/live"
)

// policyKinds are the names explain takes for the policy kinds.
var policyKinds = map[string]string{
	"gatewayconfig": gatewrightv1alpha1.KindGatewayConfig, "gatewayconfigs": gatewrightv1alpha1.KindGatewayConfig, "gwc": gatewrightv1alpha1.KindGatewayConfig,
	"gatewayclassconfig": gatewrightv1alpha1.KindGatewayClassConfig, "gatewayclassconfigs": gatewrightv1alpha1.KindGatewayClassConfig, "gcc": gatewrightv1alpha1.KindGatewayClassConfig,
}

// runExplainPolicy explains where the policy of kind namespace/name lands, reading the
// cluster with the caller's rights; what they do not reach is said on errOut.
func runExplainPolicy(ctx context.Context, out, errOut io.Writer, k8s client.Client, opts explainOptions, kind, namespace, name string) error {
	placed, err := live.Reader{Client: k8s, ControllerNamespace: opts.controllerNamespace}.Policy(ctx, kind, namespace, name)
	if err == nil && len(placed.Needed) > 0 && !opts.partial {
		return &unreadError{reads: placed.Needed}
	}
	for _, line := range placed.Refused {
		fmt.Fprintf(errOut, "warning: cannot read %s\n", line)
	}
	if err != nil {
		return err
	}
	pl := placed.Placement
	pl.Partial, pl.Unread = len(placed.Needed) > 0, placed.Needed
	warned := printWarnings(errOut, pl.Policy.String(), pl.FailedClosedWarnings())
	if err := printPlacement(out, pl, opts.output); err != nil {
		return err
	}
	if pl.Partial {
		return &exitError{code: exitUnread, err: errors.New("the explanation is partial: what could not be read is named in it"), silent: true}
	}
	return strictError(opts.strict, warned)
}
