package render

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gatewright/gatewright/internal/routing"
)

// routeTableData is .RouteTable: the table in its JSON form (lower camel case keys,
// int64 numbers), like the objects the templates read. Without a table (a caller that
// computed none) it is an empty one, so that templates range over it all the same.
func routeTableData(t *routing.Table) map[string]any {
	if t == nil {
		t = &routing.Table{Listeners: []routing.Listener{}, Routes: []routing.RouteVerdict{}}
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(t)
	if err != nil {
		panic(err) // the table's types always convert
	}
	return m
}
