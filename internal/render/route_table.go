package render

import (
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/routing"
)

// routeTableData is .RouteTable: the table in its JSON form (lower camel case keys,
// int64 numbers), like the objects the templates read. Without a table (a caller that
// computed none) it is an empty one, so that templates range over it all the same.
//
// It is built by hand, not by the reflecting converter: a table of 5,000 routes is
// converted at every render of their Gateway, and reflection took a third of the
// render. TestRouteTableDataIsTheConvertersForm holds the two equal.
//
// The matches' data comes from memo, which converts only those that changed since its
// last table; a nil memo is a new one.
func routeTableData(t *routing.Table, memo *TableMemo) map[string]any {
	if t == nil {
		t = &routing.Table{Listeners: []routing.Listener{}, Routes: []routing.RouteVerdict{}}
	}
	if memo == nil {
		memo = NewTableMemo()
	}
	memo.mu.Lock()
	defer memo.mu.Unlock()
	defer memo.sweep()
	return map[string]any{
		"listeners": listOf(t.Listeners, func(l *routing.Listener) map[string]any { return tableListenerData(l, memo) }),
		"routes":    listOf(t.Routes, memo.verdict),
	}
}

// listOf converts items as the converter converts a slice: nil stays nil.
func listOf[T any](items []T, convert func(*T) map[string]any) any {
	if items == nil {
		return nil
	}
	out := make([]any, len(items))
	for i := range items {
		out[i] = convert(&items[i])
	}
	return out
}

func tableListenerData(l *routing.Listener, memo *TableMemo) map[string]any {
	out := map[string]any{
		"name":         l.Name,
		"port":         int64(l.Port),
		"protocol":     l.Protocol,
		"hostname":     l.Hostname,
		"tlsMode":      l.TLSMode,
		"certificates": listOf(l.Certificates, refData),
		"valid":        l.Valid,
		"hosts":        listOf(l.Hosts, func(h *routing.Host) map[string]any { return hostData(h, memo) }),
	}
	if len(l.Routes) > 0 {
		out["routes"] = listOf(l.Routes, l4RouteData)
	}
	if l.ListenerSet != nil {
		out["listenerSet"] = refData(l.ListenerSet)
	}
	return out
}

func hostData(h *routing.Host, memo *TableMemo) map[string]any {
	out := map[string]any{"hostname": h.Hostname, "matches": listOf(h.Matches, func(m **routing.Match) map[string]any { return memo.match(*m) })}
	if len(h.GRPCMatches) > 0 {
		out["grpcMatches"] = listOf(h.GRPCMatches, grpcMatchData)
	}
	if len(h.TLSRoutes) > 0 {
		out["tlsRoutes"] = listOf(h.TLSRoutes, l4RouteData)
	}
	return out
}

func refData(r *routing.ObjectRef) map[string]any {
	return map[string]any{"kind": r.Kind, "namespace": r.Namespace, "name": r.Name}
}

func matchData(m *routing.Match) map[string]any {
	out := map[string]any{
		"route":       refData(&m.Route),
		"rule":        int64(m.Rule),
		"ruleName":    m.RuleName,
		"match":       int64(m.Match),
		"name":        m.Name,
		"path":        map[string]any{"type": m.Path.Type, "value": m.Path.Value},
		"method":      m.Method,
		"headers":     listOf(m.Headers, valueMatchData),
		"queryParams": listOf(m.QueryParams, valueMatchData),
		"filters":     filtersData(m.Filters),
		"backends":    listOf(m.Backends, httpBackendData),
	}
	if m.Timeouts != nil {
		out["timeouts"] = converted(m.Timeouts)
	}
	return out
}

func valueMatchData(v *routing.ValueMatch) map[string]any {
	return map[string]any{"type": v.Type, "name": v.Name, "value": v.Value}
}

func grpcMatchData(m *routing.GRPCMatch) map[string]any {
	return map[string]any{
		"route":    refData(&m.Route),
		"rule":     int64(m.Rule),
		"ruleName": m.RuleName,
		"match":    int64(m.Match),
		"name":     m.Name,
		"method":   map[string]any{"type": m.Method.Type, "service": m.Method.Service, "method": m.Method.Method},
		"headers":  listOf(m.Headers, valueMatchData),
		"filters":  filtersData(m.Filters),
		"backends": listOf(m.Backends, grpcBackendData),
	}
}

func l4RouteData(r *routing.L4Route) map[string]any {
	return map[string]any{"route": refData(&r.Route), "backends": listOf(r.Backends, backendData)}
}

func backendData(b *routing.Backend) map[string]any {
	return map[string]any{
		"group":     b.Group,
		"kind":      b.Kind,
		"namespace": b.Namespace,
		"name":      b.Name,
		"port":      int64(b.Port),
		"weight":    int64(b.Weight),
		"resolved":  b.Resolved,
		"reason":    b.Reason,
	}
}

func httpBackendData(b *routing.HTTPBackend) map[string]any {
	out := backendData(&b.Backend)
	out["filters"] = filtersData(b.Filters)
	return out
}

func grpcBackendData(b *routing.GRPCBackend) map[string]any {
	out := backendData(&b.Backend)
	out["filters"] = filtersData(b.Filters)
	return out
}

func verdictData(v *routing.RouteVerdict) map[string]any {
	out := refData(&v.ObjectRef)
	out["accepted"] = v.Accepted
	out["reason"] = v.Reason
	out["message"] = v.Message
	var listeners any
	if v.Listeners != nil {
		names := make([]any, len(v.Listeners))
		for i, name := range v.Listeners {
			names[i] = name
		}
		listeners = names
	}
	out["listeners"] = listeners
	return out
}

func filtersData[F gatewayv1.HTTPRouteFilter | gatewayv1.GRPCRouteFilter](filters []F) any {
	switch {
	case filters == nil:
		return nil
	case len(filters) == 0:
		return []any{} // as converted, without its reflection: most backends have none
	}
	return converted(filters)
}

// converted is what the converter makes of the Gateway API's own types (filters,
// timeouts), whose JSON form is theirs to say; few routes have any.
func converted[T any](v T) any {
	wrapped, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
		V T `json:"v"`
	}{v})
	if err != nil {
		panic(err) // the Gateway API's types always convert
	}
	return wrapped["v"]
}
