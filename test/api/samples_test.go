package api

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/test/testenv"
)

func readManifests(path string) []*unstructured.Unstructured {
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	objs, err := manifest.Decode(data)
	Expect(err).NotTo(HaveOccurred(), path)
	return objs
}

var _ = Describe("Samples", Ordered, func() {
	samples := filepath.Join(testenv.RepoRoot(), "samples")

	BeforeAll(func(ctx SpecContext) {
		for _, ns := range readManifests(filepath.Join(samples, "namespaces.yaml")) {
			Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, ns))).To(Succeed())
		}
	})

	files, _ := filepath.Glob(filepath.Join(samples, "*", "*.yaml"))
	It("has samples to check", func() { Expect(files).NotTo(BeEmpty()) })
	for _, file := range files {
		rel, _ := filepath.Rel(samples, file)
		It("accepts "+rel+" in a server-side dry run", func(ctx SpecContext) {
			objs := readManifests(file)
			Expect(objs).NotTo(BeEmpty())
			for _, obj := range objs {
				Expect(k8s.Create(ctx, obj, client.DryRunAll)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
			}
		})
	}
})
