package render

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// statusDocument is what the status template renders.
type statusDocument struct {
	Addresses []gatewayv1.GatewayStatusAddress `json:"addresses"`
}

func (b *Blueprint) status(c *clone, data map[string]any) ([]gatewayv1.GatewayStatusAddress, error) {
	text, err := c.execute(statusTemplate, data)
	if err != nil {
		return nil, templateError(b.name, statusTemplate, err)
	}
	var doc statusDocument
	if err := yaml.UnmarshalStrict([]byte(text), &doc); err != nil {
		return nil, withOutput(&Error{Blueprint: b.name, Template: statusTemplate, Message: "the rendered status is not `addresses: [{type, value}]`: " + err.Error()}, text)
	}
	for _, a := range doc.Addresses {
		if a.Value == "" {
			return nil, &Error{Blueprint: b.name, Template: statusTemplate, Message: "an address has no value"}
		}
	}
	return doc.Addresses, nil
}
