package explain

import (
	"bytes"
	"strings"
	"testing"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// A record cut to its bound says so, and shows the values it left out as such.
func TestExplainSaysWhatTheRecordLeftOut(t *testing.T) {
	v := &gatewrightv1alpha1.RecordedValues{GatewayClass: "internet", Blueprint: "internet",
		Cut: "the values are left out: with them the record is 70000 bytes of JSON, over 65536",
		Provenance: []gatewrightv1alpha1.RecordedLeaf{{Path: "timeout", RecordedOrigin: gatewrightv1alpha1.RecordedOrigin{
			Source: gatewrightv1alpha1.PolicySource{Kind: "GatewayConfig", Namespace: "edge", Name: "web"}, As: "override", Level: 6, Strategy: "Patch"}}}}
	from := &RecordSource{Rendering: "edge/gateway.web", Because: "forbidden", Cut: v.Cut}
	var out bytes.Buffer
	if err := WriteRecorded(&out, from, ValuesOfRecord("edge/web", "", v)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The record is cut: the values are left out", `timeout  "<not recorded>"  GatewayConfig edge/web  override  6      Patch`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}
