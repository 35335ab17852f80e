package revisions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// rolloutField is spec.rollout: it says how a revision reaches the Gateways, not what
// they render, so changing it makes no revision.
const rolloutField = "rollout"

// SpecHash is the SHA-256 (hex) of the canonical JSON of spec, without spec.rollout.
func SpecHash(spec *gatewrightv1alpha1.GatewayClassBlueprintSpec) (string, error) {
	doc, err := canonical(spec)
	if err != nil {
		return "", fmt.Errorf("hashing the blueprint spec: %w", err)
	}
	return specDocumentHash(doc)
}

// Hash is what identifies a revision: SpecHash of spec when no GatewayClassConfig rides
// the blueprint's rollout, so that such a blueprint keeps the revisions it has; else the
// SHA-256 (hex) of the canonical JSON of the spec, without spec.rollout, and the configs.
func Hash(spec *gatewrightv1alpha1.GatewayClassBlueprintSpec, classConfigs []gatewrightv1alpha1.RevisionClassConfig) (string, error) {
	if len(classConfigs) == 0 {
		return SpecHash(spec)
	}
	doc, err := canonical(spec)
	if err != nil {
		return "", fmt.Errorf("hashing the blueprint spec: %w", err)
	}
	configs, err := canonical(classConfigs)
	if err != nil {
		return "", fmt.Errorf("hashing the GatewayClassConfigs that ride the rollout: %w", err)
	}
	return hashOf(map[string]any{"spec": withoutRollout(doc), "classConfigs": configs})
}

// specDocumentHash hashes a spec decoded from JSON, without its rollout block.
func specDocumentHash(doc any) (string, error) {
	return hashOf(withoutRollout(doc))
}

// withoutRollout drops the rollout block of a spec decoded from JSON.
func withoutRollout(doc any) any {
	if fields, ok := doc.(map[string]any); ok {
		delete(fields, rolloutField)
	}
	return doc
}

// ValuesHash is the SHA-256 (hex) of the canonical JSON of effective values.
func ValuesHash(values map[string]any) (string, error) {
	doc, err := canonical(values)
	if err != nil {
		return "", fmt.Errorf("hashing the effective values: %w", err)
	}
	return hashOf(doc)
}

// canonical decodes v's JSON into plain maps and lists, so that encoding it again sorts
// every object's keys, those inside raw JSON (valuesSchema) included.
func canonical(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

func hashOf(doc any) (string, error) {
	raw, err := json.Marshal(doc) // maps encode with sorted keys
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}
