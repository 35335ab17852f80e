package controllers

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestStaleRecord(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "gatewright.dev", Resource: "renderings"}, "gateway.web", errors.New("the object has been modified"))
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a write refused for a newer version is retried", conflict, true},
		{"so is a wrapped one", fmt.Errorf("saving the Rendering: %w", conflict), true},
		{"and a Rendering the cache has not seen yet", apierrors.NewAlreadyExists(schema.GroupResource{Group: "gatewright.dev", Resource: "renderings"}, "gateway.web"), true},
		{"any other error is not", errors.New("no matches for kind \"Certificate\""), false},
		{"nor is no error", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := staleRecord(tc.err); got != tc.want {
				t.Errorf("staleRecord(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
