package apply

import (
	"context"
	"errors"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestEachConcurrentlyCreatesNamespacesAndCRDsFirst(t *testing.T) {
	objs := []*unstructured.Unstructured{
		object(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: team}}"),
		object(t, "{apiVersion: v1, kind: Namespace, metadata: {name: team}}"),
		object(t, "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: x.example.com}}"),
		object(t, "{apiVersion: v1, kind: Service, metadata: {name: b, namespace: team}}"),
	}
	var mu sync.Mutex
	var order []string
	err := eachConcurrently(context.Background(), objs, func(_ context.Context, i int) error {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, objs[i].GetKind())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 4 || order[0] != "Namespace" || order[1] != "CustomResourceDefinition" {
		t.Fatalf("order %v, want the Namespace and the CRD before the rest", order)
	}
}

func TestEachConcurrentlyStopsAtAFoundationsError(t *testing.T) {
	objs := []*unstructured.Unstructured{
		object(t, "{apiVersion: v1, kind: Namespace, metadata: {name: team}}"),
		object(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: team}}"),
	}
	refused := errors.New("refused")
	called := 0
	err := eachConcurrently(context.Background(), objs, func(_ context.Context, i int) error {
		called++
		return refused
	})
	if !errors.Is(err, refused) || called != 1 {
		t.Fatalf("got %v after %d call(s), want the Namespace's error and nothing else tried", err, called)
	}
}
