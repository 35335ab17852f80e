package routing

import (
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// normalizeMatch fills m's path, method, header and query parameter matches from spec,
// with the defaults the API gives an unset type or path.
func normalizeMatch(m *Match, spec *gatewayv1.HTTPRouteMatch) {
	m.Path = PathMatch{Type: string(gatewayv1.PathMatchPathPrefix), Value: "/"}
	if p := spec.Path; p != nil {
		if p.Type != nil {
			m.Path.Type = string(*p.Type)
		}
		if p.Value != nil {
			m.Path.Value = *p.Value
		}
	}
	if spec.Method != nil {
		m.Method = string(*spec.Method)
	}
	m.Headers = make([]ValueMatch, 0, len(spec.Headers))
	for _, h := range spec.Headers {
		v := ValueMatch{Type: string(gatewayv1.HeaderMatchExact), Name: strings.ToLower(string(h.Name)), Value: h.Value}
		if h.Type != nil {
			v.Type = string(*h.Type)
		}
		m.Headers = append(m.Headers, v)
	}
	m.QueryParams = make([]ValueMatch, 0, len(spec.QueryParams))
	for _, q := range spec.QueryParams {
		v := ValueMatch{Type: string(gatewayv1.QueryParamMatchExact), Name: string(q.Name), Value: q.Value}
		if q.Type != nil {
			v.Type = string(*q.Type)
		}
		m.QueryParams = append(m.QueryParams, v)
	}
}

// normalizeFilters copies filters with the defaults the API gives unset fields: a
// redirect's status code (302). The API server fills most defaults itself; objects read
// from files and older servers may lack them.
func normalizeFilters(filters []gatewayv1.HTTPRouteFilter) []gatewayv1.HTTPRouteFilter {
	out := make([]gatewayv1.HTTPRouteFilter, len(filters))
	for i := range filters {
		f := *filters[i].DeepCopy()
		if r := f.RequestRedirect; r != nil && r.StatusCode == nil {
			found := 302
			r.StatusCode = &found
		}
		out[i] = f
	}
	return out
}
