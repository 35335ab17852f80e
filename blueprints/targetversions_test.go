package blueprints_test

import (
	"crypto/sha256"
	"fmt"
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
	vendored := vendoredCRDs(t)
	externalDNS := vendored["dnsendpoints.externaldns.k8s.io.yaml"].release
	albController := vendored["elbv2.k8s.aws_targetgroupbindings.yaml"].release
	tests := []struct {
		name      string
		blueprint string
		want      []string
	}{
		{
			name:      "the NLB blueprint names the Gateway API and AWS Load Balancer Controller versions",
			blueprint: "aws-nlb-istio",
			want: []string{
				"standard channel " + gatewayAPI,
				"| AWS Load Balancer Controller | TargetGroupBinding | " + albController + " |",
			},
		},
		{
			name:      "the certificates and DNS blueprint names the Gateway API, cert-manager and external-dns versions",
			blueprint: "istio-certs-dns",
			want: []string{
				"standard channel " + gatewayAPI,
				"| cert-manager | Certificate | " + certManager + " |",
				"| external-dns | DNSEndpoint | " + externalDNS + " |",
			},
		},
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

// TestVendoredCRDsAreTheFilesTheirRowsName keeps testdata/crds/README.md true: every CRD
// vendored there has a row, and the file is the one whose sha256 the row records.
func TestVendoredCRDsAreTheFilesTheirRowsName(t *testing.T) {
	vendored := vendoredCRDs(t)
	files, err := filepath.Glob(filepath.Join("testdata", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRD is vendored in testdata/crds: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			row, ok := vendored[filepath.Base(file)]
			if !ok {
				t.Fatal("testdata/crds/README.md has no row for it")
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if sum := fmt.Sprintf("%x", sha256.Sum256(raw)); sum != row.sha256 {
				t.Errorf("sha256 is %s, its row says %s", sum, row.sha256)
			}
		})
	}
}

type vendoredCRD struct{ release, sha256 string }

// vendoredCRDs reads the table of testdata/crds/README.md
// (| `file` | release | module, version | path in the module | `sha256` |), keyed by file.
func vendoredCRDs(t *testing.T) map[string]vendoredCRD {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "crds", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]vendoredCRD{}
	for line := range strings.Lines(string(raw)) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) != 7 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		unquote := func(cell string) string { return strings.Trim(strings.TrimSpace(cell), "`") }
		rows[unquote(cells[1])] = vendoredCRD{release: strings.TrimSpace(cells[2]), sha256: unquote(cells[5])}
	}
	if len(rows) == 0 {
		t.Fatal("testdata/crds/README.md has no table of vendored CRDs")
	}
	return rows
}
