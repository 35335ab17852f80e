package api

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/test/testenv"
)

// readManifests decodes every YAML document of a file.
func readManifests(path string) []*unstructured.Unstructured {
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := decoder.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		Expect(err).NotTo(HaveOccurred(), path)
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
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
