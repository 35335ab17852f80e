package controllers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=referencegrants,verbs=get;list;watch

// serviceCameOrWent passes the creation and deletion of a Service: a backendRef resolves
// by the Service's existence alone, and its metadata changing says nothing new.
var serviceCameOrWent = predicate.TypedFuncs[*metav1.PartialObjectMetadata]{
	UpdateFunc: func(event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool { return false },
}
