package main

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// An update that changes nothing is answered without a write: each shape's record must
// change from one gen to the next, or the mode would measure no-ops.
func TestEveryRecordShapeChangesFromOneWriteToTheNext(t *testing.T) {
	shapes := map[string]func(i, gen int) any{
		"whole":          func(i, gen int) any { return gatewayRecord(i, gen) },
		"without values": func(i, gen int) any { r := gatewayRecord(i, gen); r.Values = nil; return r },
		"without objects or values": func(i, gen int) any {
			r := gatewayRecord(i, gen)
			r.Values, r.Objects = nil, nil
			return r
		},
	}
	for name, record := range shapes {
		if !equality.Semantic.DeepEqual(record(3, 1), record(3, 1)) {
			t.Errorf("%s: two records of the same Gateway and gen differ", name)
		}
		if equality.Semantic.DeepEqual(record(3, 1), record(3, 2)) {
			t.Errorf("%s: the record is the same at the next gen", name)
		}
	}
	whole := gatewayRecord(3, 2)
	if len(whole.Objects) != 5 || whole.Values == nil || len(whole.Values.Provenance) != 5 {
		t.Errorf("the whole record has %d objects and values %v, want the bench Gateway's 5 children and 5 leaves", len(whole.Objects), whole.Values)
	}
}
