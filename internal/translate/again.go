package translate

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/render"
)

// RenderAgain renders the Gateway's templates of r once more, with live, its objects as
// an apply left them, by template, as .Resources: the status template then reports what
// was just created. When no template can render other objects now (render's
// ObjectsMayChange), only the status template runs again, and statusOnly says so.
func (r *Result) RenderAgain(live map[string][]*unstructured.Unstructured) (out *render.Output, statusOnly bool, err error) {
	input := r.Input
	input.Live = live
	if !r.Blueprint.ObjectsMayChange(r.Output) {
		out, err = r.Blueprint.GatewayStatus(input, r.Output)
		return out, true, err
	}
	out, err = r.Blueprint.Gateway(input)
	return out, false, err
}

// AgainMayDiffer tells whether RenderAgain after an apply that created or changed objects
// of the templates changed, and deleted none, may render anything but r.Output: a
// template waits for an object, the status template has not run yet (an object was not
// ready), or a template or readyWhen reads the objects of one of them. Otherwise every
// template would see what it saw, so a class-wide change of 1,000 Gateways renders each
// once.
func (r *Result) AgainMayDiffer(changed []string) bool {
	if len(r.Output.Waiting) > 0 || (r.Blueprint.HasStatus() && !r.Output.StatusRendered) {
		return true
	}
	return slices.ContainsFunc(changed, r.Blueprint.ReadsWhole(""))
}
