package translate

import (
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
