package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/test/testenv"
)

func TestAsKubectlPlugin(t *testing.T) {
	for _, c := range []struct {
		arg0             string
		plugin, complete bool
	}{
		{"gatewright", false, false},
		{"/usr/local/bin/gatewright", false, false},
		{"/home/me/go/bin/kubectl-gatewright", true, false},
		{"kubectl-gatewright.exe", true, false},
		{"/home/me/go/bin/kubectl_complete-gatewright", true, true},
		{"kubectl-gatewright-old", false, false},
	} {
		arg0 := filepath.FromSlash(c.arg0)
		if got := asKubectlPlugin(arg0); got != c.plugin {
			t.Errorf("asKubectlPlugin(%q) = %v, want %v", c.arg0, got, c.plugin)
		}
		if got := asCompletionPlugin(arg0); got != c.complete {
			t.Errorf("asCompletionPlugin(%q) = %v, want %v", c.arg0, got, c.complete)
		}
	}
}

// As a plugin, the help says what the user types: kubectl gatewright.
func TestPluginUsage(t *testing.T) {
	root := newRootCommand()
	speakAsPlugin(root)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"explain", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\n  kubectl gatewright explain gateway|httproute|grpcroute|tlsroute|tcproute|udproute|gatewayconfig|gatewayclassconfig NAME",
		"\n  kubectl gatewright explain gateway web -n team-a\n",
		`Use "kubectl gatewright explain [command] --help"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the help lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\n  gatewright ") {
		t.Errorf("the help still says gatewright alone:\n%s", out.String())
	}
}

// plugins/gatewright.yaml is a krew Plugin manifest whose placeholders hack/krew.sh
// fills: the version, and per platform the sha256 of the archive its uri names.
func TestKrewManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "plugins", "gatewright.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version          string `json:"version"`
			Homepage         string `json:"homepage"`
			ShortDescription string `json:"shortDescription"`
			Description      string `json:"description"`
			Caveats          string `json:"caveats"`
			Platforms        []struct {
				Selector struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"selector"`
				URI    string `json:"uri"`
				SHA256 string `json:"sha256"`
				Bin    string `json:"bin"`
				Files  []struct {
					From string `json:"from"`
					To   string `json:"to"`
				} `json:"files"`
			} `json:"platforms"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(data, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || manifest.Kind != "Plugin" || manifest.Metadata.Name != "gatewright" {
		t.Errorf("%s %s %s, want a krew Plugin named gatewright", manifest.APIVersion, manifest.Kind, manifest.Metadata.Name)
	}
	spec := manifest.Spec
	if spec.Version != "{{VERSION}}" || spec.Homepage == "" || spec.ShortDescription == "" || spec.Description == "" {
		t.Errorf("version %q, homepage %q, shortDescription %q: want the version placeholder and each field", spec.Version, spec.Homepage, spec.ShortDescription)
	}
	if len(spec.ShortDescription) > 80 {
		t.Errorf("shortDescription has %d characters; krew-index asks for a short one", len(spec.ShortDescription))
	}
	platforms := map[string]bool{}
	for _, p := range spec.Platforms {
		os, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		platform := os + "_" + arch
		platforms[platform] = true
		bin := pluginName
		if os == "windows" {
			bin += ".exe"
		}
		if want := fmt.Sprintf("https://github.com/gatewright/gatewright/releases/download/{{VERSION}}/kubectl-gatewright_%s.tar.gz", platform); p.URI != want {
			t.Errorf("%s: uri %q, want %q", platform, p.URI, want)
		}
		if want := "{{SHA256_" + platform + "}}"; p.SHA256 != want {
			t.Errorf("%s: sha256 %q, want %q", platform, p.SHA256, want)
		}
		if p.Bin != bin || len(p.Files) != 1 || p.Files[0].From != bin {
			t.Errorf("%s: bin %q, files %+v; want %s", platform, p.Bin, p.Files, bin)
		}
	}
	// krew puts only bin on the PATH: kubectl finds no kubectl_complete-gatewright unless
	// the user links it, as the caveats must say.
	if !strings.Contains(spec.Caveats, `ln -s kubectl-gatewright "${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-gatewright"`) {
		t.Errorf("the caveats do not say how to link kubectl_complete-gatewright, which krew does not install:\n%s", spec.Caveats)
	}
	for _, want := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64"} {
		if !platforms[want] {
			t.Errorf("no platform %s", want)
		}
	}
}
