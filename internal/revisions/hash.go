package revisions

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// rolloutField is spec.rollout, which issue 28's waves will add: it says how a revision
// reaches the Gateways, not what they render, so changing it makes no revision.
const rolloutField = "rollout"

// SpecHash is the SHA-256 (hex) of the canonical JSON of spec, without spec.rollout.
func SpecHash(spec *gatewrightv1alpha1.GatewayClassBlueprintSpec) (string, error) {
	doc, err := canonical(spec)
	if err != nil {
		return "", fmt.Errorf("hashing the blueprint spec: %w", err)
	}
	return specDocumentHash(doc)
}

// specDocumentHash hashes a spec decoded from JSON, without its rollout block.
func specDocumentHash(doc any) (string, error) {
	if fields, ok := doc.(map[string]any); ok {
		delete(fields, rolloutField)
	}
	return hashOf(doc)
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
