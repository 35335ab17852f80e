package controllers

import (
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/render"
)

// keepWaiting keeps the objects of templates that wait for a dependency: they were
// rendered before and are not gone, only not rendered this round.
func keepWaiting(waiting []render.Waiting) func(apply.Entry) bool {
	return func(e apply.Entry) bool {
		for _, w := range waiting {
			if w.Template == e.Template {
				return true
			}
		}
		return false
	}
}
