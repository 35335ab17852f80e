package controllers

import (
	"encoding/json"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayStatusPatch is the JSON merge patch from an object with status original to one
// with status current, all else equal: what client.MergeFrom computes from copies of the
// whole object, without encoding and comparing the rest of it.
func gatewayStatusPatch(original, current gatewayv1.GatewayStatus) client.Patch {
	return gatewayStatusMerge{original: original, current: current}
}

type gatewayStatusMerge struct {
	original, current gatewayv1.GatewayStatus
}

func (gatewayStatusMerge) Type() types.PatchType { return types.MergePatchType }

func (p gatewayStatusMerge) Data(client.Object) ([]byte, error) {
	original, err := json.Marshal(map[string]any{"status": p.original})
	if err != nil {
		return nil, err
	}
	current, err := json.Marshal(map[string]any{"status": p.current})
	if err != nil {
		return nil, err
	}
	return jsonpatch.CreateMergePatch(original, current)
}
