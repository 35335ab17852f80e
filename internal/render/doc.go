// Package render turns a GatewayClassBlueprint, the effective values and the Gateway
// (or HTTPRoute) into the objects to apply. It is plain Go: the controller and the
// offline commands run the same code.
//
// Templates are Go text/templates with Helm's function set, parsed once per blueprint
// generation. The output is split into documents by a YAML parser, every object is
// checked against the namespace and cluster-scope rules and stamped with Gatewright's
// labels, and a failure anywhere means no objects at all: never a partial render.
package render
