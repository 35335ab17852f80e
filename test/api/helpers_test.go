package api

import (
	"strings"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// object parses one YAML document.
func object(manifest string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal([]byte(manifest), &u.Object)).To(Succeed())
	return u
}

// objectIn parses one YAML document after replacing every NAMESPACE with namespace.
func objectIn(namespace, manifest string) *unstructured.Unstructured {
	return object(strings.ReplaceAll(manifest, "NAMESPACE", namespace))
}

// refusedWith asserts that the API server refused an object as invalid with a message
// containing every part.
func refusedWith(err error, parts ...string) {
	Expect(err).To(HaveOccurred(), "the API server accepted the object")
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want an Invalid error, got %v", err)
	for _, part := range parts {
		Expect(err.Error()).To(ContainSubstring(part))
	}
}
