package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
)

// releaseName is the release the chart specs render; its objects are named gatewright-*.
const releaseName = "gatewright"

func loadChart() *chart.Chart {
	chrt, err := loader.Load(chartDir)
	Expect(err).NotTo(HaveOccurred())
	return chrt
}

// ciValues names the values files in ci/ ("default" for ci/default-values.yaml).
func ciValues() []string {
	files, err := filepath.Glob(filepath.Join(chartDir, "ci", "*-values.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, file := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(file), "-values.yaml"))
	}
	slices.Sort(names)
	return names
}

// readCIValues reads ci/<name>-values.yaml.
func readCIValues(name string) chartutil.Values {
	vals, err := chartutil.ReadValuesFile(filepath.Join(chartDir, "ci", name+"-values.yaml"))
	Expect(err).NotTo(HaveOccurred())
	return vals
}

// helmTemplate renders the chart as `helm template --namespace namespace release` does:
// client-only, with the values schema checked.
func helmTemplate(release, namespace string, vals chartutil.Values) (*release.Release, error) {
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.ClientOnly = true
	install.DryRun = true
	install.Replace = true
	install.ReleaseName = release
	install.Namespace = namespace
	return install.Run(loadChart(), vals)
}

// renderCI renders the chart as release gatewright in namespace with ci/<name>-values.yaml,
// and returns its objects and NOTES.txt.
func renderCI(namespace, name string) (objects, string) {
	rel, err := helmTemplate(releaseName, namespace, readCIValues(name))
	Expect(err).NotTo(HaveOccurred())
	return decodeObjects([]byte(rel.Manifest)), rel.Info.Notes
}

// readDir returns the contents of every file in dir, by file name.
func readDir(dir string) map[string]string {
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	files := map[string]string{}
	for _, entry := range entries {
		data, err := os.ReadFile(filepath.Join(dir, entry.Name()))
		Expect(err).NotTo(HaveOccurred())
		files[entry.Name()] = string(data)
	}
	return files
}
