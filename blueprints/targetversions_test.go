package blueprints_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/test/testenv"
)

// TestReadmesNameTheVersionsTheirTargetsAreCheckedAgainst keeps each README's versions in
// step with the CRDs TestTargetsAcceptEveryRenderedObject installs.
func TestReadmesNameTheVersionsTheirTargetsAreCheckedAgainst(t *testing.T) {
	gatewayAPI := gatewayAPIBundleVersion(t)
	certManager := moduleVersion(t, "github.com/cert-manager/cert-manager")
	tests := []struct {
		name      string
		blueprint string
		want      []string
	}{
		{name: "the NLB blueprint names the Gateway API version", blueprint: "aws-nlb-istio", want: []string{"Gateway API CRDs " + gatewayAPI}},
		{name: "the certificates and DNS blueprint names the Gateway API and cert-manager versions", blueprint: "istio-certs-dns",
			want: []string{"standard channel " + gatewayAPI, "| cert-manager | Certificate | " + certManager + " |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readme, err := os.ReadFile(filepath.Join(tt.blueprint, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(string(readme), want) {
					t.Errorf("%s/README.md does not say %q", tt.blueprint, want)
				}
			}
		})
	}
}

// gatewayAPIBundleVersion is the version of the Gateway API CRDs the test API server installs.
func gatewayAPIBundleVersion(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "crd", "gateway-api", "gateway.networking.k8s.io_httproutes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	version := crd.Metadata.Annotations["gateway.networking.k8s.io/bundle-version"]
	if version == "" {
		t.Fatal("the HTTPRoute CRD names no bundle version")
	}
	return version
}
