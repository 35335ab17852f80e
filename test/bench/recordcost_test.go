package main

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// An update that changes nothing is answered without a write: each shape's record must
// change from one gen to the next, or the mode would measure no-ops.
func TestEveryRecordShapeChangesFromOneWriteToTheNext(t *testing.T) {
	record := func(trim func(*gatewrightv1alpha1.Rendering), gen int) *gatewrightv1alpha1.Rendering {
		r := gatewayRecord(3, gen)
		trim(r)
		return r
	}
	for _, shape := range gatewrightRecords {
		if !equality.Semantic.DeepEqual(record(shape.trim, 1), record(shape.trim, 1)) {
			t.Errorf("%s: two records of the same Gateway and gen differ", shape.name)
		}
		if equality.Semantic.DeepEqual(record(shape.trim, 1), record(shape.trim, 2)) {
			t.Errorf("%s: the record is the same at the next gen", shape.name)
		}
	}
	whole := gatewayRecord(3, 2)
	if len(whole.Objects) != 5 || whole.Values == nil || len(whole.Values.Provenance) != 5 {
		t.Errorf("the whole record has %d objects and values %v, want the bench Gateway's 5 children and 5 leaves", len(whole.Objects), whole.Values)
	}
}
