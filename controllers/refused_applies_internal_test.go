package controllers

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/apply"
)

// A render the API server refused as invalid is not applied again while it is the same,
// for a while; any change of what the apply would write, a later outcome, or the end of
// the hold lets it be applied.
func TestARefusedRenderIsNotAppliedAgainUnchanged(t *testing.T) {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web", UID: "gw-uid"}}
	configMap := func(value string) []*unstructured.Unstructured {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("v1")
		obj.SetKind("ConfigMap")
		obj.SetNamespace("team")
		obj.SetName("web-config")
		obj.Object["data"] = map[string]any{"not a valid key": value}
		return []*unstructured.Unstructured{obj}
	}
	rec := apply.NewRecord(apply.GatewayOwner(gw))
	invalid := apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "web-config", field.ErrorList{field.Invalid(field.NewPath("data"), "not a valid key", "a valid key")})
	now := time.Now()

	r := &refusedApply{}
	if err := r.again(rec, configMap("x"), now); err != nil {
		t.Fatalf("nothing refused yet, and the render is held: %v", err)
	}
	// The apply stamps the objects it was given with their owner and rendered hash, in
	// place; the refusal is remembered from them as the apply left them.
	applied := configMap("x")
	applied[0].SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "gateway.networking.k8s.io/v1", Kind: "Gateway", Name: "web", UID: "gw-uid"}})
	applied[0].SetAnnotations(map[string]string{apply.RenderedHashAnnotation: "1a93ec20"})
	r.remember(rec, applied, invalid, now)
	if err := r.again(rec, configMap("x"), now.Add(time.Second)); !errors.Is(err, invalid) {
		t.Errorf("the same render is not held with the error that refused it: %v", err)
	}
	if err := r.again(rec, configMap("y"), now.Add(time.Second)); err != nil {
		t.Errorf("another render is held: %v", err)
	}
	if err := r.again(rec, configMap("x"), now.Add(refusedApplyHold+time.Second)); err != nil {
		t.Errorf("the same render is held past the hold: %v", err)
	}
	otherValues := apply.NewRecord(apply.GatewayOwner(gw))
	otherValues.ValuesHash = "other"
	if err := r.again(otherValues, configMap("x"), now.Add(time.Second)); err != nil {
		t.Errorf("the same objects with other values to record are held: %v", err)
	}

	r.remember(rec, configMap("x"), errors.New("connection refused"), now)
	if err := r.again(rec, configMap("x"), now.Add(time.Second)); err != nil {
		t.Errorf("a render refused by a transient error is held: %v", err)
	}
	r.remember(rec, configMap("x"), invalid, now)
	r.remember(rec, configMap("x"), nil, now)
	if err := r.again(rec, configMap("x"), now.Add(time.Second)); err != nil {
		t.Errorf("a render applied since is held: %v", err)
	}
}
