package v1alpha1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValuesRecordIsAStringThatReadsBack(t *testing.T) {
	record := &RecordedValues{
		RecordedAt:   metav1.NewTime(time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC).Local()), // as metav1.Time reads it
		GatewayClass: "internet", Blueprint: "simple-proxy",
		Provenance: []RecordedLeaf{{Path: "service.type", Value: `"LoadBalancer"`,
			RecordedOrigin: RecordedOrigin{Source: PolicySource{Kind: "GatewayClassConfig", Namespace: "gatewright-system", Name: "defaults"}, As: "override", Level: 2, Strategy: "Patch"}}},
		Policies: []RecordedPolicy{{Source: PolicySource{Kind: "GatewayClassConfig", Namespace: "gatewright-system", Name: "defaults"}, Levels: []int32{2}, State: "Enforced"}},
	}
	raw, err := json.Marshal(Rendering{Owner: RenderingOwner{Kind: "Gateway", Name: "web"}, Values: record})
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	doc, ok := stored["values"].(string)
	if !ok {
		t.Fatalf("values are stored as %T, want a string: %s", stored["values"], raw)
	}
	want, err := record.Document()
	if err != nil {
		t.Fatal(err)
	}
	if doc != string(want) {
		t.Errorf("the string holds %s, want the record's document %s", doc, want)
	}
	var back Rendering
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Values, record) {
		t.Errorf("read back %+v, want %+v", back.Values, record)
	}

	// A Rendering written before the record became a string holds it as an object.
	var old Rendering
	if err := json.Unmarshal([]byte(`{"owner": {"kind": "Gateway", "name": "web"}, "values": `+string(want)+`}`), &old); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(old.Values, record) {
		t.Errorf("read an older record as %+v, want %+v", old.Values, record)
	}
	// One that does not read says so, and the Rendering still reads: the API server hands
	// back an older record as {} once the CRD's schema says it is a string.
	for _, values := range []string{`3`, `"{"`, `"[1]"`, `{}`} {
		var bad Rendering
		if err := json.Unmarshal([]byte(`{"owner": {"kind": "Gateway", "name": "web"}, "values": `+values+`}`), &bad); err != nil {
			t.Errorf("a Rendering with values %s does not read: %v", values, err)
			continue
		}
		if bad.Values == nil || bad.Values.Cut == "" || bad.Values.Provenance != nil || bad.Owner.Name != "web" {
			t.Errorf("values %s read as %+v, want a record that says it does not read", values, bad.Values)
		}
	}
}
