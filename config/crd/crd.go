// Package crd carries the CustomResourceDefinitions Gatewright runs with: its own
// (generated into bases/ by `make manifests`) and the standard Gateway API CRDs
// (copied into gateway-api/ by `make gateway-api-crds`).
package crd

import (
	"embed"
	"fmt"
	"io/fs"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gatewright/gatewright/internal/manifest"
)

//go:embed bases/*.yaml gateway-api/*.yaml
var manifests embed.FS

// All returns the Gateway API CRDs followed by Gatewright's, in file name order.
func All() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, pattern := range []string{"gateway-api/*.yaml", "bases/*.yaml"} {
		files, err := fs.Glob(manifests, pattern)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			data, err := manifests.ReadFile(file)
			if err != nil {
				return nil, err
			}
			found, err := decode(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			crds = append(crds, found...)
		}
	}
	return crds, nil
}

func decode(data []byte) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	objs, err := manifest.Decode(data)
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, obj := range objs {
		if obj.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", obj.GetName(), err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}
